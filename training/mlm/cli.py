"""The `mlm` and `mlm-heads` sub-commands of `python -m training` (parsers and drivers)."""

from __future__ import annotations

import argparse
import json

from common.argtypes import POSITIVE, integer, number

from ..errors import TrainingError
from .config import MlmConfig


def add_parsers(sub) -> None:
    p = sub.add_parser("mlm", help="continue BERT's MLM (+ NSP) pretraining on a corpus")
    _mlm_flags(p, corpus_required=True)

    h = sub.add_parser("mlm-heads", help="train a bundled model's MLM + NSP heads once (cached)")
    h.add_argument("name", help="minilm or e5-multilingual")
    h.add_argument("--steps", type=POSITIVE, help="optimizer steps (default: the recipe's)")
    h.add_argument("--fingerprint", help="the model's fingerprint: cached heads trained for other "
                   "weights are trained again (the app passes its model's)")

    x = sub.add_parser("mlm-experiment", help="mask-ratio, nsp, fill-mask or domain")
    x.add_argument("kind", choices=EXPERIMENTS)
    _mlm_flags(x, corpus_required=False)
    x.add_argument("--sts-dev", help="nsp: STS pairs to score each resulting encoder on")
    x.add_argument("--beir", help="domain: BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    x.add_argument("--fresh", action="store_true", help="fill-mask: score an untrained head")


EXPERIMENTS = ("mask-ratio", "nsp", "fill-mask", "domain")


def _mlm_flags(p: argparse.ArgumentParser, *, corpus_required: bool) -> None:
    p.add_argument("--model", required=True, help="bundled name or model folder (BERT)")
    p.add_argument("--corpus", action="append", required=corpus_required, default=[],
                   help="JSONL (text field), .txt, or a folder of .txt/.md (repeat)")
    p.add_argument("--out", required=corpus_required, default="",
                   help="output folder (new or empty, or --resume)")
    p.add_argument("--text-field", default="text")
    p.add_argument("--eval", help="held-out texts (default: --eval-fraction of the documents)")
    p.add_argument("--eval-fraction", type=number(above=0, below=1), default=0.05)
    p.add_argument("--max-eval", type=POSITIVE, default=1000, help="held-out sequences scored")
    p.add_argument("--mlm-probability", type=number(above=0, below=1), default=0.15)
    p.add_argument("--whole-word", action="store_true",
                   help="mask whole words (WordPiece ## groups, jieba words for Chinese)")
    p.add_argument("--head-only", action="store_true",
                   help="train only the heads; the encoder stays frozen (minutes on a CPU)")
    p.add_argument("--nsp", action="store_true", help="also train next-sentence prediction")
    p.add_argument("--epochs", type=number(above=0), default=1.0)
    p.add_argument("--max-steps", type=POSITIVE, help="stop after N optimizer steps")
    p.add_argument("--batch-size", type=POSITIVE, default=16)
    p.add_argument("--lr", type=number(above=0), help="default 5e-5, or 1e-3 with --head-only")
    p.add_argument("--warmup", type=number(0, below=1), default=0.06,
                   help="warm-up fraction of the steps")
    p.add_argument("--max-length", type=integer(8), default=128, help="tokens per sequence")
    p.add_argument("--max-docs", type=POSITIVE, help="a seeded random sample of N documents")
    p.add_argument("--seed", type=integer(0, 2**32 - 1), default=42)
    p.add_argument("--logging-steps", type=POSITIVE, default=10)
    p.add_argument("--save-steps", type=POSITIVE, default=200, help="checkpoint every N steps")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--keep-checkpoints", action="store_true")
    p.add_argument("--no-progress", action="store_true")


def mlm_config(args: argparse.Namespace) -> MlmConfig:
    return MlmConfig(
        model=args.model, corpus=tuple(args.corpus), out=args.out, text_field=args.text_field,
        eval_corpus=args.eval, eval_fraction=args.eval_fraction, max_eval=args.max_eval,
        mlm_probability=args.mlm_probability, whole_word=args.whole_word,
        head_only=args.head_only, nsp=args.nsp, epochs=args.epochs, max_steps=args.max_steps,
        batch_size=args.batch_size, learning_rate=args.lr, warmup_ratio=args.warmup,
        max_length=args.max_length, max_docs=args.max_docs, seed=args.seed,
        logging_steps=args.logging_steps, save_steps=args.save_steps,
        keep_checkpoints=args.keep_checkpoints, show_progress=not args.no_progress,
    )


def run_mlm(args: argparse.Namespace) -> None:
    from .pretrain import pretrain

    result = pretrain(mlm_config(args), resume=args.resume)
    m = result.metrics
    print(f"model + heads saved to {result.out} ({m['wall_s']:.0f} s, {m['steps']} steps)")
    for when in ("before", "after"):
        s = m[when]
        if "top1" not in s:  # refused up front (guards.py); never a KeyError if it slips by
            print(f"held-out {when}: not scored (no held-out token was masked)")
            continue
        line = (f"held-out {when}: top-1 {s['top1']:.1%}  top-5 {s['top5']:.1%}  "
                f"perplexity {s['perplexity']:.1f}")
        if "nsp" in s:
            line += f"  NSP accuracy {s['nsp']['accuracy']:.1%}"
        print(line)


def run_heads(args: argparse.Namespace) -> None:
    from .bundled import ensure_bundled_heads

    folder = ensure_bundled_heads(args.name, steps=args.steps, fingerprint=args.fingerprint)
    print(f"heads ready in {folder}")


def run_experiment(args: argparse.Namespace) -> None:
    from . import experiments as ex

    _check_experiment(args)
    config = mlm_config(args)
    if args.kind == "fill-mask":
        result = ex.heads_accuracy(args.model, args.eval, text_field=args.text_field,
                                   max_eval=args.max_eval, fresh=args.fresh)
    elif args.kind == "mask-ratio":
        result = ex.mask_ratio_experiment(config, args.out)
    elif args.kind == "nsp":
        result = ex.nsp_experiment(config, args.out, args.sts_dev)
    else:
        result = ex.domain_experiment(args.beir, args.out, model=args.model,
                                      mlm=config if config.corpus else None, seed=args.seed,
                                      max_length=args.max_length)
    print(json.dumps(result, indent=2))


def _check_experiment(args: argparse.Namespace) -> None:
    """The flags each experiment needs, checked before any model loads."""
    needs = {"fill-mask": ("--eval", args.eval), "domain": ("--beir", args.beir)}
    if args.kind in ("mask-ratio", "nsp", "domain") and not args.out:
        raise TrainingError(f"mlm-experiment {args.kind} needs --out FOLDER")
    if args.kind in ("mask-ratio", "nsp") and not args.corpus:
        raise TrainingError(f"mlm-experiment {args.kind} needs --corpus FILE")
    if args.kind in needs and not needs[args.kind][1]:
        flag = needs[args.kind][0]
        raise TrainingError(f"mlm-experiment {args.kind} needs {flag} "
                            f"({'held-out texts' if flag == '--eval' else 'a BEIR folder'})")


COMMANDS = {"mlm": run_mlm, "mlm-heads": run_heads, "mlm-experiment": run_experiment}
