"""Command line: `python -m training fit | evaluate | experiment pooling`. Parses flags into the
library's configs and prints results; user errors end as one line on stderr with exit status 2
(a bad flag value: argparse's usage line and one error line, also 2)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from common import check_output_file, os_error_text
from common.argtypes import POSITIVE, integer, number
from encoder.backends import AUTO, BACKENDS

from .checks import check_fit_sets_apart
from .config import FitConfig, Stage
from .errors import TrainingError
from .losses import LOSSES
from .mlm import cli as mlm_cli
from .siamese import POOLING_MODES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    parser.add_argument("--threads", type=POSITIVE,
                        help="CPU threads for torch (1 on a busy machine)")
    sub = parser.add_subparsers(dest="command", required=True)

    fit = sub.add_parser("fit", help="fine-tune an encoder as a Siamese Sentence-BERT")
    fit.add_argument("--config", help="a recipe file (recipes/NAME.json); flags override it")
    fit.add_argument("--data", help="data root for a recipe's files (default $BERTSCOPE_DATA, "
                     "else ../shared/data)")
    _add_fit_flags(fit)
    fit.add_argument("--pooling", default="mean", help=f"one of {', '.join(POOLING_MODES)}")
    fit.add_argument("--out", required=True, help="output folder (new or empty, or --resume)")
    fit.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    fit.add_argument("--keep-checkpoints", action="store_true")

    ev = sub.add_parser("evaluate", help="STS Spearman/Pearson or BEIR retrieval scores")
    ev.add_argument("model", help="bundled name (minilm, e5-multilingual) or model folder")
    ev.add_argument("--sts", action="append", default=[], help="scored/binary pairs file (repeat)")
    ev.add_argument("--beir", help="BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    ev.add_argument("--split", default="test", help="qrels split for --beir")
    ev.add_argument("--prompt", default="query", help="model prompt for STS texts, or 'none'")
    ev.add_argument("--batch-size", type=POSITIVE, default=64)
    ev.add_argument("--backend", choices=(AUTO, *BACKENDS), default=AUTO,
                    help="what encodes: auto = the fastest whose export passed the fidelity gate")
    ev.add_argument("--json", help="also write the results to this JSON file")
    ev.add_argument("--no-progress", action="store_true", help="no progress bars")

    ex = sub.add_parser("experiment", help="controlled comparisons")
    ex_sub = ex.add_subparsers(dest="experiment", required=True)
    pool = ex_sub.add_parser("pooling", help="fine-tune with cls, mean and max pooling, one seed")
    _add_fit_flags(pool)
    pool.add_argument("--out", required=True, help="folder for one run per pooling mode")
    pool.add_argument("--modes", default="cls,mean,max")
    pool.add_argument("--resume", action="store_true")
    pool.add_argument("--keep-checkpoints", action="store_true")
    mlm_cli.add_parsers(sub)
    return parser


def _add_fit_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="bundled name or model folder")
    p.add_argument(
        "--train",
        action="append",
        help="FILE[,FILE]: one training stage; repeat for stages run in order",
    )
    p.add_argument(
        "--loss",
        action="append",
        help=f"one per --train (or one for all): {', '.join(LOSSES)}; default: by data kind "
        "(scored/binary pairs -> cosent, nli/triplets -> mnrl)",
    )
    p.add_argument(
        "--epochs", action="append", type=number(above=0),
        help="one per --train (or one for all); default 1",
    )
    p.add_argument("--dev", help="scored/binary pairs: evaluated every --eval-steps, best kept")
    p.add_argument("--max-length", type=integer(8), default=128, help="max tokens per text")
    p.add_argument("--batch-size", type=POSITIVE, default=16)
    p.add_argument("--lr", type=number(above=0), default=2e-5)
    p.add_argument("--warmup", type=number(0, below=1), default=0.1,
                   help="warm-up fraction of all steps")
    p.add_argument("--eval-steps", type=POSITIVE, default=100)
    p.add_argument("--logging-steps", type=POSITIVE, default=10)
    p.add_argument("--seed", type=integer(0, 2**32 - 1), default=42)
    p.add_argument("--max-rows", type=POSITIVE,
                   help="train on a seeded random sample of N rows a stage")
    p.add_argument("--prompt", default="query", help="model prompt before every text, or 'none'")
    p.add_argument(
        "--freeze-embeddings",
        action="store_true",
        help="do not train the word-embedding matrix (cheaper steps for big vocabularies)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _per_stage(values: list | None, n: int, default, flag: str) -> list:
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
    losses = _per_stage(losses, n, None, "--loss") if losses else [None] * n
    epochs = _per_stage(epochs, n, 1.0, "--epochs")
    return tuple(
        Stage(tuple(f for f in files.split(",") if f), loss, ep)
        for files, loss, ep in zip(train, losses, epochs, strict=True)
    )


def fit_config(args: argparse.Namespace, *, pooling: str = "mean") -> FitConfig:
    if not args.model or not args.train:
        raise TrainingError("fit needs --model NAME and --train FILE (or --config RECIPE)")
    stages = stages_from_flags(args.train, args.loss, args.epochs)
    config = FitConfig(
        model=args.model,
        stages=stages,
        out=args.out,
        dev=args.dev,
        pooling=getattr(args, "pooling", pooling),
        max_seq_length=args.max_length,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_ratio=args.warmup,
        eval_steps=args.eval_steps,
        logging_steps=args.logging_steps,
        seed=args.seed,
        max_rows=args.max_rows,
        prompt=None if args.prompt == "none" else args.prompt,
        keep_checkpoints=args.keep_checkpoints,
        show_progress=not args.no_progress,
    )
    check_fit_sets_apart(config)
    return config


def run_fit(args: argparse.Namespace) -> None:
    from .fit import fit

    if args.config:
        from .recipe_cli import run_recipe

        run_recipe(args, build_parser())
        return
    result = fit(fit_config(args), resume=args.resume)
    m = result.metrics
    print(f"model saved to {result.out} ({m['wall_s']:.0f} s)")
    if m.get("dev_after"):
        print(
            f"dev Spearman x100: {m['dev_before']['spearman']:.2f} before, "
            f"{m['dev_after']['spearman']:.2f} after"
        )


def run_evaluate(args: argparse.Namespace) -> int:
    from common import json_text

    from .evaluate import evaluate_model

    if not args.sts and not args.beir:
        raise TrainingError("evaluate needs --sts FILE or --beir FOLDER --split NAME")
    if args.json:
        check_output_file(args.json, "--json", TrainingError)
    prompt = None if args.prompt == "none" else args.prompt
    results = evaluate_model(
        args.model,
        sts=args.sts,
        beir=args.beir,
        split=args.split,
        prompt=prompt,
        batch_size=args.batch_size,
        progress=not args.no_progress,
        backend=args.backend,
    )
    for line in results.lines():
        print(line)
    if args.json:
        from pathlib import Path

        Path(args.json).write_text(json_text(results.to_dict()), encoding="utf-8")
    return 0


def run_experiment(args: argparse.Namespace) -> None:
    from .experiment import pooling_experiment, pooling_table

    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    rows = pooling_experiment(fit_config(args), args.out, modes=modes, resume=args.resume)
    print(pooling_table(rows))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # a recipe's overrides read it
    import datasets

    datasets.disable_progress_bars()  # row-mapping bars would bury the messages that matter
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "sentence_transformers", "datasets", "matplotlib"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    commands = {"fit": run_fit, "evaluate": run_evaluate, "experiment": run_experiment,
                **mlm_cli.COMMANDS}
    from encoder.errors import EncoderNotFoundError  # after parsing: --help stays quick

    try:
        return commands[args.command](args) or 0
    except (TrainingError, EncoderNotFoundError) as exc:  # the mlm commands load --model as is
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that vanished or cannot be written mid-run: say which
        print(f"error: {os_error_text(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; continue with the same command and --resume", file=sys.stderr)
        return 130
