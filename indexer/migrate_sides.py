"""The two sides of a migration, read the same way: a folder index and a Milvus index (or the
staging pair a migration writes), each giving its document ids, counts, and a `Batch` of
documents with their chunk rows and vectors, exactly as stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common import check_path

from . import db
from .documents import Document
from .index import SemanticIndex
from .milvus import connect, is_milvus, parse_address
from .milvus.expr import quote
from .milvus.manifest import read_manifest
from .milvus.rows import DOCUMENT_FIELDS, documents_of
from .milvus.schema import documents_collection

ChunkRow = tuple[str, int, int, int, str]  # (doc_id, chunk_no, start, end, BM25 tokens)


@dataclass
class Batch:
    docs: list[Document]
    chunks: list[ChunkRow]  # in document order, then chunk number
    vectors: np.ndarray  # (len(chunks), dim) float32


class FolderSide:
    def __init__(self, folder: Path) -> None:
        self.index = SemanticIndex.open(folder)
        self.name = str(folder)
        self.manifest = self.index.manifest

    def doc_ids(self) -> list[str]:
        return [d.id for d in db.all_documents(self.index.conn)]

    def counts(self) -> dict[str, int]:
        c = db.counts(self.index.conn)
        return {"documents": c["documents"], "chunks": c["chunks"]}

    def batch(self, ids: Sequence[str]) -> Batch:
        docs = db.documents(self.index.conn, ids)
        order = {d: i for i, d in enumerate(ids)}
        rows = sorted(db.chunks_of(self.index.conn, ids), key=lambda r: (order[r[1]], r[2]))
        dim = self.manifest["dim"]
        vectors = np.vstack([self.index.vectors.reconstruct(int(r[0])) for r in rows]
                            ).astype(np.float32) if rows else np.empty((0, dim), np.float32)
        return Batch([docs[d] for d in ids], [tuple(r[1:]) for r in rows], vectors)


class MilvusSide:
    """A Milvus index, or the staging pair `collection` of one. Scans page by chunk id only:
    pymilvus's query_iterator writes the last primary key of a page into the next page's
    expression unescaped, so a document id holding `"` breaks it on the documents collection
    (a string key); documents are read by `doc_id in [...]` of escaped ids instead."""

    def __init__(self, target: str, collection: str | None = None) -> None:
        address = parse_address(target)
        self.client = connect(address)
        self.name = str(address)
        self.chunks = collection or address.collection
        self.docs = documents_collection(self.chunks)
        if collection is None:
            self.manifest = read_manifest(self.client, address)
        for name in (self.chunks, self.docs):
            self.client.load_collection(name)

    def doc_ids(self) -> list[str]:
        """Every document's id (each has a first chunk), sorted."""
        return sorted(r["doc_id"] for r in self._scan("chunk_no == 0", ["doc_id"]))

    def documents(self, ids: Sequence[str], fields: list[str] = DOCUMENT_FIELDS) -> list[dict]:
        """The document rows (every part) of `ids`."""
        return self.client.query(self.docs, filter=_ids_expr(ids), output_fields=fields)

    def counts(self) -> dict[str, int]:
        def count(name: str, expr: str) -> int:
            rows = self.client.query(name, filter=expr, output_fields=["count(*)"])
            return int(rows[0]["count(*)"])

        return {"documents": count(self.docs, "part == 0"), "chunks": count(self.chunks, "")}

    def batch(self, ids: Sequence[str]) -> Batch:
        docs = documents_of(self.documents(ids))
        order = {d: i for i, d in enumerate(ids)}
        rows = sorted(self._scan(_ids_expr(ids), ["doc_id", "chunk_no", "char_start",
                                                  "char_end", "tokens", "vector"]),
                      key=lambda r: (order[r["doc_id"]], r["chunk_no"]))
        chunks = [(r["doc_id"], r["chunk_no"], r["char_start"], r["char_end"],
                   r["tokens"].replace("_", "'")) for r in rows]
        vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
        return Batch([docs[d] for d in ids if d in docs], chunks,
                     vectors.reshape(len(rows), -1))

    def _scan(self, expr: str, fields: list[str]) -> list[dict]:
        """The chunk rows meeting `expr`, paged by chunk id (an integer: safe to page by)."""
        out: list[dict] = []
        it = self.client.query_iterator(self.chunks, batch_size=1000, filter=expr,
                                        output_fields=fields)
        try:
            while rows := it.next():
                out.extend(rows)
        finally:
            it.close()
        return out


def _ids_expr(ids: Sequence[str]) -> str:
    return f"doc_id in [{', '.join(quote(i) for i in ids)}]"


def open_side(target: str | Path) -> FolderSide | MilvusSide:
    if is_milvus(target):
        return MilvusSide(str(target))
    folder = check_path(target, "src", "a folder index or a milvus:// address")
    return FolderSide(folder)
