"""`StoredBatch`: documents with their chunk rows and vectors exactly as an index stores them,
the same from every store (`SemanticIndex.stored`): what a migration copies and compares, and
what a re-index keeps the chunking of."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .documents import Document

ChunkRow = tuple[str, int, int, int, str]  # (doc_id, chunk_no, start, end, BM25 tokens)


@dataclass
class StoredBatch:
    docs: list[Document]
    chunks: list[ChunkRow]  # in document order, then chunk number
    vectors: np.ndarray  # (len(chunks), dim) float32

    def spans(self) -> dict[str, list[tuple[int, int]]]:
        """{doc_id: [(start, end), ...]} in chunk order: the chunking of these documents."""
        out: dict[str, list[tuple[int, int]]] = {d.id: [] for d in self.docs}
        for doc_id, _, start, end, _ in self.chunks:
            out[doc_id].append((start, end))
        return out
