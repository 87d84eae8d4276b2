"""Where the retrievers get hits and vectors: an index in this process (`LocalIndex`, over a
`SemanticIndex`) or one behind the service (`RemoteIndex`). Both return `indexer.Hit`s and
float32 arrays, so each framework's retriever is written once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from indexer import Hit, SemanticIndex

from .client import ServiceClient

__all__ = ["LocalIndex", "RemoteIndex", "Source", "as_source"]
MODES = {"bm25": "lexical"}  # the service's name for BM25 → the library's


class Source(Protocol):
    def search(self, query: str, k: int, *, mode: str, filter: dict | None) -> list[Hit]: ...

    def embed(self, texts: list[str], input_type: str | None) -> np.ndarray: ...


class LocalIndex:
    """`index` in this process; `readers` (`indexer.access`): only the documents those group or
    principal names may see are searched (None: every document)."""

    def __init__(self, index: SemanticIndex, readers: Iterable[str] | None = None) -> None:
        from indexer.access import check_readers

        self.index = index
        self.readers = check_readers(readers)

    def search(self, query: str, k: int, *, mode: str = "hybrid",
               filter: dict | None = None) -> list[Hit]:  # noqa: A002 - the library's name
        return self.index.search(query, k, mode=MODES.get(mode, mode), filter=filter,
                                 per_chunk=True, readers=self.readers)

    def embed(self, texts: list[str], input_type: str | None = None) -> np.ndarray:
        return self.index.encoder.encode(list(texts), prompt=input_type)


class RemoteIndex:
    """Index `name` of the service at `url` (its model embeds: the index's own vectors)."""

    def __init__(self, url: str, name: str, *, api_key: str | None = None,
                 client: ServiceClient | None = None) -> None:
        self.name = name
        self.client = client or ServiceClient(url, api_key=api_key)

    def search(self, query: str, k: int, *, mode: str = "hybrid",
               filter: dict | None = None) -> list[Hit]:  # noqa: A002
        options: dict[str, Any] = {"mode": mode, "per_chunk": True}
        if filter:
            options["filters"] = filter
        return self.client.search(self.name, query, k, **options)

    def embed(self, texts: list[str], input_type: str | None = None) -> np.ndarray:
        return self.client.embed(self.name, list(texts), input_type)


def as_source(index: SemanticIndex | Source, readers: Iterable[str] | None = None) -> Source:
    """A `Source` of `index`; `readers` restrict an index in this process (the service
    restricts a remote one by the caller's key)."""
    if isinstance(index, SemanticIndex):
        return LocalIndex(index, readers)
    if readers is not None:
        raise ValueError("readers= restricts an index opened in this process; the service "
                         "restricts its indexes by the caller's key (api_key=)")
    return index


def hit_metadata(hit: Hit) -> dict:
    """What a framework's document carries beside the text: the hit's metadata and place."""
    return {**hit.metadata, "doc_id": hit.doc_id, "chunk_id": hit.chunk_id, "title": hit.title,
            "score": hit.score, "rank": hit.rank, "start": hit.start, "end": hit.end}
