"""Copy an index from one store to another, as stored: `migrate(src, dst)`, each a folder or a
`milvus://` address (a folder to Milvus and back, or a copy within one kind). What is copied is
what was stored (documents, chunk spans, BM25 tokens, the vectors themselves, the manifest's
encoder and settings): nothing is re-encoded, so no model is loaded. Documents go over in
batches, in a fixed order; a run that dies is resumed by running it again (how each store
resumes and publishes: `IndexLocation.copy_in`).

The copy is verified: counts, then a sample of documents (text, title, metadata, chunk spans,
BM25 tokens, vectors bit for bit) read back from both sides. Into Milvus before the copy replaces
the target; into a folder right after it is published (a mismatch raises; the previous version
stays on disk beside it until the next write)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import MigrationError
from .index import SemanticIndex
from .location import StoredReader
from .stores import locate

BATCH_DOCS = 256
SAMPLE = 200  # documents compared end to end after the copy
Progress = Callable[[int, int], None]  # (documents copied, documents in all)


@dataclass
class MigrationReport:
    src: str
    dst: str
    documents: int
    chunks: int
    resumed: int  # documents found already copied by an earlier run
    verified: int  # documents compared end to end
    seconds: float


def migrate(src: str | Path, dst: str | Path, *, batch_docs: int = BATCH_DOCS,
            sample: int = SAMPLE, preset: str | None = None,
            progress: Progress | None = None) -> MigrationReport:
    """Copy the index at `src` to `dst` (folders and `milvus://` addresses, either store),
    resuming an earlier run that stopped, and verify the copy. `preset`: the target's vector
    index (default: the source's where the target has it, else "auto")."""
    clock = time.perf_counter()
    if isinstance(batch_docs, bool) or not isinstance(batch_docs, int) or batch_docs < 1:
        raise ValueError(f"batch_docs must be a positive integer, got {batch_docs!r}")
    where_from, where_to = locate(src, role="src"), locate(dst, role="dst")
    where_to.check_apart(where_from, "migrate")
    source = where_from.open()
    try:
        ids = source.doc_ids()
        copy, resumed, verified = where_to.copy_in(
            source, ids, batch_docs, preset, progress or (lambda d, n: None),
            _identity(source), lambda target: _verify(source, target, ids, sample))
        chunks = copy.counts()["chunks"]
        copy.close()
    finally:
        source.close()
    return MigrationReport(str(where_from), str(where_to), len(ids), chunks, resumed, verified,
                           round(time.perf_counter() - clock, 3))


def _identity(source: SemanticIndex) -> str:
    """What an interrupted copy must match to be resumed: the same source, at the same state."""
    m = source.manifest
    counts = source.counts()
    return json.dumps({"source": str(source.location), "version": m.get("version"),
                       "updated_at": m.get("updated_at"),
                       "counts": {"documents": counts["documents"], "chunks": counts["chunks"]}},
                      sort_keys=True)


def _verify(src: SemanticIndex, dst: StoredReader, ids: list[str], sample: int) -> int:
    """Counts equal, and `sample` documents (seeded; the first and last always) equal on both
    sides; returns how many were compared. Raises `MigrationError` naming the first difference."""
    name = getattr(dst, "location", "the copy")
    have, want = ({k: c[k] for k in ("documents", "chunks")} for c in (dst.counts(), src.counts()))
    if have != want:
        raise MigrationError(f"{name} holds {have} after the copy; {src.location} holds {want}")
    picks = sorted(set(random.Random(0).sample(range(len(ids)), min(sample, len(ids))))
                   | ({0, len(ids) - 1} if ids else set()))
    chosen = [ids[i] for i in picks]
    for at in range(0, len(chosen), BATCH_DOCS):
        part = chosen[at:at + BATCH_DOCS]
        a, b = src.stored(part), dst.stored(part)
        for x, y in zip(a.docs, b.docs, strict=True):
            if (x.id, x.title, x.text, x.metadata) != (y.id, y.title, y.text, y.metadata):
                raise MigrationError(f"document {x.id!r} differs in {name} from {src.location}")
        if a.chunks != b.chunks:
            raise MigrationError(f"the chunks of documents {part[0]!r}... differ in {name}")
        if not np.array_equal(a.vectors, b.vectors):
            raise MigrationError(f"the vectors of documents {part[0]!r}... differ in {name}")
    return len(chosen)


__all__ = ["BATCH_DOCS", "MigrationError", "MigrationReport", "migrate"]
