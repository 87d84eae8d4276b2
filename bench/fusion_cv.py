"""Choosing fusion weights by cross-validation over queries, as pure functions over runs.

A run is {qid: {doc_id: score}}. For a grid of weight vectors, each query's nDCG@10 is computed
once per weight vector; a fold's weights are the grid point with the best mean over the *other*
folds' queries, and its queries are then scored with those weights. The pooled figure therefore
never uses a query to choose the weights it is scored with.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence

from indexer.fusion import convex, rrf
from metrics import evaluate_run, ndcg_at_k

Run = dict[str, dict[str, float]]


def ranked(docs: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(docs.items(), key=lambda x: (-x[1], x[0]))


def fuse(runs: Sequence[Run], qid: str, method: str, weights: Sequence[float],
         depth: int = 100) -> dict[str, float]:
    """One query's fused top-`depth`: `rrf` (k=60) or `minmax` / `zscore` convex combination."""
    lists = [ranked(r.get(qid, {})) for r in runs]
    if method == "rrf":
        fused = rrf([[d for d, _ in lst] for lst in lists], weights=weights)
    else:
        fused = convex(lists, weights, norm=method)
    return dict(fused[:depth])


def simplex(n: int, step: float) -> list[tuple[float, ...]]:
    """Weight vectors of `n` non-negative parts summing to 1, on a grid of `step`."""
    units = round(1 / step)
    return [tuple(c / units for c in combo) for combo in itertools.product(range(units + 1),
                                                                            repeat=n)
            if sum(combo) == units]


def folds_of(qids: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    order = sorted(qids)
    random.Random(seed).shuffle(order)
    return {q: i % folds for i, q in enumerate(order)}


def cross_validate(
    runs: Sequence[Run],
    qrels: dict[str, dict[str, int]],
    method: str,
    grid: Sequence[tuple[float, ...]],
    *,
    folds: int = 5,
    seed: int = 15,
    progress: Callable[[str], None] = lambda _: None,
) -> dict:
    """{"scores": pooled metrics, "weights": chosen per fold, "run": fused run}."""
    qids = sorted(set(qrels) & set().union(*runs))
    per_query = {}  # weights -> {qid: nDCG@10}
    for i, w in enumerate(grid):
        per_query[w] = {q: ndcg_at_k({q: fuse(runs, q, method, w)}, {q: qrels[q]}, 10)
                        for q in qids}
        if i % 10 == 0:
            progress(f"{method}: {i + 1}/{len(grid)} weight vectors")
    fold = folds_of(qids, folds, seed)
    chosen, fused = {}, {}
    for k in range(folds):
        train = [q for q in qids if fold[q] != k]
        best = max(grid, key=lambda w: sum(per_query[w][q] for q in train))
        chosen[k] = list(best)
        for q in qids:
            if fold[q] == k:
                fused[q] = fuse(runs, q, method, best)
    return {"scores": evaluate_run(fused, qrels), "weights": chosen, "run": fused,
            "grid_best_in_sample": list(max(grid, key=lambda w: sum(per_query[w].values())))}


def paired_bootstrap(a: Run, b: Run, qrels: dict[str, dict[str, int]], *, samples: int = 2000,
                     seed: int = 15) -> dict[str, float]:
    """Mean per-query nDCG@10 of `a` minus `b` over the judged queries, with a 95% interval from
    resampling the queries (paired: both runs see the same resample)."""
    qids = sorted(set(qrels) & set(a) & set(b))
    diffs = [ndcg_at_k({q: a[q]}, {q: qrels[q]}, 10) - ndcg_at_k({q: b[q]}, {q: qrels[q]}, 10)
             for q in qids]
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(diffs, k=len(diffs))) / len(diffs) for _ in range(samples))
    return {"delta": sum(diffs) / len(diffs), "low": means[int(0.025 * samples)],
            "high": means[int(0.975 * samples) - 1], "better": sum(d > 0 for d in diffs),
            "worse": sum(d < 0 for d in diffs)}
