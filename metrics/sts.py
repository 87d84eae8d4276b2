"""STS evaluation as the papers report it, as pure functions over arrays: Spearman and Pearson
correlation (x 100) between the cosine of paired sentence embeddings and the gold scores. Ties
get their average rank, as scipy's `spearmanr` gives them."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def paired_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, dim), (n, dim) -> (n,): the cosine of each row of `a` with the same row of `b`."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"need two (n, dim) arrays of one shape, got {a.shape} and {b.shape}")
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return (a * b).sum(axis=1) / np.maximum(norms, 1e-12)


def pearson(x, y) -> float:
    x, y = _pair(x, y)
    x, y = x - x.mean(), y - y.mean()
    denominator = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / denominator) if denominator > 0 else 0.0


def spearman(x, y) -> float:
    """Pearson correlation of the ranks (ties: average rank)."""
    x, y = _pair(x, y)
    return pearson(rankdata(x), rankdata(y))


def sts_scores(a: np.ndarray, b: np.ndarray, gold) -> dict[str, float]:
    """{"spearman", "pearson"} x 100 of cosine(a_i, b_i) against `gold`."""
    cosine = paired_cosine(a, b)
    return {"spearman": 100 * spearman(cosine, gold), "pearson": 100 * pearson(cosine, gold)}


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"need two 1-D sequences of one length >= 2, got {x.shape} and {y.shape}")
    return x, y
