"""Context packing: deduplicated, at most N chunks per document, in rank order, within the token
budget (a tokenizer that counts words here, the encoder's in the service tests); highlights."""

from __future__ import annotations

import pytest

from indexer import Hit
from rag import highlight_spans, pack_context


def hit(rank: int, doc: str, text: str) -> Hit:
    return Hit(doc, rank * 10, 1.0 / rank, rank, text, f"T{doc}", 0, len(text), {"src": doc})


def words(text: str) -> int:
    return len(text.split())


HITS = [hit(1, "a", "one two three"), hit(2, "a", "four five six"), hit(3, "a", "seven eight"),
        hit(4, "b", "One  two THREE"), hit(5, "c", "a long chunk of ten words that will not fit"),
        hit(6, "d", "short one")]


def test_dedupe_per_document_cap_and_budget_in_rank_order():
    ctx = pack_context(HITS, words, max_tokens=20, max_chunks_per_doc=2)
    assert [c.rank for c in ctx.chunks] == [1, 2, 6]
    assert ctx.skipped == {"duplicate": 1, "per_doc": 1, "budget": 1}
    assert [c.citation for c in ctx.chunks] == [1, 2, 3]
    assert ctx.prompt == "[1] Ta\none two three\n\n[2] Ta\nfour five six\n\n[3] Td\nshort one"
    assert ctx.tokens == words(ctx.prompt) <= 20
    assert ctx.chunks[0].metadata == {"src": "a"}


def test_a_budget_too_small_for_any_chunk_gives_an_empty_context():
    ctx = pack_context(HITS, words, max_tokens=3)
    assert ctx.chunks == [] and ctx.prompt == "" and ctx.tokens == 0


def test_a_tokenizer_that_counts_separators_is_still_within_budget():
    def chars(text: str) -> int:  # the "\n\n" between blocks costs 2
        return len(text)

    budget = len("[1] Ta\none two three") + len("[2] Ta\nfour five six")
    ctx = pack_context(HITS[:2], chars, max_tokens=budget)
    assert ctx.tokens <= budget and len(ctx.chunks) == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "5"])
def test_bad_budgets_are_refused(bad):
    with pytest.raises(ValueError, match="max_tokens"):
        pack_context(HITS, words, max_tokens=bad)
    with pytest.raises(ValueError, match="max_chunks_per_doc"):
        pack_context(HITS, words, max_tokens=10, max_chunks_per_doc=bad)


def test_highlights_mark_the_query_words_stemmed():
    text = "Cats were running; a cat runs. The dog sat."
    spans = highlight_spans("running cat", text)
    assert [text[s:e] for s, e in spans] == ["Cats", "running", "cat", "runs"]
    assert highlight_spans("the a", text) == []  # stopwords only: nothing to mark
    assert [("苹果好吃"[s:e]) for s, e in highlight_spans("苹果", "苹果好吃")] == ["苹果"]
