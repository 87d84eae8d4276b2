"""LangChain: `BertscopeRetriever` (a `BaseRetriever`) and `BertscopeEmbeddings` (an
`Embeddings`), over an index in this process or one behind the service.

    retriever = BertscopeRetriever.from_index(SemanticIndex.open("indexes/bbc-news"), k=5)
    retriever = BertscopeRetriever.from_service("http://127.0.0.1:8000", "bbc-news",
                                                api_key=KEY)  # or BERTSCOPE_API_KEY
    docs = retriever.invoke("what did the central bank do?")   # list[Document]

Needs `langchain-core` (`pip install -e .[rag]`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("rag.langchain needs langchain-core: pip install -e .[rag]") from exc
from pydantic import ConfigDict

from .sources import RemoteIndex, Source, as_source, hit_metadata

__all__ = ["BertscopeEmbeddings", "BertscopeRetriever"]


class BertscopeRetriever(BaseRetriever):
    """Top-`k` chunks for a query (`mode`: dense, bm25 or hybrid; `filter`: metadata), each a
    `Document` whose metadata holds the hit's own plus doc_id, chunk_id, title, score, rank and
    the chunk's character span."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    source: Any
    k: int = 5
    mode: str = "hybrid"
    filter: dict | None = None

    @classmethod
    def from_index(cls, index, *, readers: Iterable[str] | None = None,
                   **options: Any) -> BertscopeRetriever:
        """Over `index` in this process; `readers`: only what those names may see."""
        return cls(source=as_source(index, readers), **options)

    @classmethod
    def from_service(cls, url: str, name: str, *, api_key: str | None = None,
                     **options: Any) -> BertscopeRetriever:
        return cls(source=RemoteIndex(url, name, api_key=api_key), **options)

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        source: Source = self.source
        hits = source.search(query, self.k, mode=self.mode, filter=self.filter)
        return [Document(page_content=h.text, metadata=hit_metadata(h),
                         id=f"{h.doc_id}#{h.chunk_id}") for h in hits]


class BertscopeEmbeddings(Embeddings):
    """The index's encoder as LangChain embeddings: queries with the model's query prompt,
    documents with its passage prompt (E5's; nothing for models without prompts)."""

    def __init__(self, source) -> None:
        self.source: Source = as_source(source)

    @classmethod
    def from_service(cls, url: str, name: str, **options: Any) -> BertscopeEmbeddings:
        return cls(RemoteIndex(url, name, **options))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self.source.embed(list(texts), "passage").tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.source.embed([text], "query")[0].tolist()
