"""Fusing ranked lists from several retrievers (BM25, dense encoders): pure functions.

- `rrf`: reciprocal-rank fusion (Cormack et al. 2009): uses only ranks.
- `convex`: a weighted sum of per-query normalised scores (Bruch et al. 2023, "An Analysis of
  Fusion Functions for Hybrid Retrieval"), normalised by `min-max` or `z-score` within each
  list; an item missing from a list gets that list's lowest normalised score (as if it ranked
  last there).
- `fuse`: either of them by name, as `SemanticIndex.search(mode="hybrid", fusion=...)` calls it.
- `check_weights`: the one check of fusion weights (all three above, and the search's
  `weights=`), so a bad weight reads the same wherever it is given.

The hybrid default (`DEFAULT_FUSION`, `DEFAULT_WEIGHTS`) is what bench/fusion.py measured best on
SciFact train queries, weights chosen by cross-validation (bench/results/fusion.md).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from operator import itemgetter

RRF_K = 60
NORMALISATIONS = ("minmax", "zscore")
FUSIONS = ("rrf", *NORMALISATIONS)
# On SciFact train (BM25 + minilm, weights chosen by 5-fold CV: bench/results/fusion.md) both
# convex fusions beat RRF and tie with each other, and z-score's best weights are the even ones
# (less fitted to one corpus), so it is the default.
DEFAULT_FUSION = "zscore"
# (dense, lexical) weights per fusion when the caller gives none: the grid point best over all
# the train queries (RRF keeps its customary equal weights)
DEFAULT_WEIGHTS: dict[str, tuple[float, float]] = {
    "rrf": (1.0, 1.0),
    "minmax": (0.4, 0.6),
    "zscore": (0.5, 0.5),
}
Scored = Sequence[tuple[Hashable, float]]  # (id, score), best first


def rrf(
    rankings: Sequence[Sequence[Hashable]],
    *,
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[Hashable, float]]:
    """Fuse best-first rankings: score(d) = Σ_i w_i / (k + rank_i(d)), ranks from 1.

    Returns (id, score) best first; ties keep first-seen order.
    """
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    weights = check_weights(weights, len(rankings))
    if not math.isfinite(sum(weights)):  # only their ratio orders the items: keep scores finite
        weights = [w / max(weights) for w in weights]
    scores: dict[Hashable, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda x: x[1], reverse=True)


def normalise(scores: Sequence[float], method: str = "minmax") -> list[float]:
    """Scores of one query's list on a common scale.

    `minmax`: (s - min) / (max - min), so the best is 1 and the worst 0 (all 1 when every score
    is equal); `zscore`: (s - mean) / std with the population std (all 0 when it is 0).
    """
    if method not in NORMALISATIONS:
        raise ValueError(f"Invalid normalisation {method!r}. Valid: {', '.join(NORMALISATIONS)}")
    xs = [float(s) for s in scores]
    if not xs:
        return []
    if method == "minmax":
        low, high = min(xs), max(xs)
        return [1.0] * len(xs) if high == low else [(x - low) / (high - low) for x in xs]
    mean = sum(xs) / len(xs)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
    return [0.0] * len(xs) if std == 0 else [(x - mean) / std for x in xs]


def convex(
    runs: Sequence[Scored],
    weights: Sequence[float] | None = None,
    *,
    norm: str = "minmax",
) -> list[tuple[Hashable, float]]:
    """score(d) = Σ_i w_i · n_i(d) / Σ_i w_i, n_i = `normalise` of list i, for an item missing
    from list i the lowest n_i of that list: a convex combination (the weights are relative,
    so (1, 1) and (0.5, 0.5) give the same scores, on the normalised scale, and no weight makes
    a score overflow).

    Returns (id, score) best first; ties keep first-seen order.
    """
    weights = _relative(check_weights(weights, len(runs)))
    order = list(dict.fromkeys(i for run in runs for i, _ in run))  # first seen first
    terms = []  # per list, each item's weighted normalised score, in `order`
    for run, w in zip(runs, weights, strict=True):
        values = normalise([s for _, s in run], norm)
        get = dict(zip((i for i, _ in run), values, strict=True)).get
        floor = min(values) if values else 0.0
        terms.append([w * get(item, floor) for item in order])
    # sum() of each item's terms in list order: the same floats as summing item by item
    fused = zip(order, map(sum, zip(*terms, strict=True)), strict=True) if terms else ()
    return sorted(fused, key=itemgetter(1), reverse=True)


def _relative(weights: list[float]) -> list[float]:
    """`weights` scaled to sum to 1 (by their largest first: a sum of huge weights is inf)."""
    top = max(weights)
    scaled = [w / top for w in weights]
    return [w / sum(scaled) for w in scaled]


def fuse(
    runs: Sequence[Scored],
    method: str = DEFAULT_FUSION,
    weights: Sequence[float] | None = None,
    *,
    rrf_k: int = RRF_K,
) -> list[tuple[Hashable, float]]:
    """Fuse best-first (id, score) lists by `method`: "rrf" (ranks only; `rrf_k`) or "minmax" /
    "zscore" (`convex` of normalised scores)."""
    if method not in FUSIONS:
        raise ValueError(f"Invalid fusion {method!r}. Valid: {', '.join(FUSIONS)}")
    if method == "rrf":
        return rrf([[i for i, _ in run] for run in runs], k=rrf_k, weights=weights)
    return convex(runs, weights, norm=method)


def check_weights(weights: Sequence[float] | None, n: int,
                  names: Sequence[str] | None = None) -> list[float]:
    """One weight per fused list: finite numbers >= 0, not all 0; None gives every list 1.

    `names` label the lists in the messages (the search passes ("dense", "lexical")). Raises a
    `ValueError` naming the bad weight and showing a good value.
    """
    if weights is None:
        return [1.0] * n
    labels = list(names) if names else [f"weight {i + 1} of {n}" for i in range(n)]
    if isinstance(weights, (str, bytes, dict)) or not hasattr(weights, "__len__") or \
            len(weights) != n:
        what = f"a pair ({', '.join(names)})" if names and n == 2 else \
            f"{n} numbers ({', '.join(names)})" if names else f"{n} numbers, one per list,"
        example = "(" + ", ".join(["1.0"] * n) + ")"
        raise ValueError(f"weights must be {what} like {example}, got {weights!r}")
    out = []
    for label, w in zip(labels, weights, strict=True):
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w) \
                or w < 0:
            label = f"the {label} weight" if names else label
            raise ValueError(f"weights: {label} must be a finite number >= 0, got {w!r}")
        out.append(float(w))
    if not any(out):
        shown = "(" + ", ".join(f"{w:g}" for w in out) + ")"
        raise ValueError(f"weights {shown} give every hit score 0: make at least one positive")
    return out


def score_scale(mode: str, fusion: str = DEFAULT_FUSION) -> str:
    """What a hit's score means for `mode` (and, for hybrid, `fusion`), in a sentence a person
    can read beside the number."""
    if mode == "dense":
        return "Score: the cosine of the query's and the chunk's vectors (1 = same direction)."
    if mode == "lexical":
        return ("Score: BM25, which grows with matching rare words; compare it only within one "
                "query.")
    if fusion == "zscore":
        return ("Score: the dense and BM25 scores, each counted in standard deviations above "
                "this query's candidates, then averaged: 0 is an average candidate, 2 stands "
                "well above the rest.")
    if fusion == "minmax":
        return ("Score: the dense and BM25 scores, each rescaled to 0 (this query's worst "
                "candidate) .. 1 (its best), then averaged.")
    return ("Score: reciprocal-rank fusion, the sum of 1 / (k + rank) over the dense and BM25 "
            "lists: only the order means something.")
