"""Choosing fusion weights by cross-validation over queries, as pure functions over runs.

A run is {qid: {doc_id: score}}. For a grid of weight vectors, each query's nDCG@10 is computed
once per weight vector; a fold's weights are the grid point with the best mean over the *other*
folds' queries, and its queries are then scored with those weights. The pooled figure therefore
never uses a query to choose the weights it is scored with.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence

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


def cross_validate(runs: Sequence[Run], qrels: dict[str, dict[str, int]], method: str,
                   grid: Sequence[tuple[float, ...]], **options) -> dict:
    """`cross_validate_configs` over one set of runs (`options`: folds, seed, progress):
    {"scores": pooled metrics, "weights": chosen per fold, "run": fused run}."""
    res = cross_validate_configs({"": runs}, qrels, method, grid, **options)
    return {"scores": res["scores"], "run": res["run"],
            "weights": {k: w for k, (_, w) in res["chosen"].items()},
            "grid_best_in_sample": res["in_sample"][1]}


def cross_validate_configs(
    configs: Mapping[str, Sequence[Run]],
    qrels: dict[str, dict[str, int]],
    method: str,
    grid: Sequence[tuple[float, ...]],
    *,
    folds: int = 5,
    seed: int = 15,
    progress: Callable[[str], None] = lambda _: None,
) -> dict:
    """`cross_validate` over several named sets of runs as well as the weights (BM25 at several
    k1, b, say): a fold's (set, weights) pair is the best over the *other* folds' queries.

    {"scores", "run", "chosen": {fold: (name, weights)}, "in_sample": best pair over all}.
    """
    qids = sorted(set(qrels) & set().union(*(r for runs in configs.values() for r in runs)))
    per_query = {}  # (name, weights) -> {qid: nDCG@10}
    for name, runs in configs.items():
        for i, w in enumerate(grid):
            per_query[name, w] = {q: ndcg_at_k({q: fuse(runs, q, method, w)}, {q: qrels[q]}, 10)
                                  for q in qids}
            if i % 10 == 0:
                progress(f"{method} {name}: {i + 1}/{len(grid)} weight vectors")
    fold = folds_of(qids, folds, seed)
    chosen, fused = {}, {}
    for k in range(folds):
        train = [q for q in qids if fold[q] != k]
        name, w = max(per_query, key=lambda c: sum(per_query[c][q] for q in train))
        chosen[k] = (name, list(w))
        for q in qids:
            if fold[q] == k:
                fused[q] = fuse(configs[name], q, method, w)
    name, w = max(per_query, key=lambda c: sum(per_query[c].values()))
    return {"scores": evaluate_run(fused, qrels), "chosen": chosen, "run": fused,
            "in_sample": (name, list(w))}


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
