"""`python -m training adapt`: fine-tune an index's encoder on the index's own documents, with
no labels, and print the held-out check's figures before and after (see `adapt.py`)."""

from __future__ import annotations

import argparse

from common.argtypes import integer, number


def add_parser(sub) -> None:
    from .adapt_config import AdaptConfig
    from .adapt_pairs import PAIR_SOURCES

    d = AdaptConfig(out="")
    p = sub.add_parser("adapt", help="adapt an encoder to an index's own documents (no labels)",
                       description=__doc__)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--index", help="the index whose documents (and encoder) to adapt to")
    where.add_argument("--corpus", help="or a corpus file (JSONL/CSV/Parquet: id, title, text)")
    p.add_argument("--out", required=True, help="the adapted model's folder (new or empty)")
    p.add_argument("--model", help="the encoder to adapt (default: the index's own)")
    p.add_argument("--pairs", default=",".join(d.sources),
                   help=f"pair sources, comma-separated, of {', '.join(PAIR_SOURCES)} "
                        f"(default {','.join(d.sources)}: see bench/results/adapt_scifact.md)")
    p.add_argument("--epochs", type=number(above=0), default=d.epochs)
    p.add_argument("--lr", type=number(above=0), default=d.learning_rate, help="peak rate")
    p.add_argument("--batch-size", type=integer(2), default=d.batch_size,
                   help="pairs a step; the other pairs of a batch are each pair's negatives")
    p.add_argument("--max-length", type=integer(8), default=d.max_seq_length,
                   help="tokens a text while training (the model keeps its own window)")
    p.add_argument("--max-pairs", type=integer(1), default=d.max_pairs,
                   help="a seeded sample of at most N pairs, evenly across the sources")
    p.add_argument("--seed", type=integer(0, 2**32 - 1), default=d.seed)
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_adapt(args: argparse.Namespace) -> int:
    from .adapt import adapt, scratch_dir
    from .adapt_config import AdaptConfig, check_adapt_config
    from .adapt_source import corpus_documents, index_documents

    config = AdaptConfig(
        out=args.out, model=args.model,
        sources=tuple(s.strip() for s in args.pairs.split(",") if s.strip()),
        epochs=args.epochs, learning_rate=args.lr, batch_size=args.batch_size,
        max_seq_length=args.max_length, max_pairs=args.max_pairs, seed=args.seed,
        show_progress=not args.no_progress)
    check_adapt_config(config)  # before the documents are read
    if args.index:
        _progress("export")
        source = index_documents(args.index, scratch_dir(args.out))
    else:
        source = corpus_documents(args.corpus)
    result = adapt(config, source, resume=args.resume)
    for line in result.lines():
        print(line)
    if result.better:
        where = f"{args.index}" if args.index else "DIR"
        print(f"adapted model saved to {result.out}; re-index with it: python -m indexer "
              f"rebuild {where} --model {result.out} --out NEW")
    else:
        print(f"the adapted model is kept in {result.out} for a look, but not recommended: "
              "the index you have stays the better choice")
    return 0


def _progress(phase: str) -> None:
    from common.jobs import job_progress_file

    report = job_progress_file()
    if report:
        report(0, None, phase=phase)

