"""LlamaIndex: `BertscopeRetriever` (a `BaseRetriever`) and `BertscopeEmbedding` (a
`BaseEmbedding`), over an index in this process or one behind the service.

    retriever = BertscopeRetriever.from_service("http://127.0.0.1:8000", "bbc-news", k=5,
                                                api_key=KEY)  # or BERTSCOPE_API_KEY
    nodes = retriever.retrieve("what did the central bank do?")   # list[NodeWithScore]

Needs `llama-index-core` (`pip install -e .[rag]`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

try:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("rag.llamaindex needs llama-index-core: pip install -e .[rag]") from exc
from pydantic import PrivateAttr

from .sources import RemoteIndex, Source, as_source, hit_metadata

__all__ = ["BertscopeEmbedding", "BertscopeRetriever"]


class BertscopeRetriever(BaseRetriever):
    """Top-`k` chunks as `NodeWithScore`s (node id `doc_id#chunk_id`, metadata as in
    `rag.sources.hit_metadata`)."""

    def __init__(self, source, *, k: int = 5, mode: str = "hybrid",
                 filter: dict | None = None,  # noqa: A002
                 readers: Iterable[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source: Source = as_source(source, readers)
        self.k, self.mode, self.filter = k, mode, filter

    @classmethod
    def from_service(cls, url: str, name: str, *, api_key: str | None = None,
                     **options: Any) -> BertscopeRetriever:
        return cls(RemoteIndex(url, name, api_key=api_key), **options)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.source.search(query_bundle.query_str, self.k, mode=self.mode,
                                  filter=self.filter)
        return [NodeWithScore(node=TextNode(text=h.text, id_=f"{h.doc_id}#{h.chunk_id}",
                                            metadata=hit_metadata(h)), score=h.score)
                for h in hits]


class BertscopeEmbedding(BaseEmbedding):
    """The index's encoder as a LlamaIndex embedding (query / passage prompts as the model
    has them)."""

    _source: Any = PrivateAttr()

    def __init__(self, source, **kwargs: Any) -> None:
        kwargs.setdefault("model_name", "bertscope")
        super().__init__(**kwargs)
        self._source = as_source(source)

    @classmethod
    def from_service(cls, url: str, name: str, **options: Any) -> BertscopeEmbedding:
        return cls(RemoteIndex(url, name, **options), model_name=name)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._source.embed([query], "query")[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._source.embed([text], "passage")[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._source.embed(list(texts), "passage").tolist()
