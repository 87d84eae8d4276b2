"""`SemanticIndex`: the facade over one index folder. Open a version (`store`), search it
(`search.Searcher`), change a private copy (`changes.WorkingCopy`) and publish it as the next
version with `save()`, re-applying the changes on top when another writer published first."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from common.lexical import Bm25Params, LexicalIndex

from . import db, store
from .changes import WorkingCopy
from .chunking import ChunkingConfig, chunk_input
from .documents import Document, Hit
from .filters import unknown_field
from .fusion import DEFAULT_FUSION, RRF_K
from .index_encoder import check_fits, check_open_args, index_backend, load_index_encoder
from .index_writes import IndexWrites
from .presets import Spec
from .search import MODES, Searcher
from .stats import IndexStats, row_counts, stats_of
from .validation import (
    check_doc_id,
    check_doc_ids,
    check_positive_int,
)

__all__ = ["MODES", "SemanticIndex", "open_index"]


class SemanticIndex(IndexWrites):
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
        checksum (sizes are always checked). A `milvus://` address opens a `MilvusIndex`
        (indexer.milvus), the same API on a Milvus collection; so does a `NAME.milvus` file
        holding such an address."""
        from .milvus.address import milvus_target

        if target := milvus_target(path):
            from .milvus import MilvusIndex

            return MilvusIndex.open(target, encoder=encoder, verify=verify, backend=backend)
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
            self._lexical = LexicalIndex.build(*db.lexical_rows(self.conn),
                                               Bm25Params.of(self.manifest))
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

    def doc_ids(self) -> list[str]:
        """Every document's id, sorted."""
        return db.doc_ids(self.conn)

    def all_documents(self, batch: int = 1000) -> Iterator[Document]:
        """Every document, in the order they were stored, read `batch` at a time."""
        return db.all_documents(self.conn, batch)

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
                steps: int = 16, progress: Callable[[int, int], None] | None = None):
        """Why `hit` matched `query`: the index's encoder explains the query against the hit's
        chunk as it was encoded (title included where the index puts it), with the query and
        passage prompts → `encoder.Explanation`: its `backend_score` is the hit's dense cosine
        (the index's backend), its `score` the torch fp32 cosine the attributions explain.
        `progress(done, total)`: see `encoder.explain.explain` (raise in it to cancel)."""
        return self.encoder.explain(query, self._passage(hit), method=method, steps=steps,
                                    prompt_a="query", prompt_b="passage", progress=progress)

    def explain_work(self, query: str, hit: Hit, steps: int = 16) -> int:
        """The Jacobian-vector products `explain(query, hit, steps=steps)` takes (checked as it
        would be, nothing computed): what a caller's time estimate scales with."""
        from encoder.explain import work_units

        return work_units(self.encoder, query, self._passage(hit), steps=steps,
                          prompt_a="query", prompt_b="passage")

    def _passage(self, hit: Hit) -> str:
        if not isinstance(hit, Hit):
            raise TypeError(f"hit must be a Hit from this index's search, got {type(hit).__name__}")
        return chunk_input(self.encoder, hit.title, hit.text,
                           ChunkingConfig(**self.manifest["chunking"]))

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

    def __repr__(self) -> str:
        m = self.manifest
        return (f"SemanticIndex({str(self.folder)!r}, documents={m['counts']['documents']}, "
                f"model={m['encoder']['name']!r}, preset={m['preset']!r})")


def open_index(target: str | Path, **kwargs):
    """The index at `target`: a `SemanticIndex` for a folder, a `MilvusIndex` for a `milvus://`
    address; `kwargs` as `SemanticIndex.open` takes them."""
    return SemanticIndex.open(target, **kwargs)
