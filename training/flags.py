"""The flags of `fit` and `experiment pooling`, made from the settings table (`settings.py`), and
what they set: a whole `FitConfig` (flags alone), or the fields that replace a recipe's
(`fit --config RECIPE` with flags). Every setting flag defaults to None, so a flag left out is
told apart from one typed with its default value."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from .checks import check_fit_sets_apart
from .config import FitConfig, Stage
from .errors import TrainingError
from .losses import LOSSES
from .settings import EPOCHS, FLAG_SETTINGS, flag_values

RUN_FLAGS = ("command", "threads", "config", "data", "out", "resume")  # not settings


def add_fit_flags(parser: argparse.ArgumentParser, *, leave_out: tuple[str, ...] = ()) -> None:
    """The stage flags (--train, --loss, --epochs), --dev and one flag per setting of the table
    (`leave_out`: FitConfig fields this command sets itself, e.g. the pooling experiment's)."""
    parser.add_argument("--train", action="append",
                        help="FILE[,FILE]: one training stage; repeat for stages run in order")
    parser.add_argument("--loss", action="append",
                        help=f"one per --train (or one for all): {', '.join(LOSSES)}; default: "
                        "by data kind (scored/binary pairs -> cosent, nli/triplets -> mnrl)")
    parser.add_argument("--epochs", action="append", type=EPOCHS.argtype(),
                        help="one per --train (or one for all); default 1")
    parser.add_argument("--dev", help="scored/binary pairs: evaluated every --eval-steps, "
                        "best kept")
    for setting in FLAG_SETTINGS:
        if setting.field not in leave_out:
            setting.add_flag(parser)


def per_stage(values: list | None, n: int, default: Any, flag: str) -> list:
    """`flag`'s values for `n` stages: given once for all, or once per --train."""
    if not values:
        if default is None:
            raise TrainingError(f"{flag} is required (one of: {', '.join(LOSSES)})")
        return [default] * n
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise TrainingError(f"give {flag} once, or once per --train ({n}); got {len(values)}")
    return values


def stages_from_flags(train: list[str], losses: list | None, epochs: list | None) -> tuple:
    """One Stage per --train (FILE[,FILE]); --loss/--epochs once for all or once per stage."""
    n = len(train)
    losses = per_stage(losses, n, None, "--loss") if losses else [None] * n
    epochs = per_stage(epochs, n, 1.0, "--epochs")
    return tuple(
        Stage(tuple(f for f in files.split(",") if f), loss, ep)
        for files, loss, ep in zip(train, losses, epochs, strict=True)
    )


def fit_config(args: argparse.Namespace) -> FitConfig:
    """The run the flags describe (no recipe); refuses a --dev that is a --train file."""
    if not args.model or not args.train:
        raise TrainingError("fit needs --model NAME and --train FILE (or --config RECIPE)")
    config = FitConfig(stages=stages_from_flags(args.train, args.loss, args.epochs),
                       out=args.out, dev=args.dev, **flag_values(vars(args)))
    check_fit_sets_apart(config)
    return config


def given_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The flags typed on the command line (dest -> value); those left out are None."""
    return {k: v for k, v in vars(args).items()
            if v is not None and v is not False and k not in ("command", "threads")}


def overrides(flags: dict[str, Any], config: FitConfig) -> dict[str, Any]:
    """FitConfig fields the flags replace; --loss/--epochs alone re-set the recipe's stages."""
    out = flag_values(flags)
    if "dev" in flags:
        out["dev"] = flags["dev"]
    if "train" in flags:  # the flags' stages replace the recipe's
        out["stages"] = stages_from_flags(flags["train"], flags.get("loss"), flags.get("epochs"))
    elif "loss" in flags or "epochs" in flags:
        out["stages"] = _restage(config, flags.get("loss"), flags.get("epochs"))
    return out


def _restage(config: FitConfig, losses: list | None, epochs: list | None) -> tuple:
    n = len(config.stages)
    losses = per_stage(losses, n, None, "--loss") if losses else [None] * n
    epochs = per_stage(epochs, n, None, "--epochs") if epochs else [None] * n
    stages = []
    for stage, loss, ep in zip(config.stages, losses, epochs, strict=True):
        if loss is not None and stage.tasks:
            raise TrainingError(f"--loss cannot override multi-task stage {stage.name!r}: each "
                                "task names its loss in the recipe")
        stages.append(dataclasses.replace(stage, loss=loss or stage.loss,
                                          epochs=ep if ep is not None else stage.epochs))
    return tuple(stages)
