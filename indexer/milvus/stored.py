"""Reading a Milvus index's rows exactly as stored (`StoredBatch`), from its collection pair or
from the staging pair a migration or a build writes. Scans page by chunk id only: pymilvus's
query_iterator writes the last primary key of a page into the next page's expression unescaped,
so a document id holding `"` breaks it on the documents collection (a string key); documents are
read by `doc_id in [...]` of escaped ids instead."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import numpy as np

from ..stored import StoredBatch
from .expr import quote
from .rows import DOCUMENT_FIELDS, documents_of, stored_tokens
from .schema import documents_collection

IDS_PER_EXPR = 1000
# milvus-lite keeps no MVCC timestamps: pymilvus warns on every page of a scan
ITERATOR_LOG = "pymilvus.client.iterator.query_iterator"


class StoredRows:
    """The rows of the collection pair `chunks` (+ `chunks`_documents) through `client`."""

    def __init__(self, client, chunks: str, token_encoding: int, dim: int) -> None:
        self.client = client
        self.dim = dim
        self.chunks = chunks
        self.docs = documents_collection(chunks)
        self.token_encoding = token_encoding

    def doc_ids(self) -> list[str]:
        """Every document's id (each has a first chunk), sorted."""
        return sorted(r["doc_id"] for r in self.scan("chunk_no == 0", ["doc_id"]))

    def document_rows(self, ids: Sequence[str], fields: list[str] = DOCUMENT_FIELDS,
                      extra: str = "") -> list[dict]:
        """The document rows (every part) of `ids`, `IDS_PER_EXPR` ids a request."""
        out: list[dict] = []
        ids = list(ids)
        for at in range(0, len(ids), IDS_PER_EXPR):
            expr = ids_expr(ids[at:at + IDS_PER_EXPR]) + (f" and {extra}" if extra else "")
            out.extend(self.client.query(self.docs, filter=expr, output_fields=fields))
        return out

    def count(self, collection: str, expr: str) -> int:
        rows = self.client.query(collection, filter=expr, output_fields=["count(*)"])
        return int(rows[0]["count(*)"])

    def counts(self, access: str = "") -> dict[str, int]:
        """Documents and chunks; those meeting `access` (`expr.access_expr`) where given.

        Without `access` both are whole-collection counts, which Milvus answers from its row
        counts: the documents are the document rows less the later parts of long documents
        (`part > 0`, the few texts past one VARCHAR). A count under a filter makes milvus-lite
        read every row it keeps whole (`part == 0` kept every document row: the Index page and
        every `stats()` paid for reading the whole documents collection)."""
        if not access:
            return {"documents": self.count(self.docs, "") - self.count(self.docs, "part > 0"),
                    "chunks": self.count(self.chunks, "")}
        return {"documents": self.count(self.docs, f"part == 0 and {access}"),
                "chunks": self.count(self.chunks, access)}

    def stored(self, ids: Sequence[str], *, vectors: bool = True) -> StoredBatch:
        docs = documents_of(self.document_rows(ids))
        ids = [d for d in dict.fromkeys(ids) if d in docs]
        order = {d: i for i, d in enumerate(ids)}
        rows = sorted((r for at in range(0, len(ids), IDS_PER_EXPR)
                       for r in self.scan(ids_expr(ids[at:at + IDS_PER_EXPR]),
                                          ["doc_id", "chunk_no", "char_start", "char_end",
                                           "tokens", *(["vector"] if vectors else [])])),
                      key=lambda r: (order[r["doc_id"]], r["chunk_no"]))
        chunks = [(r["doc_id"], r["chunk_no"], r["char_start"], r["char_end"],
                   stored_tokens(r["tokens"], self.token_encoding)) for r in rows]
        found = np.asarray([r["vector"] for r in rows] if vectors else [], dtype=np.float32)
        return StoredBatch([docs[d] for d in ids], chunks,
                           found.reshape(len(rows), self.dim if vectors else 0))

    def scan(self, expr: str, fields: list[str]) -> Iterator[dict]:
        """The chunk rows meeting `expr`, paged by chunk id (an integer: safe to page by)."""
        # milvus-lite keeps no MVCC timestamps: pymilvus's iterator warns so on every scan, on
        # the user's terminal (a sync printed it). Set here, each time: importing pymilvus
        # resets its loggers' levels, so a level set at import of this module did not hold
        logging.getLogger(ITERATOR_LOG).setLevel(logging.ERROR)
        it = self.client.query_iterator(self.chunks, batch_size=1000, filter=expr,
                                        output_fields=fields)
        try:
            while rows := it.next():
                yield from rows
        finally:
            it.close()


def ids_expr(ids: Sequence[str]) -> str:
    return f"doc_id in [{', '.join(quote(i) for i in ids)}]"
