"""`SemanticIndex`: the facade over one index folder. Open a version (`store`), search it
(`search.Searcher`), change a private copy (`changes.WorkingCopy`) and publish it as the next
version with `save()`, re-applying the changes on top when another writer published first."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from . import db, store
from .changes import WorkingCopy
from .chunking import ChunkingConfig, chunk_documents, chunk_input
from .documents import Document, Hit
from .embedding import embed_passages
from .errors import ConcurrentWriteError
from .filters import unknown_field
from .fusion import DEFAULT_FUSION, RRF_K
from .index_encoder import check_fits, check_open_args, index_backend, load_index_encoder
from .lexical import LexicalIndex
from .presets import Spec
from .search import MODES, Searcher
from .stats import IndexStats, row_counts, stats_of
from .validation import (
    check_doc_id,
    check_doc_ids,
    check_documents,
    check_positive_int,
)

__all__ = ["MODES", "SemanticIndex"]
REBASES = 5  # how often a save re-applies its changes over other writers' before it gives up


class SemanticIndex:
    """One index folder, loaded. Changes go to a private copy and become visible to others
    only through `save()`; readers never wait for writers."""

    def __init__(self, version: store.Version, encoder=None, *, verify: bool = True,
                 backend: str | None = None) -> None:
        self._version = version
        self._encoder = encoder
        self._backend = backend  # None: the index's own (see `encoder`)
        self._verify = verify
        self._work: WorkingCopy | None = None
        self._lexical = version.lexical  # None: rebuilt from the store when next needed
        self._searcher: Searcher | None = None
        self._values: dict[tuple[str, int], list | None] = {}  # field_values of the version
        self.spec = Spec(version.manifest["preset"], version.manifest["faiss_spec"],
                         version.manifest["knobs"])

    @classmethod
    def open(cls, path: str | Path, *, encoder=None, verify: bool = True,
             backend: str | None = None) -> SemanticIndex:
        """Open the index at `path`. An `encoder` given is checked against the index's (the
        same weights; a backend within the fidelity gate of the one that made the vectors);
        without it, that model is loaded on the first dense search, on `backend` (default: the
        index's own; `auto` or a name of `encoder.BACKENDS`). `verify` checks every file's
        checksum (sizes are always checked)."""
        index = cls(store.open_version(path, verify=verify), verify=verify,
                    backend=check_open_args(encoder, backend))
        index_backend(index.manifest, index.folder)  # a damaged backend entry fails here
        if encoder is not None:
            check_fits(index.manifest, index.folder, encoder)
            index._encoder = encoder
        return index

    # -- parts -------------------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return self._version.folder

    @property
    def manifest(self) -> dict:
        return self._version.manifest

    @property
    def vectors(self) -> faiss.Index:
        return self._work.vectors if self._work else self._version.vectors

    @property
    def conn(self) -> sqlite3.Connection:
        return self._work.conn if self._work else self._version.conn

    @property
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            self._lexical = LexicalIndex.build(*db.lexical_rows(self.conn))
        return self._lexical

    @property
    def encoder(self):
        """The encoder given to `open`, else the index's model loaded on the index's backend
        (or `open`'s `backend`), checked to fit."""
        if self._encoder is None:
            self._encoder = load_index_encoder(self.manifest, self.folder, self._backend)
        return self._encoder

    @property
    def backend(self) -> str:
        """The backend that made this index's vectors (`torch` for indexes that predate them)."""
        return index_backend(self.manifest, self.folder)

    # -- reading -----------------------------------------------------------------------------
    @property
    def knobs(self) -> dict[str, int]:
        """Search knobs this index's preset takes, with their defaults."""
        return dict(self.spec.knobs)

    def stats(self) -> IndexStats:
        return stats_of(str(self.folder), self.manifest, self.counts(), self.knobs)

    def counts(self) -> dict[str, int]:
        return row_counts(self.manifest, self.conn, working=self._work is not None)

    def __len__(self) -> int:
        return self.counts()["documents"]

    def document(self, doc_id: str) -> Document:
        doc_id = check_doc_id(doc_id, "doc_id")
        doc = db.documents(self.conn, [doc_id]).get(doc_id)
        if doc is None:
            raise KeyError(f"no document {doc_id!r} in {self.folder}")
        return doc

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        """{doc_id: Document} for every id present, in one query (e.g. the documents of hits)."""
        return db.documents(self.conn, list(dict.fromkeys(check_doc_ids(doc_ids))))

    def missing(self, doc_ids: Sequence[str]) -> list[str]:
        """The ids among `doc_ids` that are not in the index, in the order given."""
        ids = check_doc_ids(doc_ids)
        found = set(db.existing_ids(self.conn, ids))
        return [d for d in ids if d not in found]

    def search(
        self,
        queries: str | Sequence[str],
        k: int = 10,
        *,
        mode: str = "dense",
        filter: dict[str, Any] | None = None,  # noqa: A002 - the documented name
        per_chunk: bool = False,
        rrf_k: int = RRF_K,
        weights: tuple[float, float] | None = None,
        fusion: str = DEFAULT_FUSION,
        **knobs: int,
    ) -> list[Hit] | list[list[Hit]]:
        """Top-`k` hits for one query (→ list[Hit]) or many (→ one list per query, one batch).

        Hits are per document (its best chunk) unless `per_chunk`. `mode`: dense (FAISS),
        lexical (BM25) or hybrid: both fused by `fusion` ("rrf": reciprocal ranks, `rrf_k`;
        "minmax" / "zscore": convex combination of per-query normalised scores), `weights` =
        (dense, lexical), None for the fusion's default (`indexer.fusion.DEFAULT_WEIGHTS`).
        `filter` restricts to documents whose metadata match. `knobs`: nprobe / efSearch /
        rerank where the preset takes them (see `knobs`).
        """
        return self._search().search(queries, k, mode=mode, filter=filter, per_chunk=per_chunk,
                                     rrf_k=rrf_k, weights=weights, knobs=knobs,
                                     fusion=fusion)

    def query_too_long(self, query: str) -> bool:
        """True when dense search would see only the start of `query` (beyond the encoder's
        `max_length` tokens)."""
        enc = self.encoder
        return enc.token_lengths([query], prompt="query")[0] > enc.max_length

    def explain(self, query: str, hit: Hit, *, method: str = "integrated-jacobians",
                steps: int = 16):
        """Why `hit` matched `query`: the index's encoder explains the query against the hit's
        chunk as it was encoded (title included where the index puts it), with the query and
        passage prompts → `encoder.Explanation`; its `score` is the hit's dense cosine."""
        if not isinstance(hit, Hit):
            raise TypeError(f"hit must be a Hit from this index's search, got {type(hit).__name__}")
        passage = chunk_input(self.encoder, hit.title, hit.text,
                              ChunkingConfig(**self.manifest["chunking"]))
        return self.encoder.explain(query, passage, method=method, steps=steps,
                                    prompt_a="query", prompt_b="passage")

    def _search(self) -> Searcher:
        if self._searcher is None:
            tombstones = self._work.tombstones() if self._work else \
                np.asarray(db.tombstones(self.conn), dtype=np.int64)
            self._searcher = Searcher(
                self.vectors, self.conn, self.spec, tombstones, lambda: self.lexical,
                lambda texts: self.encoder.encode(texts, prompt="query"), self.field_types,
                self.counts)
        return self._searcher

    def field_types(self) -> dict[str, str]:
        return db.field_types(self.conn) if self._work else dict(self.manifest["metadata_fields"])

    def field_values(self, name: str, limit: int = 50) -> list[Any] | None:
        """The distinct values of metadata field `name` among live documents, sorted (True/False
        for a bool field); None when there are more than `limit`. Raises `QueryError` for a field
        the index does not have."""
        types = self.field_types()
        limit = check_positive_int(limit, "limit")
        if not isinstance(name, str) or name not in types:
            raise unknown_field(name, types)
        key = (name, limit)
        if self._work or key not in self._values:
            values = db.field_values(self.conn, name, limit)
            if values is not None and types[name] == "bool":
                values = [bool(v) for v in values]
            if self._work:
                return values
            self._values[key] = values  # a published version never changes: keep its values
        values = self._values[key]
        return list(values) if values is not None else None

    # -- changing ----------------------------------------------------------------------------
    def _writable(self) -> WorkingCopy:
        """Copy-on-write: the first change copies the published store into a private file."""
        if self._work is None:
            self._work = WorkingCopy(self.folder, self._version.conn, self._version.vectors,
                                     self.spec, self.manifest["dim"])
            self._values.clear()  # values kept from the published version no longer hold
        self._changed()
        return self._work

    def _changed(self) -> None:
        self._searcher = None
        self._lexical = None

    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None) -> int:
        """Add new documents (ids must be new: use `upsert` to replace). Returns chunks added.
        `progress(chunks embedded, chunks in all)` is called every few batches."""
        docs = check_documents(documents, batch_size)
        if len({d.id for d in docs}) != len(docs):
            raise ValueError("duplicate ids among the documents to add")
        taken = db.existing_ids(self.conn, [d.id for d in docs])
        if taken:
            raise ValueError(f"{len(taken)} document ids already exist (e.g. {taken[0]!r}): "
                             "use upsert() to replace them")
        return self._insert("add", docs, batch_size, progress)

    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None) -> int:
        """Add documents, replacing any with the same id (the last of duplicates wins)."""
        docs = list({d.id: d for d in check_documents(documents, batch_size)}.values())
        return self._insert("upsert", docs, batch_size, progress)

    def _insert(self, how: str, docs: list[Document], batch_size: int, progress) -> int:
        """Chunk and encode `docs` (before any change), then `add` or `upsert` them."""
        if not docs:
            return 0
        chunks = chunk_documents(self.encoder, docs, ChunkingConfig(**self.manifest["chunking"]))
        vectors = embed_passages(self.encoder, [c.encoded for c in chunks], batch_size,
                                 progress and (lambda n: progress(n, len(chunks))))
        return getattr(self._writable(), how)(docs, chunks, vectors)

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents by id (a list); unknown ids are ignored. Returns documents deleted:
        `missing(ids)` names those not in the index."""
        doc_ids = check_doc_ids(doc_ids)
        if not db.existing_ids(self.conn, doc_ids):
            return 0
        return len(self._writable().delete(doc_ids))

    def compact(self) -> int:
        """Rebuild the FAISS index from live vectors, dropping tombstones. Returns those dropped."""
        if self._work is None and not db.tombstones(self.conn):
            return 0
        return self._writable().compact()

    def save(self) -> None:
        """Publish the changes as the next version (atomic: readers see old or new, whole).

        When another writer published since this index was opened, the changes are made again
        on top of that version (a document `add`ed by both is a `ConcurrentWriteError`)."""
        if self._work is None:
            return
        for _ in range(REBASES):
            try:
                return self._publish()
            except store.StaleBase:
                self._rebase()
        raise ConcurrentWriteError(f"other writers kept publishing {self.folder} while this one "
                                   f"re-applied its changes {REBASES} times; try again")

    def _publish(self) -> None:
        work = self._work
        lexical = self.lexical
        fields = {**self.manifest, "counts": db.counts(work.conn),
                  "metadata_fields": db.field_types(work.conn)}
        self._searcher = None  # it holds the connection `stage` closes
        work.stage(lexical)
        manifest, token = store.publish(self.folder, work.staging, fields, self._version.token)
        sqlite = self.folder / manifest["files"]["sqlite"]["path"]
        self._version = store.Version(self.folder, manifest, token, work.vectors,
                                      db.open_readonly(sqlite), lexical)
        self._work = None

    def _rebase(self) -> None:
        """Adopt the folder's current version and make this index's changes again on it."""
        fresh = SemanticIndex.open(self.folder, encoder=self._encoder, verify=self._verify,
                                   backend=None if self._encoder else self._backend)
        work = fresh._writable()
        try:
            self._work.replay(work)
        except BaseException:
            work.discard()
            raise
        self._work.discard()
        self._version, self._work, self._values = fresh._version, work, {}
        self._changed()

    def __repr__(self) -> str:
        m = self.manifest
        return (f"SemanticIndex({str(self.folder)!r}, documents={m['counts']['documents']}, "
                f"model={m['encoder']['name']!r}, preset={m['preset']!r})")
