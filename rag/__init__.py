"""BERTScope for RAG applications: the retrieval step as a library.

    pack_context(hits, count_tokens, max_tokens, max_chunks_per_doc=2) -> Context
    context_for(index, query, max_tokens=512, k=20, mode="hybrid") -> Context
    highlight_spans(query, text) -> [(start, end)]   # the query's words in a hit's text

The LangChain and LlamaIndex retrievers (`rag.langchain`, `rag.llamaindex`) and the service's
client (`rag.client`) import their frameworks on use: `pip install -e .[rag]`.
"""

from .context import Context, ContextChunk, context_for, pack_context, token_counter
from .highlight import highlight_spans

__all__ = ["Context", "ContextChunk", "context_for", "highlight_spans", "pack_context",
           "token_counter"]
