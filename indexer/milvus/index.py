"""`MilvusIndex`: the Milvus store's `SemanticIndex` (milvus-lite embedded in a `.db` file, or a
server / cluster by URI).

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

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from common.lexical import Bm25Params

from ..access import check_readers, visible
from ..documents import Document
from ..index import SemanticIndex
from ..index_encoder import check_open_args
from ..manifest import now
from ..stored import StoredBatch
from ..validation import check_doc_ids, check_field_kinds
from . import columns as filter_columns
from .address import MilvusAddress, parse_address
from .connect import connect, write_lock
from .expr import access_expr, both, to_expr
from .manifest import read_manifest, with_metadata, write_manifest
from .rows import DOCUMENT_FIELDS, chunk_rows, document_rows, documents_of, token_encoding
from .search import MilvusSearcher
from .stored import IDS_PER_EXPR, StoredRows, ids_expr

BATCH = 512  # rows a request
PROBE_ROWS, PROBE_ROWS_EACH, PROBE_ROWS_MAX = 256, 16, 4096  # rows `_probe_values` asks for


class MilvusIndex(SemanticIndex):
    store = "milvus"

    def __init__(self, address: MilvusAddress, client, manifest: dict, encoder=None, *,
                 backend: str | None = None) -> None:
        super().__init__(manifest, encoder, backend)
        self.address = address
        self.client = client
        self._rows = StoredRows(client, address.collection, token_encoding(manifest),
                                manifest["dim"])
        self._search: MilvusSearcher | None = None
        self._values: dict[tuple, tuple] = {}  # (name, limit) -> (counts, field values)

    @classmethod
    def open_address(cls, path: str | MilvusAddress, *, encoder=None, verify: bool = True,
                     backend: str | None = None) -> MilvusIndex:
        """The Milvus index at `path` (a `milvus://` address; see `SemanticIndex.open`).
        `verify` is accepted for the same signature (Milvus checks its own files)."""
        address = parse_address(path)
        backend = check_open_args(encoder, backend)
        client = connect(address)
        index = cls(address, client, read_manifest(client, address), backend=backend)
        index._check_encoder(encoder)
        client.load_collection(address.collection)
        client.load_collection(index._docs)
        return index

    @property
    def location(self) -> str:
        return str(self.address)

    @property
    def _docs(self) -> str:
        return self._rows.docs

    # -- reading -----------------------------------------------------------------------------
    def counts(self, *, readers: Iterable[str] | None = None) -> dict[str, int]:
        return {**self._rows.counts(access_expr(check_readers(readers))), "tombstones": 0}

    def storage(self) -> tuple[str, str]:
        return "Stored in", "Milvus"  # its size is Milvus's to know

    def documents(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                  ) -> dict[str, Document]:
        ids = list(dict.fromkeys(check_doc_ids(doc_ids)))
        readers = check_readers(readers)
        found = documents_of(self._rows.document_rows(ids, DOCUMENT_FIELDS))
        return {i: d for i, d in found.items() if visible(d.metadata, readers)}

    def missing(self, doc_ids: Sequence[str], *, readers: Iterable[str] | None = None
                ) -> list[str]:
        ids = check_doc_ids(doc_ids)
        found = set(self._existing(ids, check_readers(readers)))
        return [d for d in ids if d not in found]

    def _existing(self, ids: list[str], readers: frozenset[str] | None = None) -> list[str]:
        rows = self._rows.document_rows(list(dict.fromkeys(ids)), ["doc_id"],
                                        both("part == 0", access_expr(readers)))
        return [r["doc_id"] for r in rows]

    def doc_ids(self) -> list[str]:
        """Every document's id, sorted (from each document's first chunk, paged by chunk id)."""
        return self._rows.doc_ids()

    def stored(self, doc_ids: Sequence[str], *, vectors: bool = True) -> StoredBatch:
        return self._rows.stored(check_doc_ids(doc_ids), vectors=vectors)

    def _chunk_spans(self, doc_id: str) -> list[tuple[int, int, int]]:
        rows = self._rows.scan(ids_expr([doc_id]),
                               ["chunk_id", "chunk_no", "char_start", "char_end"])
        return [(int(r["chunk_id"]), int(r["char_start"]), int(r["char_end"]))
                for r in sorted(rows, key=lambda r: r["chunk_no"])]

    def _searcher(self) -> MilvusSearcher:
        if self._search is None:
            self._search = MilvusSearcher(
                self.client, self.address.collection, self.spec, self._encode_queries,
                self.field_types, Bm25Params.of(self.manifest).k1,
                token_encoding(self.manifest), lambda: filter_columns.of(self.manifest))
        return self._search

    def field_types(self) -> dict[str, str]:
        """Metadata field types, read afresh (another writer may have added fields)."""
        self._manifest = read_manifest(self.client, self.address)
        return dict(self.manifest["metadata_fields"])

    def _field_values(self, name: str, limit: int, readers: frozenset[str] | None
                      ) -> list[Any] | None:
        """Each value the manifest keeps for `name` (`metadata_values`) asked of its typed
        column (`columns.py`) whether a document `readers` may see holds it: a few queries on
        that column (`_probe_values`), never a read of every document. An index without them
        (built before they were kept, a field past `VALUES_KEPT` values or with no column) is
        read by scanning the first chunk of every document, kept while the index's counts stay
        the same (a page rerun does not scan again)."""
        probed = self._probe_values(name, limit, readers)
        if probed is not False:
            return probed
        counts = tuple(self.counts().values())
        key = (name, limit, readers)
        kept = self._values.get(key)
        if kept is None or kept[0] != counts:  # read anew when the counts have changed
            if len(self._values) > 64:  # one entry per reader set: bounded
                self._values.clear()
            kept = self._values[key] = (counts, self._scan_values(name, limit, readers))
        return list(kept[1]) if kept[1] is not None else None

    def _probe_values(self, name: str, limit: int, readers: frozenset[str] | None
                      ) -> list[Any] | None | bool:
        """`_field_values` by the typed column; False where it cannot answer so.

        Each query asks for rows holding any candidate not yet seen (`PROBE_ROWS` of them, by
        the column alone), so a few rows show every value that many documents share. A query
        that returns fewer rows than it asked for has read every row holding a candidate left:
        those are held by no document `readers` may see. Asking a value at a time cost one
        query a value, and each query costs milvus-lite a pass over every row's key."""
        candidates = (self.manifest.get("metadata_values") or {}).get(name)
        column = filter_columns.usable(filter_columns.of(self.manifest),
                                       self.manifest["metadata_fields"]).get(name)
        if candidates is None or column is None:
            return False
        left: dict[Any, Any] = {}  # the column's value -> the field's value it stands for
        for _, value in candidates:
            typed = filter_columns.column_values(column[1], "eq", [value])
            if typed is None:
                return False
            left.setdefault(typed[0], value)  # 1 and 1.0 in a float field: one value
        values: set = set()
        while left:
            rows = min(PROBE_ROWS_MAX, max(PROBE_ROWS, PROBE_ROWS_EACH * len(left)))
            test = to_expr([(name, "in", list(left))], columns={name: column})
            found = self.client.query(self.address.collection,
                                      filter=both(test, access_expr(readers)),
                                      output_fields=[column[0]], limit=rows)
            for row in found:
                held = row.get(column[0])
                if held in left:
                    values.add(left.pop(held))
            if len(values) > limit:
                return None
            if len(found) < rows:  # every row holding a value left was read
                break
        return sorted(values, key=lambda v: (isinstance(v, str), v))  # numbers, then text

    def _scan_values(self, name: str, limit: int, readers: frozenset[str] | None = None
                     ) -> list[Any] | None:
        values: set = set()
        for row in self._rows.scan(both("chunk_no == 0", access_expr(readers)), ["metadata"]):
            value = (row["metadata"] or {}).get(name)
            if isinstance(value, (str, int, float)):
                values.add(value)
                if len(values) > limit:
                    return None
        return sorted(values, key=lambda v: (isinstance(v, str), v))  # numbers, then text

    # -- writing -----------------------------------------------------------------------------
    def add(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
            progress: Callable[[int, int], None] | None = None, vectors=None) -> int:
        return self._write(self._checked(documents, batch_size, replace=False), batch_size,
                           progress, vectors, replace=False)

    def upsert(self, documents: Sequence[Document | dict], *, batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None, vectors=None) -> int:
        return self._write(self._checked(documents, batch_size, replace=True), batch_size,
                           progress, vectors, replace=True)

    def _write(self, docs: list[Document], batch_size: int, progress, given=None, *,
               replace: bool) -> int:
        if not docs:
            return 0
        chunks, vectors = self._encoded(docs, batch_size, progress, given)
        with write_lock(self.address):
            ids = [d.id for d in docs]
            manifest = read_manifest(self.client, self.address)
            check_field_kinds(docs, manifest["metadata_fields"])  # another writer's may differ
            if replace:
                self._remove(ids)
            else:
                self._refuse_taken(ids)  # again, under the lock: another writer may have added
            manifest = with_metadata(manifest, [d.metadata for d in docs])
            columns = filter_columns.of(manifest)  # a column some value misses is no more used
            manifest["filter_columns"] = filter_columns.drop(columns, filter_columns.partial(
                columns, [d.metadata for d in docs]))
            write_manifest(self.client, self.address.collection, manifest)  # types first
            self._manifest = manifest
            self._insert(self.address.collection,
                         chunk_rows(docs, chunks, vectors, token_encoding(manifest),
                                    columns=columns))
            self._insert(self._docs, document_rows(docs))  # last: the document is whole
        return len(chunks)

    def _insert(self, collection: str, rows: list[dict]) -> None:
        for at in range(0, len(rows), BATCH):
            self.client.insert(collection, rows[at:at + BATCH])

    def _remove(self, ids: list[str]) -> None:
        for at in range(0, len(ids), IDS_PER_EXPR):
            expr = ids_expr(ids[at:at + IDS_PER_EXPR])
            self.client.delete(self._docs, filter=expr)  # first: the document is gone whole
            self.client.delete(self.address.collection, filter=expr)

    def delete(self, doc_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(check_doc_ids(doc_ids)))
        with write_lock(self.address):
            found = self._existing(ids)
            # every id: chunk rows whose document row a killed write never wrote go too
            self._remove(ids)
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
