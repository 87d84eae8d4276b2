"""Command line: `python -m training fit | evaluate | experiment pooling | adapt | mlm ...`.
Parses flags into the library's configs and prints results; user errors end as one line on
stderr with exit status 2 (a bad flag value: argparse's usage line and one error line, also 2)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from common import check_output_file, os_error_text
from common.argtypes import POSITIVE
from common.cli_parser import Parser
from encoder.backends import AUTO, BACKENDS

from . import adapt_cli
from .errors import TrainingError
from .flags import add_fit_flags, fit_config
from .mlm import cli as mlm_cli


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m training", description=__doc__)
    parser.add_argument("--threads", type=POSITIVE,
                        help="CPU threads for torch (1 on a busy machine)")
    sub = parser.add_subparsers(dest="command", required=True)

    fit = sub.add_parser("fit", help="fine-tune an encoder as a Siamese Sentence-BERT")
    fit.add_argument("--config", help="a recipe file (recipes/NAME.json); flags override it")
    fit.add_argument("--data", help="data root for a recipe's files (default $BERTSCOPE_DATA, "
                     "else ../shared/data)")
    add_fit_flags(fit)
    fit.add_argument("--out", required=True, help="output folder (new or empty, or --resume)")
    fit.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")

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
    add_fit_flags(pool, leave_out=("pooling",))
    pool.add_argument("--out", required=True, help="folder for one run per pooling mode")
    pool.add_argument("--modes", default="cls,mean,max")
    pool.add_argument("--resume", action="store_true")
    mlm_cli.add_parsers(sub)
    adapt_cli.add_parser(sub)
    return parser


def run_fit(args: argparse.Namespace) -> None:
    from .fit import fit

    if args.config:
        from .recipe_cli import run_recipe

        run_recipe(args)
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
    import datasets

    datasets.disable_progress_bars()  # row-mapping bars would bury the messages that matter
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "sentence_transformers", "datasets", "matplotlib"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    commands = {"fit": run_fit, "evaluate": run_evaluate, "experiment": run_experiment,
                "adapt": adapt_cli.run_adapt, **mlm_cli.COMMANDS}
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
