"""The streamed BM25 build (`common.bm25_build`) scores exactly as bm25s's own `index` does, and
the lexical index's query scoring equals bm25s's `get_scores`."""

from __future__ import annotations

import bm25s
import numpy as np

from common.bm25_build import build_bm25
from common.lexical import Bm25Params, LexicalIndex, tokenize

TEXTS = ["Crude oil prices rose as OPEC cut output.", "The striker scored twice in the final.",
         "", "oil oil oil, and more oil: prices prices.", "苹果发布了新手机。苹果很好吃。",
         "Rates rose again; the central bank raised interest rates.", "a the of",
         "Apple released a phone with a new chip, and apple pie is sweet."] * 7


def test_streamed_build_equals_bm25s_index_bit_for_bit():
    tokens = [tokenize(t) for t in TEXTS]
    for k1, b in ((1.5, 0.75), (0.9, 0.4), (1.2, 1.0)):
        reference = bm25s.BM25(k1=k1, b=b)
        reference.index([t or [""] for t in tokens], show_progress=False)
        built = build_bm25(iter(tokens), k1, b)
        assert set(built.vocab_dict) == set(reference.vocab_dict)
        for query in ("oil prices", "apple phone", "苹果", "interest rates rose", "zebra"):
            q = tokenize(query)
            assert np.array_equal(built.get_scores(q or [""]), reference.get_scores(q or [""]))


def test_lexical_scores_equal_bm25s_get_scores_with_and_without_a_mask():
    tokens = [tokenize(t) for t in TEXTS]
    index = LexicalIndex.build(range(len(tokens)), tokens, Bm25Params())
    mask = (np.arange(len(tokens)) % 3 == 0).astype(np.float32)
    for query in ("oil prices oil", "apple", "苹果 手机"):
        q = tokenize(query)
        for weights in (None, mask):
            assert np.array_equal(index._scores(q, weights),
                                  index.retriever.get_scores(q, weight_mask=weights))
    allowed = np.zeros(len(tokens) + 5, dtype=bool)
    allowed[::3] = True
    hits = index.search(["oil"], 100, allowed)[0]
    assert hits and all(i % 3 == 0 for i, _ in hits)
    assert hits == index.search(["oil"], 100, set(range(0, len(tokens), 3)))[0]


def test_rows_stream_in_and_an_empty_store_gives_an_empty_index():
    rows = [(10 + i, " ".join(tokenize(t))) for i, t in enumerate(TEXTS)]
    index = LexicalIndex.from_rows(iter(rows))
    assert index.ids.tolist() == [r[0] for r in rows]
    assert (index.search(["oil"], 3)[0][0][0] - 10) % len(set(TEXTS)) == 3  # "oil oil oil..."
    assert len(LexicalIndex.from_rows(iter([]))) == 0
