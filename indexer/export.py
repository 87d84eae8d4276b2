"""Export an index's live documents as a JSON-lines corpus (`id`, `title`, `text` and each
metadata field), in their stored order: what `common.corpus.read_corpus` reads back, and what
`python -m training adapt --index DIR` trains on (it reads them through this command, since
`training` never imports `indexer`). The index (a folder or Milvus: the contract) is only read."""

from __future__ import annotations

import json
from pathlib import Path

from common import check_path
from common.atomic import write_atomic

from .errors import IndexerError
from .stores import locate

RESERVED = ("id", "title", "text")  # a metadata field of one of these names is not exported


def export_documents(source: str | Path, out: str | Path) -> dict:
    """Write `source`'s documents to `out` (JSONL, atomically); returns what a caller needs to
    know of the index: its encoder (`name`, `load_as`), backend, document and chunk counts."""
    src = locate(source, role="index")
    out = check_path(out, "--out", "a .jsonl file path")
    src.check_outside(out)
    index = src.open()  # a missing, foreign or damaged index fails here, named
    try:
        count = 0
        with write_atomic(out, "w", encoding="utf-8") as fh:
            for doc in index.all_documents():
                extra = {k: v for k, v in (doc.metadata or {}).items() if k not in RESERVED}
                fh.write(json.dumps({"id": doc.id, "title": doc.title, "text": doc.text,
                                     **extra}, ensure_ascii=False) + "\n")
                count += 1
        if not count:
            Path(out).unlink(missing_ok=True)
            raise IndexerError(f"{src} holds no documents (all deleted?): nothing to export")
        encoder, counts = index.manifest["encoder"], index.counts()
        return {"index": str(src), "out": str(out), "documents": count,
                "chunks": counts["chunks"], "name": encoder["name"],
                "load_as": encoder.get("load_as", encoder["name"]), "backend": index.backend}
    finally:
        index.close()
