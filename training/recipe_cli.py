"""`fit --config RECIPE`: the recipe file gives every setting; flags typed on the command line
override it (`--batch-size 8`, `--max-rows 200`, `--dev FILE`, `--train ... --loss ...`)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
from typing import Any

from .checks import check_fit_sets_apart
from .config import FitConfig
from .errors import TrainingError

log = logging.getLogger("bertscope.training")

# flag dest -> FitConfig field
FLAG_FIELDS = {
    "model": "model",
    "pooling": "pooling",
    "max_length": "max_seq_length",
    "batch_size": "batch_size",
    "lr": "learning_rate",
    "warmup": "warmup_ratio",
    "eval_steps": "eval_steps",
    "logging_steps": "logging_steps",
    "seed": "seed",
    "max_rows": "max_rows",
    "freeze_embeddings": "freeze_embeddings",
    "keep_checkpoints": "keep_checkpoints",
}


def given_flags(parser: argparse.ArgumentParser, argv: list[str]) -> dict[str, Any]:
    """The `fit` flags present in `argv` (dest -> value), defaults left out."""
    fit = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = fit.choices["fit"]
    sub.set_defaults(**{a.dest: None for a in sub._actions if a.dest != "help"})
    for action in sub._actions:
        action.required = False
    ns = parser.parse_args(argv)
    return {k: v for k, v in vars(ns).items() if v is not None and k not in ("command", "threads")}


def overrides(flags: dict[str, Any], config: FitConfig) -> dict[str, Any]:
    """FitConfig fields the flags replace; --loss/--epochs alone re-set the recipe's stages."""
    from .cli import stages_from_flags

    out: dict[str, Any] = {FLAG_FIELDS[k]: v for k, v in flags.items() if k in FLAG_FIELDS}
    if "prompt" in flags:
        out["prompt"] = None if flags["prompt"] == "none" else flags["prompt"]
    if flags.get("no_progress"):
        out["show_progress"] = False
    if "dev" in flags:
        out["dev"] = flags["dev"]
    if "train" in flags:  # the flags' stages replace the recipe's
        out["stages"] = stages_from_flags(flags["train"], flags.get("loss"), flags.get("epochs"))
    elif "loss" in flags or "epochs" in flags:
        out["stages"] = _restage(config, flags.get("loss"), flags.get("epochs"))
    return out


def _restage(config: FitConfig, losses: list | None, epochs: list | None) -> tuple:
    from .cli import _per_stage

    n = len(config.stages)
    losses = _per_stage(losses, n, None, "--loss") if losses else [None] * n
    epochs = _per_stage(epochs, n, None, "--epochs") if epochs else [None] * n
    stages = []
    for stage, loss, ep in zip(config.stages, losses, epochs, strict=True):
        if loss is not None and stage.tasks:
            raise TrainingError(f"--loss cannot override multi-task stage {stage.name!r}: each "
                                "task names its loss in the recipe")
        stages.append(dataclasses.replace(stage, loss=loss or stage.loss,
                                          epochs=ep if ep is not None else stage.epochs))
    return tuple(stages)


def run_recipe(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from .fit import fit
    from .recipe import load_recipe

    flags = given_flags(parser, args.argv)
    recipe = load_recipe(args.config, out=args.out, data=args.data)
    config = dataclasses.replace(recipe.config, **overrides(flags, recipe.config))
    check_fit_sets_apart(config)  # --dev / --train given as flags
    changed = sorted(set(flags) - {"config", "data", "out", "resume"})
    log.info("recipe %s (%s)%s", recipe.name, recipe.path,
             f"; flags override: {', '.join('--' + c.replace('_', '-') for c in changed)}"
             if changed else "")
    if recipe.cross_validation is not None:
        from .crossval import run_cross_validation

        summary = run_cross_validation(dataclasses.replace(recipe, config=config),
                                       resume=args.resume)
        print(summary)
        return
    result = fit(config, resume=args.resume)
    m = result.metrics
    print(f"model saved to {result.out} ({m['wall_s']:.0f} s)")
    for role in ("dev", "report"):
        before, after = m.get(f"{role}_before"), m.get(f"{role}_after")
        if before and after:
            for b, a in zip(before["sets"], after["sets"], strict=True):
                print(f"{role} {b['path']}: Spearman x100 {b['spearman']:.2f} before, "
                      f"{a['spearman']:.2f} after")
