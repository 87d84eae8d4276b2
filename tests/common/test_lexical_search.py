"""`LexicalIndex.search` ranks as bm25s's own `retrieve` does (the same scores, best first), with
and without a filter, and breaks ties by position (chunk id order), where bm25s's partition
leaves them in no stated order: it scores with bm25s's arrays and picks the top k among the
chunks a query touched, skipping `retrieve`'s per-call overhead."""

from __future__ import annotations

import random

import numpy as np

from common.lexical import LexicalIndex, tokenize

WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "grape"]


def corpus(n: int = 80) -> list[list[str]]:
    rng = random.Random(3)  # few words, short texts: many tied scores
    return [tokenize(" ".join(rng.choices(WORDS, k=rng.randint(1, 4)))) for _ in range(n)]


def oracle(index: LexicalIndex, query: str, k: int, allowed: set[int] | None):
    mask = None
    if allowed is not None:
        mask = np.isin(index.ids, np.fromiter(allowed, dtype=np.int64)).astype(np.float32)
    everything = len(index.ids)
    docs, scores = index.retriever.retrieve([tokenize(query)], k=everything,
                                            show_progress=False, weight_mask=mask, n_threads=0)
    ranked = sorted(((float(s), int(d)) for d, s in zip(docs[0], scores[0], strict=True)
                     if s > 0), key=lambda p: (-p[0], p[1]))  # ties by position
    return [(int(index.ids[d]), s) for s, d in ranked[:k]]


def test_search_matches_bm25s_retrieve_with_ties_and_filters():
    tokens = corpus()
    index = LexicalIndex.build([1000 + 3 * i for i in range(len(tokens))], tokens)
    allowed = {1000 + 3 * i for i in range(0, len(tokens), 2)}
    queries = ["apple", "pear plum", "fig fig kiwi", "grape date lime apple", "unknownword"]
    tied = 0
    for query in queries:
        for k in (1, 5, 40, len(tokens)):
            for subset in (None, allowed):
                got = index.search([query], k, subset)[0]
                assert got == oracle(index, query, k, subset), (query, k, subset is None)
                scores = [s for _, s in got]
                tied += len(scores) - len(set(scores))
    assert tied > 0  # the corpus does exercise the order of tied scores


def test_a_batch_answers_each_query_as_alone_and_stop_words_find_nothing():
    tokens = corpus()
    index = LexicalIndex.build(list(range(len(tokens))), tokens)
    batch = index.search(["apple pear", "the of and", "kiwi"], 7)
    assert batch[0] == index.search(["apple pear"], 7)[0] and batch[0]
    assert batch[1] == []
    assert batch[2] == index.search(["kiwi"], 7)[0] and batch[2]
