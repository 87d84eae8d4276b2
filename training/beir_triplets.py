"""Retrieval training rows from a BEIR folder: (query, relevant document, BM25 hard negative).

The negatives are what BM25 ranks high for the query but the qrels do not mark relevant: the
documents a dense model must learn to push below the relevant one. `skip` drops the very top
non-relevant hits, which in sparsely judged sets (SciFact: ~1.1 judged documents a query) are
often unjudged positives. BM25 is `common.lexical`'s, the one the indexer searches with.
Queries are dealt into folds for cross-validation.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from common.atomic import write_atomic
from common.lexical import LexicalIndex, tokenize


def document_text(doc: dict) -> str:
    """What a model reads of a BEIR document: title, then text (as `evaluate --beir` encodes)."""
    return f"{doc['title']} {doc['text']}".strip() or "(empty)"


def assign_folds(qids: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """qid -> fold in 0..folds-1: a seeded shuffle dealt round-robin (fold sizes differ by <= 1)."""
    order = sorted(qids)
    random.Random(seed).shuffle(order)
    return {q: i % folds for i, q in enumerate(order)}


class Bm25:
    """BM25 over a BEIR corpus's documents (title + text), tokenised as the indexer's BM25 is
    (`common.lexical`: English stems without stop words, Chinese jieba words)."""

    def __init__(self, corpus: dict[str, dict]) -> None:
        self.ids = list(corpus)
        self.index = LexicalIndex.build(range(len(self.ids)),
                                        [tokenize(document_text(corpus[i])) for i in self.ids])

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        """Top-k (doc id, score) per query, best first; zero-score documents left out."""
        return [[(self.ids[pos], score) for pos, score in hits]
                for hits in self.index.search(queries, k)]


def mine_triplets(
    corpus: dict[str, dict],
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
    qids: Sequence[str],
    bm25: Bm25,
    *,
    per_query: int = 1,
    depth: int = 20,
    skip: int = 0,
    seed: int = 0,
) -> list[dict[str, str]]:
    """One row per (query, relevant document, negative): `per_query` negatives drawn (seeded)
    from BM25's top `depth`, relevant documents removed, the first `skip` of the rest passed
    over. A query whose candidates run out gets fewer negatives."""
    rng = random.Random(seed)
    qids = sorted(qids)
    hits = bm25.search([queries[q] for q in qids], depth)
    rows = []
    for qid, ranked in zip(qids, hits, strict=True):
        relevant = {d for d, rel in qrels.get(qid, {}).items() if rel > 0 and d in corpus}
        pool = [d for d, _ in ranked if d not in relevant][skip:]
        for doc in sorted(relevant):
            for neg in rng.sample(pool, min(per_query, len(pool))):
                rows.append({"anchor": queries[qid], "positive": document_text(corpus[doc]),
                             "negative": document_text(corpus[neg])})
    return rows


def write_jsonl(rows: list[dict], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with write_atomic(path, "w", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path
