"""Export an index's live documents as a JSON-lines corpus (`id`, `title`, `text` and each
metadata field), in their stored order: what `common.corpus.read_corpus` reads back, and what
`python -m training adapt --index DIR` trains on (it reads them through this command, since
`training` never imports `indexer`). The index is only read."""

from __future__ import annotations

import json
from pathlib import Path

from common import check_path
from common.atomic import write_atomic

from . import db
from .errors import IndexerError
from .index import SemanticIndex

RESERVED = ("id", "title", "text")  # a metadata field of one of these names is not exported


def export_documents(source: str | Path, out: str | Path) -> dict:
    """Write `source`'s documents to `out` (JSONL, atomically); returns what a caller needs to
    know of the index: its encoder (`name`, `load_as`), backend, document and chunk counts."""
    from .milvus import is_milvus, milvus_target

    source = milvus_target(source) or source
    src = source if is_milvus(source) else check_path(source, "index", "an index folder path")
    out = check_path(out, "--out", "a .jsonl file path")
    index = SemanticIndex.open(src)  # a missing, foreign or damaged index fails here, named
    docs = index.all_documents() if is_milvus(src) else db.all_documents(index.conn)
    count = 0
    with write_atomic(out, "w", encoding="utf-8") as fh:
        for doc in docs:
            extra = {k: v for k, v in (doc.metadata or {}).items() if k not in RESERVED}
            fh.write(json.dumps({"id": doc.id, "title": doc.title, "text": doc.text, **extra},
                                ensure_ascii=False) + "\n")
            count += 1
    if not count:
        Path(out).unlink(missing_ok=True)
        raise IndexerError(f"{src} holds no documents (all deleted?): nothing to export")
    encoder, counts = index.manifest["encoder"], index.counts()
    return {"index": str(src), "out": str(out), "documents": count, "chunks": counts["chunks"],
            "name": encoder["name"], "load_as": encoder.get("load_as", encoder["name"]),
            "backend": index.backend}
