"""The batch CLI: build | search | info | add | delete | compact | eval | default.

Every command is a few lines over the library; errors print one line and exit non-zero.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

EXIT_USAGE, EXIT_ERROR = 2, 1


def _parser() -> argparse.ArgumentParser:
    from .corpus import FORMATS
    from .fusion import DEFAULT_FUSION, FUSIONS
    from .index import MODES
    from .presets import PRESETS

    p = argparse.ArgumentParser(prog="python -m indexer", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def corpus_args(c):
        c.add_argument("--corpus", required=True, help="JSONL/CSV/TSV/Parquet file, folder, BEIR")
        c.add_argument("--format", choices=FORMATS, help="default: from the extension")
        c.add_argument("--id-field", help="default: id, then _id, else generated")
        c.add_argument("--text-field", default="text")
        c.add_argument("--title-field", default="title")
        c.add_argument("--metadata-fields", help="comma-separated; default: all other scalars")
        c.add_argument("--on-error", choices=("skip", "fail"), default="skip")
        c.add_argument("--batch-size", type=int, default=32)
        c.add_argument("--threads", type=int, help="torch threads for encoding (1 is fastest "
                       "on a machine shared with other jobs); default: torch's choice")

    b = sub.add_parser("build", help="build an index from a corpus (resumable)")
    corpus_args(b)
    b.add_argument("--out", required=True)
    b.add_argument("--model", default="minilm", help="bundled name or local model folder")
    b.add_argument("--index", default="auto", choices=PRESETS, help="FAISS preset")
    b.add_argument("--chunk-tokens", type=int, help="default: the model's max length")
    b.add_argument("--overlap", type=int, default=32)
    b.add_argument("--no-title", action="store_true", help="do not prepend titles to chunks")
    b.add_argument("--shard-size", type=int, default=1024, help="chunks per resumable shard")
    b.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: chunk and embed on Ray Data actors (see --workers, --ray-address)")
    b.add_argument("--workers", type=int, default=2, help="--engine ray: encoder actors")
    b.add_argument("--ray-address", help="--engine ray: join this cluster (ray start --head "
                   "prints it); default: start Ray on this machine")

    s = sub.add_parser("search", help="search an index; print hits or write a TREC run")
    s.add_argument("index")
    s.add_argument("query", nargs="?")
    s.add_argument("--queries", help="BEIR-style queries.jsonl (_id, text)")
    s.add_argument("--run", help="write a TREC run file (qid Q0 docid rank score tag)")
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--mode", choices=MODES, default="dense")
    s.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                   help="how --mode hybrid fuses dense and BM25 (default: the measured best)")
    s.add_argument("--filter", help='JSON, e.g. {"category": "tech"}')
    s.add_argument("--per-chunk", action="store_true")
    s.add_argument("--tag", default="bertscope")
    s.add_argument("--knob", action="append", default=[], metavar="NAME=INT",
                   help="search knob, e.g. nprobe=32, efSearch=256, rerank=16")

    sub.add_parser("info", help="print an index's stats").add_argument("index")

    a = sub.add_parser("add", help="add or replace documents (upsert by id)")
    a.add_argument("index")
    corpus_args(a)

    d = sub.add_parser("delete", help="delete documents by id")
    d.add_argument("index")
    d.add_argument("ids", nargs="+")

    sub.add_parser("compact", help="rebuild vectors without deleted ones").add_argument("index")

    e = sub.add_parser("eval", help="nDCG@10, Recall@100, MRR@10 on a BEIR folder")
    e.add_argument("index")
    e.add_argument("--beir", required=True)
    e.add_argument("--split", default="test")
    e.add_argument("--mode", choices=MODES, default="dense")
    e.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                   help="how --mode hybrid fuses dense and BM25 (default: the measured best)")

    f = sub.add_parser("default", help="build the BBC News index with minilm when absent")
    f.add_argument("--out", required=True)
    f.add_argument("--threads", type=int, help="torch threads for encoding")
    return p


def _options(args):
    from .corpus import CorpusOptions

    fields = tuple(x.strip() for x in args.metadata_fields.split(",")) \
        if args.metadata_fields else None
    return CorpusOptions(id_field=args.id_field, text_field=args.text_field,
                         title_field=args.title_field or None, metadata_fields=fields,
                         format=args.format, on_error=args.on_error)


class _Bar:
    """A tqdm bar over `BuildProgress` reports: documents/s and ETA while encoding."""

    def __init__(self) -> None:
        self.bar = None
        self.stage = None

    def __call__(self, p) -> None:
        from tqdm import tqdm

        if p.stage != "encode":  # the other stages are short: no bar
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            return
        if p.stage != self.stage:
            if self.bar is not None:
                self.bar.close()
            self.stage = p.stage
            self.bar = tqdm(total=p.total, desc="encode", unit="doc", file=sys.stderr,
                            dynamic_ncols=True)
        self.bar.n = p.done
        if p.resumed:
            self.bar.set_postfix(resumed=p.resumed)
        self.bar.refresh()


def _report_skipped(skipped, duplicates: int) -> None:
    for s in skipped:
        print(f"skipped {s.file}:{s.line}: {s.reason}", file=sys.stderr)
    print(f"{len(skipped)} rows skipped, {duplicates} duplicate ids (later row kept)",
          file=sys.stderr)


def cmd_build(args) -> int:
    from .build import build_index
    from .chunking import ChunkingConfig

    index = build_index(
        args.corpus, args.out, model=args.model, preset=args.index,
        corpus_options=_options(args), batch_size=args.batch_size, shard_size=args.shard_size,
        chunking=ChunkingConfig(args.chunk_tokens, args.overlap, not args.no_title),
        progress=_Bar(), engine=args.engine, workers=args.workers, ray_address=args.ray_address,
    )
    st = index.stats()
    _report_skipped(st.skipped, st.duplicates)
    print(f"built {args.out}: {st.documents} documents, {st.chunks} chunks, preset {st.preset} "
          f"({st.faiss_spec}), model {st.model}, {st.size_bytes / 1e6:.1f} MB")
    return 0


def _knobs(items: list[str]) -> dict[str, int]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        if not value.isdigit():
            raise ValueError(f"--knob {item!r}: use NAME=INTEGER, e.g. nprobe=32")
        out[name] = int(value)
    return out


def cmd_search(args) -> int:
    from .index import SemanticIndex

    if (args.query is None) == (args.queries is None):
        raise ValueError("give either a query or --queries FILE")
    index = SemanticIndex.open(args.index)
    filt = json.loads(args.filter) if args.filter else None
    kw = dict(k=args.k, mode=args.mode, fusion=args.fusion, filter=filt, per_chunk=args.per_chunk,
              **_knobs(args.knob))
    if args.query is not None:
        hits = index.search(args.query, **kw)
        for h in hits:
            text = " ".join(h.text.split())
            print(f"{h.rank:>3}  {h.score:.4f}  {h.doc_id}  {h.title[:60]!r}  {text[:120]}")
        return 0
    rows = [json.loads(line) for line in Path(args.queries).read_text(encoding="utf-8")
            .splitlines() if line.strip()]
    qids, texts = [str(r["_id"]) for r in rows], [r["text"] for r in rows]
    results = index.search(texts, **kw) if texts else []
    lines = [f"{qid} Q0 {h.doc_id} {h.rank} {h.score:.6f} {args.tag}\n"
             for qid, hits in zip(qids, results, strict=True) for h in hits]
    if args.run:
        Path(args.run).write_text("".join(lines), encoding="utf-8")
        print(f"wrote {len(lines)} lines for {len(qids)} queries to {args.run}")
    else:
        sys.stdout.write("".join(lines))
    return 0


def cmd_info(args) -> int:
    from .index import SemanticIndex

    st = SemanticIndex.open(args.index).stats().to_dict()
    st["skipped"] = f"{len(st['skipped'])} rows (see manifest.json)"
    print(json.dumps(st, indent=2, ensure_ascii=False))
    return 0


def cmd_add(args) -> int:
    from .corpus import read_corpus
    from .index import SemanticIndex

    index = SemanticIndex.open(args.index)
    report = read_corpus(args.corpus, _options(args))
    _report_skipped(report.skipped, report.duplicates)
    chunks = index.upsert(report.documents, batch_size=args.batch_size)
    index.save()
    print(f"upserted {len(report.documents)} documents ({chunks} chunks); "
          f"now {len(index)} documents")
    return 0


def cmd_delete(args) -> int:
    from .index import SemanticIndex

    index = SemanticIndex.open(args.index)
    n = index.delete(args.ids)
    index.save()
    print(f"deleted {n} of {len(args.ids)} documents; now {len(index)}")
    return 0 if n == len(set(args.ids)) else EXIT_ERROR


def cmd_compact(args) -> int:
    from .index import SemanticIndex

    index = SemanticIndex.open(args.index)
    n = index.compact()
    index.save()
    print(f"compacted: dropped {n} deleted chunks")
    return 0


def cmd_eval(args) -> int:
    from metrics import evaluate_run, load_beir

    from .index import SemanticIndex

    index = SemanticIndex.open(args.index)
    _, queries, qrels = load_beir(args.beir, args.split)
    qids = list(queries)
    results = index.search([queries[q] for q in qids], k=100, mode=args.mode, fusion=args.fusion)
    run = {q: {h.doc_id: h.score for h in hits} for q, hits in zip(qids, results, strict=True)}
    scores = evaluate_run(run, qrels)
    mode = f"hybrid, {args.fusion}" if args.mode == "hybrid" else args.mode
    print(f"{args.split} ({len(qids)} queries, {mode}): "
          + "  ".join(f"{k} {v:.4f}" for k, v in scores.items()))
    return 0


def cmd_default(args) -> int:
    from .default import default_index
    from .store import MANIFEST

    if (Path(args.out) / MANIFEST).exists():
        print(f"default index present at {args.out}")
        return 0
    index = default_index(args.out, progress=_Bar())
    print(f"built the default index at {args.out}: {len(index)} BBC News articles")
    return 0


COMMANDS = {"build": cmd_build, "search": cmd_search, "info": cmd_info, "add": cmd_add,
            "delete": cmd_delete, "compact": cmd_compact, "eval": cmd_eval,
            "default": cmd_default}


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" bars are noise in a batch tool
    except ImportError:
        pass
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    args = _parser().parse_args(argv)
    if getattr(args, "threads", None):
        import torch

        torch.set_num_threads(args.threads)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, RuntimeError, KeyError) as exc:  # IndexerError is a ValueError
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return EXIT_ERROR
