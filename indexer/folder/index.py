"""`FolderIndex`: the folder store's `SemanticIndex` (FAISS + SQLite + BM25 files in a folder,
`store/`). Open a version, search it (`search.Searcher`), change a private copy
(`changes.WorkingCopy`) and publish it as the next version with `save()`, re-applying
the changes on top when another writer published first (`writes.FolderWrites`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common.lexical import Bm25Params, LexicalIndex

from ..access import check_readers, visible
from ..documents import Document
from ..index import SemanticIndex
from ..index_encoder import check_open_args
from ..stored import StoredBatch
from ..validation import check_doc_ids, check_positive_int
from . import db, field_kinds, store
from .changes import WorkingCopy
from .columns import Columns
from .lexical_delta import next_lexical
from .search import Searcher
from .writes import FolderWrites


class FolderIndex(FolderWrites, SemanticIndex):
    """One index folder, loaded. Changes go to a private copy and become visible to others
    only through `save()`; readers never wait for writers."""

    store = "folder"

    def __init__(self, version: store.Version, encoder=None, *, verify: bool = True,
                 backend: str | None = None) -> None:
        super().__init__(version.manifest, encoder, backend)
        self._version = version
        self._verify = verify
        self._work: WorkingCopy | None = None
        self._lexical = version.lexical  # None: rebuilt from the store when next needed
        self._search: Searcher | None = None
        self._values: dict[tuple[str, int], list | None] = {}  # field_values of the version

    @classmethod
    def open_folder(cls, path: str | Path, *, encoder=None, verify: bool = True,
                    backend: str | None = None) -> FolderIndex:
        """The index in folder `path` (see `SemanticIndex.open`)."""
        index = cls(store.open_version(path, verify=verify), verify=verify,
                    backend=check_open_args(encoder, backend))
        index._check_encoder(encoder)
        return index

    # -- parts -------------------------------------------------------------------------------
    @property
    def location(self) -> Path:
        return self._version.folder

    @property
    def manifest(self) -> dict:
        return self._version.manifest

    @property
    def vectors(self) -> store.VectorSegments:
        return self._work.vectors if self._work else self._version.vectors

    @property
    def conn(self) -> sqlite3.Connection:
        return self._work.conn if self._work else self._version.conn

    @property
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            self._lexical = next_lexical(self._version, self._work, Bm25Params.of(self.manifest))
        return self._lexical

    # -- reading -----------------------------------------------------------------------------
    def counts(self, *, readers: Iterable[str] | None = None) -> dict[str, int]:
        every = row_counts(self.manifest, self.conn, working=self._work is not None)
        readers = check_readers(readers)
        if readers is None:
            return every
        columns = self._columns()
        if columns is not None and columns.access is not None:
            mask = columns.visible(readers)
            if mask is None:  # no document restricted
                return every
            return {"documents": int(np.count_nonzero(mask & columns.first)),
                    "chunks": int(np.count_nonzero(mask)), "tombstones": every["tombstones"]}
        return {**db.visible_counts(self.conn, readers), "tombstones": every["tombstones"]}

    def storage(self) -> tuple[str, str]:
        size = sum(e["bytes"] for e in self.manifest["files"].values())  # the current version
        return "Size on disk", f"{size / 2**20:,.1f} MB"

    def documents(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                  ) -> dict[str, Document]:
        readers = check_readers(readers)
        found = db.documents(self.conn, list(dict.fromkeys(check_doc_ids(doc_ids))))
        return {i: d for i, d in found.items() if visible(d.metadata, readers)}

    def missing(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                ) -> list[str]:
        ids = check_doc_ids(doc_ids)
        readers = check_readers(readers)
        found = set(db.existing_ids(self.conn, ids)) if readers is None else \
            db.visible_ids(self.conn, ids, readers)
        return [d for d in ids if d not in found]

    def doc_ids(self) -> list[str]:
        """Every document's id, in the order they were stored."""
        return db.all_doc_ids(self.conn)

    def all_documents(self, batch: int = 1000):
        """Every document, in the order they were stored, read `batch` rows at a time."""
        yield from db.all_documents(self.conn, check_positive_int(batch, "batch"))

    def all_metadata(self, batch: int = 1000):
        """(id, metadata) of every document, in stored order; no text is read."""
        yield from db.all_metadata(self.conn, check_positive_int(batch, "batch"))

    def stored(self, doc_ids: Sequence[str], *, vectors: bool = True) -> StoredBatch:
        ids = list(dict.fromkeys(check_doc_ids(doc_ids)))
        docs = db.documents(self.conn, ids)
        ids = [d for d in ids if d in docs]
        order = {d: i for i, d in enumerate(ids)}
        rows = sorted(db.chunks_of(self.conn, ids), key=lambda r: (order[r[1]], r[2]))
        dim = self.manifest["dim"] if vectors else 0
        found = self.vectors.reconstruct_batch(np.array([r[0] for r in rows], np.int64)
                                               ).astype(np.float32) if rows and vectors else \
            np.empty((len(rows), dim), np.float32)
        return StoredBatch([docs[d] for d in ids], [tuple(r[1:]) for r in rows], found)

    def _chunk_spans(self, doc_id: str) -> list[tuple[int, int, int]]:
        rows = db.chunks_of(self.conn, [doc_id])
        return [(int(r[0]), int(r[3]), int(r[4])) for r in sorted(rows, key=lambda r: r[2])]

    def _searcher(self) -> Searcher:
        if self._search is None:
            tombstones = self._work.tombstones() if self._work else \
                np.asarray(db.tombstones(self.conn), dtype=np.int64)
            tombstones = np.union1d(tombstones, self.vectors.hidden)  # removed from the base
            self._search = Searcher(self.vectors, self.conn, self.spec, tombstones,
                                    lambda: self.lexical, self._encode_queries,
                                    self.field_types, self.counts, self._columns)
        return self._search

    def _columns(self) -> Columns | None:
        """The published version's filter index (built here once for a version written before
        it had one); None while there are unsaved changes (SQLite matches them). One saved
        before access existed has no `access` column: reads with readers go to SQLite."""
        if self._work is not None:
            return None
        if self._version.columns is None:
            self._version.columns = Columns.build(self.conn, self.field_types())
        return self._version.columns

    def field_types(self) -> dict[str, str]:
        if self._work:
            return field_kinds.kinds_of(self._work.counts)
        return dict(self.manifest["metadata_fields"])

    def _field_values(self, name: str, limit: int, readers: frozenset[str] | None
                      ) -> list[Any] | None:
        key = (name, limit)
        columns = self._columns()
        if columns is not None and name in columns.fields and \
                (readers is None or columns.access is not None):
            seen = columns.visible(readers)
            return columns.fields[name].distinct(columns.live if seen is None else seen, limit)
        if self._work or readers is not None:
            return db.field_values(self.conn, name, limit, readers)
        if key not in self._values:  # a published version never changes: keep its values
            self._values[key] = db.field_values(self.conn, name, limit)
        values = self._values[key]
        return list(values) if values is not None else None


def row_counts(manifest: dict, conn, *, working: bool) -> dict[str, int]:
    """Rows per table. A published version is immutable and its manifest carries its counts, so
    searches need not `count(*)` over SQLite (what that costs at 1M rows:
    bench/results/search_latency.md); a working copy, or a manifest without them, is counted."""
    published = manifest.get("counts") or {}
    if not working and {"documents", "chunks", "tombstones"} <= published.keys():
        return dict(published)
    return db.counts(conn)
