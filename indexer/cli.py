"""The batch CLI: build | sync | rebuild | search | info | export | add | delete | compact | eval |
default | migrate.

Every command is a few lines over the library; errors print one line and exit non-zero.
Exit status: 0 done; 1 error, nothing changed; 2 bad flags (argparse); 3 partly done and saved
(`delete` with ids the index does not hold: the others are deleted, the unknown ones named).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from common import check_output_file, os_error_text
from common.corpus import skipped_lines

from .cli_args import RAY_WORKERS, corpus_options, filter_arg, knobs, listed, parse
from .cli_progress import ChunkBar, StageBar

EXIT_USAGE, EXIT_ERROR, EXIT_PARTIAL = 2, 1, 3


def _report_skipped(skipped, duplicates: int, notes=()) -> None:
    for line in skipped_lines(skipped, duplicates, notes):
        print(line, file=sys.stderr)


def _backend(st) -> str:
    from encoder.backends import fidelity_text

    if st.backend == "torch":
        return "torch"
    return f"{st.backend} (fidelity {fidelity_text(st.backend, st.fidelity)})"


def cmd_build(args) -> int:
    from common.lexical import Bm25Params

    from .build import build_index
    from .chunking import ChunkingConfig
    from .given_vectors import load_vectors_file

    vectors = None if args.vectors is None else load_vectors_file(args.vectors)
    index = build_index(
        args.corpus, args.out, model=args.model, preset=args.index,
        corpus_options=corpus_options(args), batch_size=args.batch_size, shard_size=args.shard_size,
        chunking=ChunkingConfig(args.chunk_tokens, args.overlap, not args.no_title),
        progress=StageBar(), engine=args.engine,
        workers=(args.workers or RAY_WORKERS) if args.engine == "ray" else 1,
        ray_address=args.ray_address,
        backend=args.backend, bm25=Bm25Params(args.bm25_k1, args.bm25_b), vectors=vectors,
    )
    st = index.stats()
    _report_skipped(st.skipped, st.duplicates, st.notes)
    size = f", {st.size_bytes / 1e6:.1f} MB" if st.size_bytes else ""  # Milvus: not known here
    print(f"built {args.out}: {st.documents} documents, {st.chunks} chunks, preset {st.preset} "
          f"({st.faiss_spec}), model {st.model} on {_backend(st)}{size}")
    return 0


def cmd_sync(args) -> int:
    from .chunking import ChunkingConfig
    from .sync import sync_folder

    report = sync_folder(args.folder, args.index, model=args.model, backend=args.backend,
                         preset=args.preset, chunking=ChunkingConfig(args.chunk_tokens,
                                                                     args.overlap),
                         include=args.include, exclude=args.exclude,
                         max_file_mb=args.max_file_mb, batch_size=args.batch_size,
                         progress=StageBar(), ocr=args.ocr, access=args.access)
    lines = report.lines()
    print(lines[0] + (f" (built {args.index})" if report.created else ""))
    for line in lines[1:]:
        print(line, file=sys.stderr)
    return 0


def cmd_rebuild(args) -> int:
    from .index import SemanticIndex
    from .rebuild import rebuild_index

    index = rebuild_index(args.source, args.out, model=args.model, preset=args.index,
                          chunk_tokens=args.chunk_tokens, batch_size=args.batch_size,
                          shard_size=args.shard_size, progress=StageBar(),
                          backend=args.backend)
    st, before = index.stats(), SemanticIndex.open(args.source, verify=False).stats()
    print(f"rebuilt {args.source} into {args.out}: {st.documents} documents, {st.chunks} chunks, "
          f"preset {st.preset}, model {before.model} -> {st.model} (fingerprint "
          f"{before.fingerprint[:12]} -> {st.fingerprint[:12]}), backend {before.backend} -> "
          f"{_backend(st)}, {st.size_bytes / 1e6:.1f} MB")
    return 0


def cmd_search(args) -> int:
    from .index import SemanticIndex

    if (args.query is None) == (args.queries is None):
        raise ValueError("give either a query or --queries FILE")
    filt = filter_arg(args.filter)
    if args.run:
        check_output_file(args.run, "--run")
    queries = None
    if args.queries is not None:
        from metrics import read_queries

        queries = read_queries(args.queries)
        if not queries:
            raise ValueError(f"--queries {args.queries} holds no query")
    index = SemanticIndex.open(args.index, backend=args.backend)
    kw = dict(k=args.k, mode=args.mode, fusion=args.fusion, filter=filt, per_chunk=args.per_chunk,
              **knobs(args.knob))
    if args.query is not None:
        from common.documents import citation

        hits = index.search(args.query, **kw)
        for h in hits:
            text = " ".join(h.text.split())
            where = citation(h.metadata) if "sha256" in h.metadata else h.doc_id  # a file's
            print(f"{h.rank:>3}  {h.score:.4f}  {where}  {h.title[:60]!r}  {text[:120]}")
        if not hits:  # a valid answer, but an empty screen looks like a failure
            print("no document matches" + (" (a lexical query matches words, not stop words "
                                           "or punctuation)" if args.mode == "lexical" else ""),
                  file=sys.stderr)
        return 0
    qids, texts = list(queries), list(queries.values())
    results = index.search(texts, **kw)
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
    st["notes"] = f"{len(st['notes'])} files (see manifest.json)"
    print(json.dumps(st, indent=2, ensure_ascii=False))
    return 0


def cmd_export(args) -> int:
    from .export import export_documents

    print(json.dumps(export_documents(args.index, args.out), ensure_ascii=False))
    return 0


def cmd_add(args) -> int:
    from .corpus import read_corpus
    from .index import SemanticIndex
    from .validation import check_corpus_names

    index = SemanticIndex.open(args.index, backend=args.backend)
    report = read_corpus(args.corpus, corpus_options(args))
    check_corpus_names(report.documents, args.corpus)
    _report_skipped(report.skipped, report.duplicates, report.notes)
    if not report.documents:  # as `build` does: nothing to add is an error, not a success
        raise report.unusable(args.corpus)
    ids = [d.id for d in report.documents]
    new = set(index.missing(ids))
    replaced = [i for i in ids if i not in new]
    chunks = index.upsert(report.documents, batch_size=args.batch_size, progress=ChunkBar())
    index.save()
    print(f"added {len(new)} new documents, replaced {len(replaced)} with the same id "
          f"({chunks} chunks); now {len(index)} documents")
    if replaced:
        print(f"replaced: {listed(replaced)}", file=sys.stderr)
    return 0


def cmd_delete(args) -> int:
    from .index import SemanticIndex

    index = SemanticIndex.open(args.index)
    unknown = index.missing(args.ids)
    hint = ""
    if any("," in i for i in unknown):
        hint = " (ids are separated by spaces, not commas)"
    if len(set(unknown)) == len(set(args.ids)):
        raise ValueError(f"none of the ids is in the index, nothing deleted: {listed(unknown)}"
                         + hint)
    n = index.delete(args.ids)
    index.save()
    print(f"deleted {n} documents; now {len(index)}")
    if unknown:
        print(f"not in the index (nothing to delete): {listed(unknown)}{hint}", file=sys.stderr)
        return EXIT_PARTIAL
    return 0


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
    judged = sorted({d for docs in qrels.values() for d, rel in docs.items() if rel > 0})
    absent = index.missing(judged)
    if len(absent) == len(judged):
        raise ValueError(f"none of the {len(judged)} relevant documents of {args.beir} "
                         f"[{args.split}] is in the index (e.g. {listed(absent, 3)}): was it "
                         "built from that folder's corpus.jsonl?")
    if absent:
        print(f"warning: {len(absent)} of {len(judged)} relevant documents are not in the "
              f"index (e.g. {listed(absent, 3)}); they count as not found", file=sys.stderr)
    qids = list(queries)
    results = index.search([queries[q] for q in qids], k=100, mode=args.mode, fusion=args.fusion)
    run = {q: {h.doc_id: h.score for h in hits} for q, hits in zip(qids, results, strict=True)}
    scores = evaluate_run(run, qrels)
    mode = f"hybrid, {args.fusion}" if args.mode == "hybrid" else args.mode
    print(f"{args.split} ({len(qids)} queries, {mode}): "
          + "  ".join(f"{k} {v:.4f}" for k, v in scores.items()))
    return 0


def cmd_default(args) -> int:
    from common import check_path

    from .default import default_corpus, default_index
    from .stores import locate

    corpus = default_corpus(args.lang)
    out = args.out if args.out is not None else \
        Path(os.environ.get("BERTSCOPE_INDEX_ROOT", "indexes")) / corpus.folder  # "" is refused
    if locate(check_path(out, "--out", "a folder path for the index")).exists():
        print(f"default index present at {out}")
        return 0

    def announce(what: str, docs) -> None:  # before the model loads: what the wait is for
        chars = sum(len(d.text) + len(d.title) for d in docs)
        print(f"building {out}: {what}, {chars:,} characters, each encoded by {corpus.model} on "
              "this CPU; the encode bar shows the rate and the time left", flush=True)

    index = default_index(out, lang=args.lang, progress=StageBar(), announce=announce)
    print(f"built the default index at {out}: {len(index):,} documents")
    return 0


def cmd_migrate(args) -> int:
    from tqdm import tqdm

    from .migrate import migrate

    bars: list[tqdm] = []  # opened at the first report: a refused address prints no bar

    def progress(done: int, total: int) -> None:
        if not bars:  # the first report: `done` counts documents an earlier run copied
            bars.append(tqdm(desc="migrate", unit="doc", total=total, initial=done,
                             file=sys.stderr, dynamic_ncols=True))
        bars[0].n = done
        bars[0].refresh()

    try:
        r = migrate(args.src, args.dst, batch_docs=args.batch, sample=args.sample,
                    preset=args.index, progress=progress)
    finally:
        for bar in bars:
            bar.close()
    print(f"migrated {r.src} -> {r.dst}: {r.documents:,} documents, {r.chunks:,} chunks"
          f"{f' ({r.resumed:,} copied by an earlier run)' if r.resumed else ''}, {r.seconds:.1f} s;"
          f" verified: counts, and {r.verified:,} documents' text, chunks and vectors equal")
    return 0


COMMANDS = {"build": cmd_build, "sync": cmd_sync, "rebuild": cmd_rebuild, "search": cmd_search,
            "info": cmd_info, "add": cmd_add, "delete": cmd_delete, "compact": cmd_compact,
            "eval": cmd_eval, "default": cmd_default, "migrate": cmd_migrate,
            "export": cmd_export}


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    args = parse(argv)  # before transformers: `--help` and bad flags stay quick
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" bars are noise in a batch tool
    except ImportError:
        pass
    if getattr(args, "threads", None):
        import torch

        torch.set_num_threads(args.threads)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a path that cannot be read or written: name it
        print(f"error: {os_error_text(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except (ValueError, RuntimeError, KeyError) as exc:  # IndexerError is a ValueError
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return EXIT_ERROR
