"""The RAG retrieval step: hits → a context that fits an LLM's token budget. Hits are
deduplicated (the same text twice says nothing new), at most `max_chunks_per_doc` per document,
and packed in rank order while they fit the budget, counted with the index encoder's tokenizer;
each gets a citation number, and the prompt block cites them as "[1] …\n\n[2] …": a chunk of a
user's file by where a reader finds it ("[1] reports/annual-2023.pdf, p. 2",
"[2] notes/setup.md, § Install > Linux"), a corpus row by its title."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from common.documents import citation

__all__ = ["Context", "ContextChunk", "context_for", "pack_context", "token_counter"]


@dataclass(frozen=True)
class ContextChunk:
    citation: int  # 1-based, in the prompt as [citation]
    doc_id: str
    chunk_id: int
    title: str
    text: str
    score: float
    rank: int  # the hit's rank in the search
    start: int  # character offsets of the chunk in its document
    end: int
    tokens: int  # of its block in the prompt
    metadata: dict[str, Any] = field(default_factory=dict)
    cite: str = ""  # what follows [citation]: "reports/a.pdf, p. 2", "notes.md, § Setup", a title


@dataclass(frozen=True)
class Context:
    prompt: str  # "[1] Title\ntext\n\n[2] …"
    chunks: list[ContextChunk]
    tokens: int  # of `prompt`, counted with the tokenizer given (at most the budget)
    max_tokens: int
    skipped: dict[str, int]  # hits left out: duplicate, per_doc, budget

    def to_dict(self) -> dict:
        return asdict(self)


def token_counter(encoder) -> Callable[[str], int]:
    """Tokens of a text as `encoder`'s tokenizer counts them (no special tokens)."""
    tokenizer = encoder.tokenizer

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False, truncation=False,
                             verbose=False)["input_ids"])

    return count


def label(hit) -> str:
    """How the prompt names a hit: its file, page and section (`common.documents.citation`),
    else its title."""
    return citation(hit.metadata, hit.title) if hit.metadata.get("source") else hit.title


def block(number: int, cite: str, text: str) -> str:
    head = f"[{number}] {cite}".rstrip()
    return f"{head}\n{text}"


def pack_context(hits: Sequence, count_tokens: Callable[[str], int], max_tokens: int,
                 max_chunks_per_doc: int = 2) -> Context:
    """Pack `hits` (`indexer.Hit`s, best first) into at most `max_tokens` tokens."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
    if isinstance(max_chunks_per_doc, bool) or not isinstance(max_chunks_per_doc, int) \
            or max_chunks_per_doc < 1:
        raise ValueError(f"max_chunks_per_doc must be a positive integer, got "
                         f"{max_chunks_per_doc!r}")
    seen: set[str] = set()
    per_doc: dict[str, int] = {}
    skipped = {"duplicate": 0, "per_doc": 0, "budget": 0}
    chosen: list[ContextChunk] = []
    used = 0
    for hit in hits:
        key = " ".join(hit.text.split()).lower()
        if key in seen:
            skipped["duplicate"] += 1
            continue
        if per_doc.get(hit.doc_id, 0) >= max_chunks_per_doc:
            skipped["per_doc"] += 1
            continue
        number, cite = len(chosen) + 1, label(hit)
        tokens = count_tokens(block(number, cite, hit.text))
        if used + tokens > max_tokens:
            skipped["budget"] += 1
            continue
        seen.add(key)
        per_doc[hit.doc_id] = per_doc.get(hit.doc_id, 0) + 1
        used += tokens
        chosen.append(ContextChunk(number, hit.doc_id, hit.chunk_id, hit.title, hit.text,
                                   float(hit.score), hit.rank, hit.start, hit.end, tokens,
                                   dict(hit.metadata), cite))
    prompt = "\n\n".join(block(c.citation, c.cite, c.text) for c in chosen)
    total = count_tokens(prompt) if chosen else 0
    while total > max_tokens:  # a tokenizer that counts the separators: drop from the end
        chosen.pop()
        skipped["budget"] += 1
        prompt = "\n\n".join(block(c.citation, c.cite, c.text) for c in chosen)
        total = count_tokens(prompt) if chosen else 0
    return Context(prompt, chosen, total, max_tokens, skipped)


def context_for(index, query: str, max_tokens: int = 512, *, k: int = 20,
                mode: str = "hybrid", max_chunks_per_doc: int = 2, **search: Any) -> Context:
    """Search `index` (a `SemanticIndex`) per chunk for `query` and pack the hits; `search`:
    more of `index.search`'s arguments (filter, weights, fusion)."""
    hits = index.search(query, k, mode=mode, per_chunk=True, **search)
    return pack_context(hits, token_counter(index.encoder), max_tokens, max_chunks_per_doc)
