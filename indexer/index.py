"""`SemanticIndex`: the one index contract. Two stores implement it side by side, the folder
store (`indexer.folder.FolderIndex`: FAISS + SQLite + BM25 files, versions published atomically)
and Milvus (`indexer.milvus.MilvusIndex`: milvus-lite in a `.db` file, or a server); callers
hold a `SemanticIndex` and never ask which store it is.

    SemanticIndex.open(target)  # a folder, a `milvus://` address, or a `NAME.milvus` pointer
                                # (opened through the door, `indexer.stores`)
    index.search(...) / explain(...) / query_too_long(q)
    index.document(id) / documents(ids) / missing(ids) / doc_ids() / all_documents()
    readers=[...] on every read a caller sees (search, document(s), missing, counts,
        field_values, chunk_spans, explain): only documents whose `access` is absent or names
        a reader exist (`indexer.access`); None (the default) reads without restriction
    index.stored(ids) -> StoredBatch   # documents, chunk rows and vectors exactly as stored
    index.chunk_spans(id)              # [(chunk_id, start, end)]: where each chunk lies
    index.add(docs) / upsert(docs) / delete(ids) / compact() / save() / close()
    index.stats() / counts() / manifest / encoder / backend / knobs / location / store

What is shared (the encoder an index needs, explanations, stats) is written here once; each
store writes what it stores differently."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .access import check_readers
from .chunking import Chunk, ChunkingConfig, chunk_documents, whole_document_chunks
from .documents import Document, Hit
from .embedding import embed_passages
from .filters import unknown_field
from .fusion import DEFAULT_FUSION, RRF_K
from .given_vectors import check_vectors, unit_rows
from .index_encoder import check_fits, index_backend, load_index_encoder
from .index_explain import Explaining
from .presets import Spec
from .search_args import MODES
from .stats import IndexStats, stats_of
from .stored import StoredBatch
from .validation import check_doc_id, check_documents, check_positive_int

__all__ = ["MODES", "SemanticIndex"]


class SemanticIndex(Explaining, ABC):
    """One index, opened: search it, read its documents, change it. Writes are checked the same
    way on every store (`indexer.validation`); how they become visible is the store's: a folder
    index publishes them as the next version on `save()`, Milvus makes them live at once."""

    store: ClassVar[str]  # "folder" | "milvus": for display (where it is kept), never dispatch
    spec: Spec

    def __init__(self, manifest: dict, encoder=None, backend: str | None = None) -> None:
        self._manifest = manifest
        self._encoder = encoder
        self._backend = backend  # None: the index's own (see `encoder`)
        self.spec = Spec(manifest["preset"], manifest["faiss_spec"], manifest["knobs"])

    # the door's `open_index` (indexer.stores sets it when imported, as `import indexer` does):
    # the contract opens through it without importing the stores that implement it
    opener: ClassVar[Callable[..., SemanticIndex]]

    @classmethod
    def open(cls, target: str | Path, *, encoder=None, verify: bool = True,
             backend: str | None = None) -> SemanticIndex:
        """Open the index at `target`: a folder, a `milvus://` address, or a `NAME.milvus` file
        holding one (the door, `indexer.stores`, tells which store's). An `encoder` given is
        checked against the index's (the same weights; a backend within the fidelity gate of
        the one that made the vectors); without it, that model is loaded on the first dense
        search, on `backend` (default: the index's own; `auto` or a name of
        `encoder.BACKENDS`). `verify` checks every file's checksum where the store keeps files
        (sizes are always checked)."""
        return SemanticIndex.opener(target, encoder=encoder, verify=verify, backend=backend)

    def _check_encoder(self, encoder) -> None:
        """Called by each store's `open`: a damaged backend entry, or an encoder given that does
        not fit, fails here."""
        index_backend(self.manifest, self.location)
        if encoder is not None:
            check_fits(self.manifest, self.location, encoder)
            self._encoder = encoder

    # -- where and what ------------------------------------------------------------------------
    @property
    @abstractmethod
    def location(self) -> str:
        """Where the index is: its folder, or its `milvus://` address."""

    @property
    def folder(self) -> str | Path:
        """`location` (kept for callers written when every index was a folder)."""
        return self.location

    @property
    def manifest(self) -> dict:
        return self._manifest

    @property
    def encoder(self):
        """The encoder given to `open`, else the index's model loaded on the index's backend
        (or `open`'s `backend`), checked to fit."""
        if self._encoder is None:
            self._encoder = load_index_encoder(self.manifest, self.location, self._backend)
        return self._encoder

    @property
    def backend(self) -> str:
        """The backend that made this index's vectors (`torch` for indexes that predate them)."""
        return index_backend(self.manifest, self.location)

    @property
    def knobs(self) -> dict[str, int]:
        """Search knobs this index's preset takes, with their defaults."""
        return dict(self.spec.knobs)

    def stats(self, *, readers: Iterable[str] | None = None) -> IndexStats:
        """What the index holds; its counts as `readers` see them (`counts`)."""
        return stats_of(str(self.location), self.manifest, self.counts(readers=readers),
                        self.knobs, self.store)

    @abstractmethod
    def counts(self, *, readers: Iterable[str] | None = None) -> dict[str, int]:
        """{"documents", "chunks", "tombstones"} as readers see them now; with `readers`, the
        documents and chunks those readers may see."""

    @abstractmethod
    def storage(self) -> tuple[str, str]:
        """Where and how large this index is kept, as a UI shows it: (label, value), e.g.
        ("Size on disk", "12.3 MB"), or ("Stored in", "Milvus") where the size is the
        server's to know."""

    def __len__(self) -> int:
        return self.counts()["documents"]

    # -- documents -----------------------------------------------------------------------------
    def document(self, doc_id: str, *, readers: Iterable[str] | None = None) -> Document:
        """Document `doc_id`; `KeyError` when absent, or hidden from `readers` (the same error:
        a hidden document is a missing one)."""
        doc_id = check_doc_id(doc_id, "doc_id")
        doc = self.documents([doc_id], readers=readers).get(doc_id)
        if doc is None:
            raise KeyError(f"no document {doc_id!r} in {self.location}")
        return doc

    @abstractmethod
    def documents(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                  ) -> dict[str, Document]:
        """{doc_id: Document} for every id present (and visible to `readers`), in one read
        (e.g. the documents of hits)."""

    @abstractmethod
    def missing(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                ) -> list[str]:
        """The ids among `doc_ids` that are not in the index (or hidden from `readers`), in
        the order given."""

    @abstractmethod
    def doc_ids(self) -> list[str]:
        """Every document's id, in the store's own stable order."""

    def all_documents(self, batch: int = 1000) -> Iterator[Document]:
        """Every document, in `doc_ids()` order, read `batch` at a time."""
        batch = check_positive_int(batch, "batch")
        ids = self.doc_ids()
        for at in range(0, len(ids), batch):
            part = ids[at:at + batch]
            found = self.documents(part)
            yield from (found[i] for i in part if i in found)

    def all_metadata(self, batch: int = 1000) -> Iterator[tuple[str, dict]]:
        """(id, metadata) of every document, in `doc_ids()` order: what `sync` compares with
        the files, without reading every text (a store that can, overrides this)."""
        for doc in self.all_documents(batch):
            yield doc.id, doc.metadata

    @abstractmethod
    def stored(self, doc_ids: Sequence[str], *, vectors: bool = True) -> StoredBatch:
        """The documents `doc_ids` (those present, in the order given) with their chunk rows
        (spans, BM25 tokens) and vectors, exactly as stored: what a migration copies and a
        re-index keeps the chunking of. `vectors=False` leaves the vectors out ((chunks, 0))."""

    def chunk_spans(self, doc_id: str, *, readers: Iterable[str] | None = None
                    ) -> list[tuple[int, int, int]]:
        """(chunk_id, start, end) of each chunk of document `doc_id`, in chunk order ([] for an
        id not in the index, or hidden from `readers`): where a hit's `chunk_id` lies in its
        document's text (the page route highlights it)."""
        doc_id = check_doc_id(doc_id, "doc_id")
        if readers is not None and self.missing([doc_id], readers=readers):
            return []
        return self._chunk_spans(doc_id)

    @abstractmethod
    def _chunk_spans(self, doc_id: str) -> list[tuple[int, int, int]]:
        """The store's `chunk_spans` of a checked id, unrestricted."""

    # -- search --------------------------------------------------------------------------------
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
        readers: Iterable[str] | None = None,
        **knobs: int,
    ) -> list[Hit] | list[list[Hit]]:
        """Top-`k` hits for one query (→ list[Hit]) or many (→ one list per query, one batch).

        Hits are per document (its best chunk) unless `per_chunk`. `mode`: dense, lexical (BM25)
        or hybrid: both fused by `fusion` ("rrf": reciprocal ranks, `rrf_k`; "minmax" /
        "zscore": convex combination of per-query normalised scores), `weights` = (dense,
        lexical), None for the fusion's default (`indexer.fusion.DEFAULT_WEIGHTS`). `filter`
        restricts to documents whose metadata match. `readers` restricts to the documents
        those names may see, inside the index before top-k (with `filter`, both hold): k hits
        whenever k visible documents match. `knobs`: nprobe / efSearch / rerank where the
        preset takes them (see `knobs`)."""
        return self._searcher().search(queries, k, mode=mode, filter=filter,
                                       per_chunk=per_chunk, rrf_k=rrf_k, weights=weights,
                                       knobs=knobs, fusion=fusion,
                                       readers=check_readers(readers))

    @abstractmethod
    def _searcher(self):
        """The store's searcher (the folder store's `Searcher`, `MilvusSearcher`)."""

    def _encode_queries(self, texts: list[str]):
        return self.encoder.encode(texts, prompt="query")

    # -- metadata fields -----------------------------------------------------------------------
    @abstractmethod
    def field_types(self) -> dict[str, str]:
        """Metadata field name -> "str" | "int" | "float" | "bool" | "mixed", as readers see
        them now."""

    def field_values(self, name: str, limit: int = 50, *,
                     readers: Iterable[str] | None = None) -> list[Any] | None:
        """The distinct values of metadata field `name` among live documents (those `readers`
        may see), sorted (numbers, then text; True/False for a bool field); None when there
        are more than `limit`. Raises `QueryError` for a field the index does not have."""
        types = self.field_types()
        limit = check_positive_int(limit, "limit")
        if not isinstance(name, str) or name not in types:
            raise unknown_field(name, types)
        values = self._field_values(name, limit, check_readers(readers))
        if values is not None and types[name] == "bool":
            values = sorted({bool(v) for v in values})
        return values

    @abstractmethod
    def _field_values(self, name: str, limit: int, readers: frozenset[str] | None
                      ) -> list[Any] | None:
        """The store's distinct values of `name` among documents `readers` may see (None:
        more than `limit`)."""

    # -- writing -------------------------------------------------------------------------------
    @abstractmethod
    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None,
            vectors: np.ndarray | None = None) -> int:
        """Add new documents (ids must be new: `upsert` replaces). Returns chunks added.
        `progress(chunks embedded, chunks in all)` is called every few batches. `vectors`
        (one row per document, made elsewhere, as `build_index` takes them) makes each
        document one chunk and encodes nothing."""

    @abstractmethod
    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None,
               vectors: np.ndarray | None = None) -> int:
        """Add documents, replacing any with the same id. Returns chunks added."""

    @abstractmethod
    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents by id (a list); unknown ids are ignored. Returns documents deleted:
        `missing(ids)` names those not in the index."""

    def _checked(self, documents: Sequence[Document | dict], batch_size: int, *,
                 replace: bool) -> list[Document]:
        """The documents of an `add` (ids must be new) or an `upsert`, checked as every store
        checks them (`indexer.validation.check_documents`: no id twice, texts within the limit,
        metadata of the kinds the index's fields hold)."""
        docs = check_documents(documents, batch_size, self._write_kinds())
        if not replace:
            self._refuse_taken([d.id for d in docs])
        return docs

    def _write_kinds(self) -> dict[str, str]:
        """The metadata field kinds a write must keep."""
        return self.field_types()

    def _refuse_taken(self, ids: list[str]) -> None:
        absent = set(self.missing(ids))
        taken = [i for i in ids if i not in absent]
        if taken:
            raise ValueError(f"{len(taken)} document ids already exist (e.g. {taken[0]!r}): "
                             "use upsert() to replace them")

    def _encoded(self, docs: list[Document], batch_size: int,
                 progress: Callable[[int, int], None] | None,
                 vectors: np.ndarray | None = None) -> tuple[list[Chunk], np.ndarray]:
        """`docs` chunked as the index chunks and encoded as passages, before any change; with
        `vectors` (made elsewhere, one per document) each is one chunk and nothing is encoded."""
        chunking = ChunkingConfig(**self.manifest["chunking"])
        if vectors is not None:
            given = check_vectors(vectors, len(docs), self.manifest["dim"],
                                  self.manifest["encoder"]["name"])
            return whole_document_chunks(self.encoder, docs, chunking), unit_rows(given)
        chunks = chunk_documents(self.encoder, docs, chunking)
        vectors = embed_passages(self.encoder, [c.encoded for c in chunks], batch_size,
                                 progress and (lambda n: progress(n, len(chunks))))
        return chunks, vectors

    @abstractmethod
    def compact(self) -> int:
        """Drop deleted rows the store still holds; returns how many."""

    def discard(self) -> None:  # noqa: B027 - a store whose writes are live has none to drop
        """Drop the changes not saved yet, and what holds them (a writer giving up after a
        failed write). Milvus's writes are live when made: nothing to drop there."""

    @abstractmethod
    def save(self) -> None:
        """Make the writes durable and visible to every reader (a folder index publishes its
        next version; Milvus flushes), and record the counts in the manifest."""

    def close(self) -> None:  # noqa: B027 - a store with nothing to release keeps this
        """Release what the index holds open (connections); reading after it is undefined."""

    def __enter__(self) -> SemanticIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        m = self.manifest
        return (f"{type(self).__name__}({str(self.location)!r}, "
                f"documents={m.get('counts', {}).get('documents')}, "
                f"model={m['encoder']['name']!r}, preset={m['preset']!r})")
