"""Re-index an index's documents with another encoder: the same documents, metadata, chunking
(the very chunk spans, unless `chunk_tokens` asks for new ones), source and skipped-row report,
encoded anew into another place (a folder or Milvus) through `build_index` (so with its
progress, resumable shards and atomic publication). The source is only read."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from common.lexical import Bm25Params

from .build import SHARD_SIZE, BuildProgress, build_index
from .chunking import ChunkingConfig
from .corpus import CorpusReport
from .documents import SkippedRow
from .errors import IndexerError
from .index import SemanticIndex
from .index_encoder import check_backend_arg
from .stores import locate
from .validation import check_build_args

log = logging.getLogger("bertscope.indexer")
SPANS_BATCH = 1000  # documents whose chunk spans are read at a time


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

    Kept from `source`: documents (ids, titles, texts, metadata, in their stored order), their
    chunks (the same chunk numbers and character spans, so the two indexes compare chunk for
    chunk; a chunk longer than the new model reads is kept whole and counted in the log and the
    manifest's `build`), the chunking settings, BM25's k1 and b, its `source` description, rows,
    duplicates and skipped rows, and its preset unless `preset` is given. `chunk_tokens`
    re-chunks every document at that size instead. `backend` runs a `model` given by name
    (default: the backend that made the source's vectors; `auto` or a name of
    `encoder.BACKENDS`). Interrupted, the same call resumes from the shards already encoded,
    like `build_index`.
    """
    from encoder import AUTO, Encoder, load_encoder

    src, dst = locate(source, role="source index"), locate(out, role="out")
    old = src.open()  # a missing, foreign or damaged index fails here, named
    dst.check_apart(src, "re-indexing")
    manifest = old.manifest
    check_build_args(preset or manifest["preset"], batch_size, shard_size, progress)
    backend = check_backend_arg(backend)
    if chunk_tokens is not None:
        ChunkingConfig(chunk_tokens)  # a bad size fails before anything is read
    dst.build_target(preset or manifest["preset"])  # a bad --out too, before the model loads
    docs = list(old.all_documents())
    if not docs:
        raise IndexerError(f"{src} holds no documents (all deleted?): there is nothing to "
                           "re-index")
    spans = None if chunk_tokens is not None else _spans(old, [d.id for d in docs])
    old.close()
    given = isinstance(model, Encoder)  # runs on its own backend (build_index checks `backend`)
    enc = model if given else load_encoder(model, backend=backend or old.backend)
    chunking = ChunkingConfig(**manifest["chunking"])
    size = chunk_tokens if chunk_tokens is not None else chunking.chunk_tokens
    if size is not None and size > enc.max_length:
        if chunk_tokens is not None:
            raise IndexerError(f"chunk_tokens={chunk_tokens} is more than {enc.name} reads "
                               f"({enc.max_length}): give chunk_tokens <= {enc.max_length}")
        size = enc.max_length  # documents added later are chunked to what the model reads
    chunking = ChunkingConfig(size, chunking.overlap, chunking.title_in_chunk)
    report = CorpusReport(documents=docs, skipped=[SkippedRow(**s) for s in manifest["skipped"]],
                          duplicates=manifest["duplicates"], rows=manifest["rows"],
                          notes=[SkippedRow(**s) for s in manifest.get("notes", [])])
    return build_index(report, out, model=enc, preset=preset or manifest["preset"],
                       chunking=chunking, batch_size=batch_size, shard_size=shard_size,
                       progress=progress, source=manifest["source"],
                       backend=(backend or AUTO) if given else AUTO,
                       bm25=Bm25Params.of(manifest), spans=spans)


def _spans(index: SemanticIndex, ids: list[str]) -> dict[str, list[tuple[int, int]]]:
    """{doc_id: [(start, end), ...]}: the chunking of every document of `index`."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for at in range(0, len(ids), SPANS_BATCH):
        spans.update(index.stored(ids[at:at + SPANS_BATCH], vectors=False).spans())
    return spans
