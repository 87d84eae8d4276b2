"""Re-index an index's documents with another encoder: the same documents, metadata, chunking
settings, source and skipped-row report, encoded anew into another folder through `build_index`
(so with its progress, resumable shards and atomic publication). The source is only read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from common import check_path
from common.lexical import Bm25Params

from . import db, store
from .build import SHARD_SIZE, BuildProgress, build_index
from .chunking import ChunkingConfig
from .corpus import CorpusReport
from .documents import SkippedRow
from .errors import IndexerError
from .index import SemanticIndex
from .index_encoder import check_backend_arg
from .validation import check_build_args


def rebuild_index(
    source: str | Path,
    out: str | Path,
    *,
    model,
    preset: str | None = None,
    chunk_tokens: int | None = None,
    batch_size: int = 32,
    shard_size: int = SHARD_SIZE,
    progress: Callable[[BuildProgress], None] | None = None,
    backend: str | None = None,
) -> SemanticIndex:
    """Build at `out` an index of `source`'s documents encoded by `model` (an `Encoder`, or a
    name / folder for `load_encoder`); returns it opened.

    Kept from `source`: documents (ids, titles, texts, metadata, in their stored order), the
    chunking settings, BM25's k1 and b, its `source` description, rows, duplicates and skipped
    rows, and its preset unless `preset` is given. `chunk_tokens` replaces the chunk size only
    (needed when the source's exceeds the new model's window). `backend` runs a `model` given by
    name (default: the backend that made the source's vectors; `auto` or a name of
    `encoder.BACKENDS`).
    Interrupted, the same call resumes from the shards already encoded, like `build_index`.
    """
    from encoder import AUTO, Encoder, load_encoder

    from .milvus import is_milvus, milvus_target, parse_address

    source = milvus_target(source) or source  # a NAME.milvus pointer: the index it names
    src = source if is_milvus(source) else check_path(source, "source index",
                                                      "an index folder path")
    out = out if is_milvus(out) else check_path(out, "out", "a folder path for the new index")
    old = SemanticIndex.open(src)  # a missing, foreign or damaged index fails here, named
    if is_milvus(out):
        if is_milvus(src) and parse_address(src) == parse_address(out):
            raise IndexerError(f"--out {out} is the source index itself: re-index into "
                               "another collection")
    elif not is_milvus(src):
        _check_apart(src, out)
    if not is_milvus(out):
        store.check_target(out)  # before the model loads: a bad --out fails at once
    manifest = old.manifest
    check_build_args(preset or manifest["preset"], batch_size, shard_size, progress)
    backend = check_backend_arg(backend)
    docs = list(old.all_documents() if is_milvus(src) else db.all_documents(old.conn))
    if not docs:
        raise IndexerError(f"{src} holds no documents (all deleted?): there is nothing to "
                           "re-index")
    given = isinstance(model, Encoder)  # runs on its own backend (build_index checks `backend`)
    enc = model if given else load_encoder(model, backend=backend or old.backend)
    chunking = ChunkingConfig(**manifest["chunking"])
    if chunk_tokens is not None:
        chunking = ChunkingConfig(chunk_tokens, chunking.overlap, chunking.title_in_chunk)
    elif chunking.chunk_tokens is not None and chunking.chunk_tokens > enc.max_length:
        raise IndexerError(
            f"{src} was chunked at {chunking.chunk_tokens} tokens, more than {enc.name} reads "
            f"({enc.max_length}): give chunk_tokens <= {enc.max_length} (--chunk-tokens)")
    report = CorpusReport(documents=docs, skipped=[SkippedRow(**s) for s in manifest["skipped"]],
                          duplicates=manifest["duplicates"], rows=manifest["rows"])
    return build_index(report, out, model=enc, preset=preset or manifest["preset"],
                       chunking=chunking, batch_size=batch_size, shard_size=shard_size,
                       progress=progress, source=manifest["source"],
                       backend=(backend or AUTO) if given else AUTO,
                       bm25=Bm25Params.of(manifest))


def _check_apart(src: Path, out: Path) -> None:
    """The new index goes beside the source, never over it or inside it."""
    a, b = src.resolve(), out.resolve()
    if a == b:
        raise IndexerError(f"--out {out} is the source index itself; give another folder (the "
                           "source stays as it is, to compare against)")
    if a in b.parents:
        raise IndexerError(f"--out {out} lies inside the source index {src}; give a folder "
                           "outside it")
