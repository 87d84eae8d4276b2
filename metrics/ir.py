"""Retrieval metrics as pure functions: a run and qrels in, nDCG@k / Recall@k / MRR@k out.

Definitions follow trec_eval as pytrec_eval and BEIR compute them:
- a run is `{qid: {docid: score}}`; qrels are `{qid: {docid: relevance}}`;
- documents are ranked by score, ties broken by doc id, descending (trec_eval's order);
- nDCG@k uses linear gain (the qrel value) and log2(rank + 1) discount; the ideal ranking is the
  judged documents sorted by relevance; Recall@k and MRR@k count a document relevant when its
  qrel is > 0; MRR@k is 1/rank of the first relevant document in the top k (BEIR's MRR@k);
- scores are averaged over the queries present in both the run and the qrels (as BEIR does);
- with `ignore_identical_ids` a retrieved document whose id equals the query id is dropped first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]

__all__ = ["evaluate_run", "mrr_at_k", "ndcg_at_k", "recall_at_k"]


def _ranked(docs: Mapping[str, float], qid: str, ignore_identical_ids: bool) -> list[str]:
    items = [(d, s) for d, s in docs.items() if not (ignore_identical_ids and d == qid)]
    items.sort(key=lambda x: x[0], reverse=True)  # tie-break: doc id descending (stable sort)
    items.sort(key=lambda x: x[1], reverse=True)
    return [d for d, _ in items]


def _per_query(run: Run, qrels: Qrels, ignore_identical_ids: bool):
    for qid in sorted(set(run) & set(qrels)):
        yield _ranked(run[qid], qid, ignore_identical_ids), qrels[qid]


def _check_k(k: int) -> None:
    if k <= 0:
        raise ValueError(f"k must be >= 1, got {k}")


def _ndcg(ranked: list[str], rels: Mapping[str, int], k: int) -> float:
    gains = [max(rels.get(d, 0), 0) for d in ranked[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def _recall(ranked: list[str], rels: Mapping[str, int], k: int) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def _mrr(ranked: list[str], rels: Mapping[str, int], k: int) -> float:
    for i, d in enumerate(ranked[:k]):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def _mean(metric, run: Run, qrels: Qrels, k: int, ignore_identical_ids: bool) -> float:
    _check_k(k)
    values = [metric(r, q, k) for r, q in _per_query(run, qrels, ignore_identical_ids)]
    return sum(values) / len(values) if values else 0.0


def ndcg_at_k(run: Run, qrels: Qrels, k: int, *, ignore_identical_ids: bool = True) -> float:
    """Mean nDCG@k (trec_eval `ndcg_cut_k`)."""
    return _mean(_ndcg, run, qrels, k, ignore_identical_ids)


def recall_at_k(run: Run, qrels: Qrels, k: int, *, ignore_identical_ids: bool = True) -> float:
    """Mean Recall@k (trec_eval `recall_k`)."""
    return _mean(_recall, run, qrels, k, ignore_identical_ids)


def mrr_at_k(run: Run, qrels: Qrels, k: int, *, ignore_identical_ids: bool = True) -> float:
    """Mean reciprocal rank of the first relevant document within the top k (BEIR's MRR@k)."""
    return _mean(_mrr, run, qrels, k, ignore_identical_ids)


def evaluate_run(run: Run, qrels: Qrels, *, ignore_identical_ids: bool = True) -> dict[str, float]:
    """{"ndcg@10", "recall@100", "mrr@10"} for `run` against `qrels`."""
    kw = {"ignore_identical_ids": ignore_identical_ids}
    return {
        "ndcg@10": ndcg_at_k(run, qrels, 10, **kw),
        "recall@100": recall_at_k(run, qrels, 100, **kw),
        "mrr@10": mrr_at_k(run, qrels, 10, **kw),
    }
