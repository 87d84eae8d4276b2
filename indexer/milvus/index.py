"""`MilvusIndex`: the public surface of `indexer.SemanticIndex` over a Milvus collection
(milvus-lite embedded in a `.db` file, or a server / cluster by URI).

What differs from a folder index, and why:
- Writes are live when made: Milvus has no private working copy to publish, so `add`, `upsert`
  and `delete` reach other readers at once (consistency level Strong). `save()` flushes and
  records the counts in the manifest. Writers on one process take turns (milvus-lite takes
  concurrent readers but not writers); chunk ids are hashes of (document id, chunk number), so
  writers need no shared counter.
- Lexical search runs in Milvus, by its BM25 function over the same tokens the folder store
  scores (`common.lexical.tokenize`, stored as text Milvus's standard analyzer splits back), with
  the index's k1 and b. A Milvus server keeps BM25 statistics over the whole collection;
  milvus-lite 3.2 keeps them per segment, so documents added after a build are scored against
  their own segment's statistics until Milvus merges segments (a build writes one segment up to
  milvus-lite's 128 MiB memtable).
- `compact()` has nothing to do (Milvus compacts its own segments); `tombstones` is 0."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from common.lexical import Bm25Params

from ..chunking import ChunkingConfig, chunk_documents, chunk_input
from ..documents import Document, Hit
from ..embedding import embed_passages
from ..filters import unknown_field
from ..fusion import DEFAULT_FUSION, RRF_K
from ..index_encoder import check_fits, check_open_args, index_backend, load_index_encoder
from ..presets import Spec
from ..stats import IndexStats, stats_of
from ..store import now
from ..validation import (
    check_doc_id,
    check_doc_ids,
    check_documents,
    check_field_kinds,
    check_positive_int,
)
from .address import MilvusAddress, parse_address
from .connect import connect, write_lock
from .expr import quote
from .manifest import read_manifest, with_metadata, write_manifest
from .rows import DOCUMENT_FIELDS, chunk_rows, document_rows, documents_of
from .schema import documents_collection
from .search import MilvusSearcher

BATCH = 512  # rows a request
IDS_PER_EXPR = 1000


class MilvusIndex:
    def __init__(self, address: MilvusAddress, client, manifest: dict, encoder=None, *,
                 backend: str | None = None) -> None:
        self.address = address
        self.client = client
        self._manifest = manifest
        self._encoder = encoder
        self._backend = backend
        self.spec = Spec(manifest["preset"], manifest["faiss_spec"], manifest["knobs"])
        self._searcher: MilvusSearcher | None = None
        self._values: dict[tuple, tuple] = {}  # (name, limit) -> (counts, field values)

    @classmethod
    def open(cls, path: str | MilvusAddress, *, encoder=None, verify: bool = True,
             backend: str | None = None) -> MilvusIndex:
        """Open the Milvus index at `path` (a `milvus://` address). The encoder is checked
        as a folder index checks it; `verify` is accepted for the same signature (Milvus checks
        its own files)."""
        address = parse_address(path)
        backend = check_open_args(encoder, backend)
        client = connect(address)
        manifest = read_manifest(client, address)
        index = cls(address, client, manifest, backend=backend)
        index_backend(manifest, str(address))  # a damaged backend entry fails here
        if encoder is not None:
            check_fits(manifest, str(address), encoder)
            index._encoder = encoder
        client.load_collection(address.collection)
        client.load_collection(documents_collection(address.collection))
        return index

    # -- parts -------------------------------------------------------------------------------
    @property
    def folder(self) -> str:
        """The address (where a folder index has its folder)."""
        return str(self.address)

    @property
    def manifest(self) -> dict:
        return self._manifest

    @property
    def encoder(self):
        if self._encoder is None:
            self._encoder = load_index_encoder(self.manifest, self.folder, self._backend)
        return self._encoder

    @property
    def backend(self) -> str:
        return index_backend(self.manifest, self.folder)

    @property
    def knobs(self) -> dict[str, int]:
        return dict(self.spec.knobs)

    @property
    def _docs(self) -> str:
        return documents_collection(self.address.collection)

    # -- reading -----------------------------------------------------------------------------
    def stats(self) -> IndexStats:
        return stats_of(self.folder, self.manifest, self.counts(), self.knobs)

    def counts(self) -> dict[str, int]:
        return {"documents": self._count(self._docs, "part == 0"),
                "chunks": self._count(self.address.collection, ""), "tombstones": 0}

    def _count(self, collection: str, expr: str) -> int:
        return int(self.client.query(collection, filter=expr,
                                     output_fields=["count(*)"])[0]["count(*)"])

    def __len__(self) -> int:
        return self.counts()["documents"]

    def document(self, doc_id: str) -> Document:
        doc_id = check_doc_id(doc_id, "doc_id")
        doc = self.documents([doc_id]).get(doc_id)
        if doc is None:
            raise KeyError(f"no document {doc_id!r} in {self.folder}")
        return doc

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        """{doc_id: Document} for every id present."""
        rows = self._query_ids(self._docs, list(dict.fromkeys(check_doc_ids(doc_ids))),
                               DOCUMENT_FIELDS)
        return documents_of(rows)

    def missing(self, doc_ids: Sequence[str]) -> list[str]:
        ids = check_doc_ids(doc_ids)
        found = set(self._existing(ids))
        return [d for d in ids if d not in found]

    def _existing(self, ids: list[str]) -> list[str]:
        rows = self._query_ids(self._docs, list(dict.fromkeys(ids)), ["doc_id"], "part == 0")
        return [r["doc_id"] for r in rows]

    def _query_ids(self, collection: str, ids: list[str], fields: list[str],
                   extra: str = "") -> list[dict]:
        out: list[dict] = []
        for at in range(0, len(ids), IDS_PER_EXPR):
            expr = _ids_expr(ids[at:at + IDS_PER_EXPR]) + (f" and {extra}" if extra else "")
            out.extend(self.client.query(collection, filter=expr, output_fields=fields))
        return out

    def search(self, queries: str | Sequence[str], k: int = 10, *, mode: str = "dense",
               filter: dict[str, Any] | None = None,  # noqa: A002 - the documented name
               per_chunk: bool = False, rrf_k: int = RRF_K,
               weights: tuple[float, float] | None = None, fusion: str = DEFAULT_FUSION,
               **knobs: int) -> list[Hit] | list[list[Hit]]:
        """As `SemanticIndex.search`; knobs: efSearch for an HNSW index."""
        if self._searcher is None:
            self._searcher = MilvusSearcher(
                self.client, self.address.collection, self.spec,
                lambda texts: self.encoder.encode(texts, prompt="query"), self.field_types,
                Bm25Params.of(self.manifest).k1)
        return self._searcher.search(queries, k, mode=mode, filter=filter, per_chunk=per_chunk,
                                     rrf_k=rrf_k, weights=weights, knobs=knobs, fusion=fusion)

    def field_types(self) -> dict[str, str]:
        """Metadata field types, read afresh (another writer may have added fields)."""
        self._manifest = read_manifest(self.client, self.address)
        return dict(self.manifest["metadata_fields"])

    def doc_ids(self) -> list[str]:
        """Every document's id, sorted (from each document's first chunk, paged by chunk id)."""
        return sorted(r["doc_id"] for r in self._scan("chunk_no == 0", ["doc_id"]))

    def all_documents(self, batch: int = IDS_PER_EXPR) -> Iterator[Document]:
        """Every document, by id, read `batch` at a time (what `rebuild_index` re-encodes)."""
        ids = self.doc_ids()
        for at in range(0, len(ids), batch):
            found = self.documents(ids[at:at + batch])
            yield from (found[i] for i in ids[at:at + batch] if i in found)

    def _scan(self, expr: str, fields: list[str]) -> Iterator[dict]:
        """Every chunk row matching `expr`, paged by the integer chunk id (pymilvus pages a
        string key unescaped)."""
        it = self.client.query_iterator(self.address.collection, batch_size=1000, filter=expr,
                                        output_fields=fields)
        try:
            while batch := it.next():
                yield from batch
        finally:
            it.close()

    def field_values(self, name: str, limit: int = 50) -> list[Any] | None:
        """As `SemanticIndex.field_values`: read by scanning the first chunk of every document
        (paged by the integer chunk id: pymilvus pages a string key unescaped), and kept while
        the index's counts stay the same (a page rerun does not scan again)."""
        types = self.field_types()
        limit = check_positive_int(limit, "limit")
        if not isinstance(name, str) or name not in types:
            raise unknown_field(name, types)
        counts = tuple(self.counts().values())
        kept = self._values.get((name, limit))
        if kept is None or kept[0] != counts:  # read anew when the counts have changed
            kept = self._values[(name, limit)] = (counts, self._field_values(name, limit,
                                                                             types[name]))
        return list(kept[1]) if kept[1] is not None else None

    def _field_values(self, name: str, limit: int, kind: str) -> list[Any] | None:
        values: set = set()
        for row in self._scan("chunk_no == 0", ["metadata"]):
            value = (row["metadata"] or {}).get(name)
            if isinstance(value, (str, int, float)):
                values.add(value)
                if len(values) > limit:
                    return None
        if kind == "bool":
            return sorted(bool(v) for v in values)
        return sorted(values, key=lambda v: (isinstance(v, str), v))  # numbers, then text

    def query_too_long(self, query: str) -> bool:
        enc = self.encoder
        return enc.token_lengths([query], prompt="query")[0] > enc.max_length

    def explain(self, query: str, hit: Hit, *, method: str = "integrated-jacobians",
                steps: int = 16, progress: Callable[[int, int], None] | None = None):
        """As `SemanticIndex.explain`."""
        return self.encoder.explain(query, self._passage(hit), method=method, steps=steps,
                                    prompt_a="query", prompt_b="passage", progress=progress)

    def explain_work(self, query: str, hit: Hit, steps: int = 16) -> int:
        """As `SemanticIndex.explain_work`."""
        from encoder.explain import work_units

        return work_units(self.encoder, query, self._passage(hit), steps=steps,
                          prompt_a="query", prompt_b="passage")

    def _passage(self, hit: Hit) -> str:
        if not isinstance(hit, Hit):
            raise TypeError(f"hit must be a Hit from this index's search, got {type(hit).__name__}")
        return chunk_input(self.encoder, hit.title, hit.text,
                           ChunkingConfig(**self.manifest["chunking"]))

    # -- writing -----------------------------------------------------------------------------
    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None) -> int:
        """Add new documents (ids must be new: `upsert` replaces). Returns chunks added."""
        docs = check_documents(documents, batch_size, self.field_types())
        return self._write(docs, batch_size, progress, replace=False)

    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None) -> int:
        """Add documents, replacing any with the same id (an id twice among them is refused)."""
        docs = check_documents(documents, batch_size, self.field_types())
        return self._write(docs, batch_size, progress, replace=True)

    def _write(self, docs: list[Document], batch_size: int, progress, *, replace: bool) -> int:
        if not docs:
            return 0
        if not replace:
            self._refuse_taken([d.id for d in docs])  # before encoding; again under the lock
        chunks = chunk_documents(self.encoder, docs, ChunkingConfig(**self.manifest["chunking"]))
        vectors = embed_passages(self.encoder, [c.encoded for c in chunks], batch_size,
                                 progress and (lambda n: progress(n, len(chunks))))
        with write_lock(self.address):
            ids = [d.id for d in docs]
            manifest = read_manifest(self.client, self.address)
            check_field_kinds(docs, manifest["metadata_fields"])  # another writer's may differ
            if replace:
                self._remove(ids)
            else:
                self._refuse_taken(ids)
            manifest = with_metadata(manifest, [d.metadata for d in docs])
            write_manifest(self.client, self.address.collection, manifest)  # types first
            self._manifest = manifest
            self._insert(self.address.collection, chunk_rows(docs, chunks, vectors))
            self._insert(self._docs, document_rows(docs))  # last: the document is whole
        return len(chunks)

    def _refuse_taken(self, ids: list[str]) -> None:
        taken = self._existing(ids)
        if taken:
            raise ValueError(f"{len(taken)} document ids already exist (e.g. {taken[0]!r}): "
                             "use upsert() to replace them")

    def _insert(self, collection: str, rows: list[dict]) -> None:
        for at in range(0, len(rows), BATCH):
            self.client.insert(collection, rows[at:at + BATCH])

    def _remove(self, ids: list[str]) -> None:
        for at in range(0, len(ids), IDS_PER_EXPR):
            expr = _ids_expr(ids[at:at + IDS_PER_EXPR])
            self.client.delete(self._docs, filter=expr)  # first: the document is gone whole
            self.client.delete(self.address.collection, filter=expr)

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents by id; unknown ids are ignored. Returns documents deleted."""
        ids = list(dict.fromkeys(check_doc_ids(doc_ids)))
        with write_lock(self.address):
            found = self._existing(ids)
            if found:
                self._remove(found)
        return len(found)

    def compact(self) -> int:
        """Nothing to do: Milvus drops deleted rows when it compacts its segments."""
        return 0

    def save(self) -> None:
        """Flush the writes and record the counts and the time in the manifest."""
        with write_lock(self.address):
            self.client.flush(self.address.collection)
            self.client.flush(self._docs)
            manifest = read_manifest(self.client, self.address)
            manifest.update(counts=self.counts(), updated_at=now(),
                            version=manifest["version"] + 1)
            write_manifest(self.client, self.address.collection, manifest)
            self._manifest = manifest

    def close(self) -> None:
        self.client.close()

    def __repr__(self) -> str:
        m = self.manifest
        return (f"MilvusIndex({self.folder!r}, model={m['encoder']['name']!r}, "
                f"preset={m['preset']!r})")


def _ids_expr(ids: Sequence[str]) -> str:
    return f"doc_id in [{', '.join(quote(i) for i in ids)}]"
