"""The `mlm` and `mlm-heads` sub-commands of `python -m training` (parsers and drivers)."""

from __future__ import annotations

import argparse
import json

from .config import MlmConfig


def add_parsers(sub) -> None:
    p = sub.add_parser("mlm", help="continue BERT's MLM (+ NSP) pretraining on a corpus")
    _mlm_flags(p, corpus_required=True)

    h = sub.add_parser("mlm-heads", help="train a bundled model's MLM + NSP heads once (cached)")
    h.add_argument("name", help="minilm or e5-multilingual")
    h.add_argument("--steps", type=int, help="optimizer steps (default: the recipe's)")

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
    p.add_argument("--eval-fraction", type=float, default=0.05)
    p.add_argument("--max-eval", type=int, default=1000, help="held-out sequences scored")
    p.add_argument("--mlm-probability", type=float, default=0.15)
    p.add_argument("--whole-word", action="store_true",
                   help="mask whole words (WordPiece ## groups, jieba words for Chinese)")
    p.add_argument("--head-only", action="store_true",
                   help="train only the heads; the encoder stays frozen (minutes on a CPU)")
    p.add_argument("--nsp", action="store_true", help="also train next-sentence prediction")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--max-steps", type=int, help="stop after N optimizer steps")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, help="default 5e-5, or 1e-3 with --head-only")
    p.add_argument("--warmup", type=float, default=0.06, help="warm-up fraction of the steps")
    p.add_argument("--max-length", type=int, default=128, help="tokens per sequence")
    p.add_argument("--max-docs", type=int, help="a seeded random sample of N documents")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--logging-steps", type=int, default=10)
    p.add_argument("--save-steps", type=int, default=200, help="checkpoint every N steps")
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
        line = (f"held-out {when}: top-1 {s['top1']:.1%}  top-5 {s['top5']:.1%}  "
                f"perplexity {s['perplexity']:.1f}")
        if "nsp" in s:
            line += f"  NSP accuracy {s['nsp']['accuracy']:.1%}"
        print(line)


def run_heads(args: argparse.Namespace) -> None:
    from .bundled import ensure_bundled_heads

    print(f"heads ready in {ensure_bundled_heads(args.name, steps=args.steps)}")


def run_experiment(args: argparse.Namespace) -> None:
    from . import experiments as ex

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


COMMANDS = {"mlm": run_mlm, "mlm-heads": run_heads, "mlm-experiment": run_experiment}
