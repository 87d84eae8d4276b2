"""Reciprocal-rank fusion (Cormack et al. 2009), a pure function over ranked id lists."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

RRF_K = 60


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
    weights = [1.0] * len(rankings) if weights is None else list(weights)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    scores: dict[Hashable, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda x: x[1], reverse=True)
