"""Whether two samples of response times differ, and how much an observer would need to tell
them apart: pure functions over lists of milliseconds (bench/access_timing/ is their user).

`compare(x, y)` gives the medians' ratio, the median difference with a bootstrap interval, a
two-sample test (Mann-Whitney U from scipy where installed, else a permutation test on the
difference of medians) and the effect as a probability of superiority, P(x > y) + P(x = y) / 2
(0.5: no effect). `samples_to_tell(auc)` turns that effect into the samples per condition a
one-sided observer needs (Noether's formula for the U test); `detectable_auc(n)` is the smallest
effect that n samples per condition would show."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

ALPHA, POWER = 0.05, 0.8


def quantile(values, q: float) -> float:
    return float(np.quantile(np.asarray(values, dtype=float), q))


def superiority(x, y) -> float:
    """P(X > Y) + P(X = Y) / 2 over every pair: the U statistic of x over len(x) * len(y)."""
    x, y = np.sort(np.asarray(x, dtype=float)), np.sort(np.asarray(y, dtype=float))
    below = np.searchsorted(y, x, side="left")  # y values under each x
    equal = np.searchsorted(y, x, side="right") - below
    return float((below.sum() + 0.5 * equal.sum()) / (len(x) * len(y)))


def permutation_p(x, y, rounds: int = 2000, seed: int = 0) -> float:
    """Two-sided p of the difference of medians under random relabelling (with the +1 that
    keeps it above zero)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    both, rng = np.concatenate([x, y]), np.random.default_rng(seed)
    seen = abs(np.median(x) - np.median(y))
    hits = 0
    for _ in range(rounds):
        rng.shuffle(both)
        hits += abs(np.median(both[:len(x)]) - np.median(both[len(x):])) >= seen
    return (hits + 1) / (rounds + 1)


def two_sample_p(x, y) -> tuple[str, float]:
    """(test name, two-sided p): Mann-Whitney U where scipy is installed, else permutation."""
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return "permutation of medians", permutation_p(x, y)
    return "Mann-Whitney U", float(mannwhitneyu(x, y, alternative="two-sided").pvalue)


def median_difference(x, y, rounds: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """median(x) - median(y) and its 95 % bootstrap interval (percentiles)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    rng = np.random.default_rng(seed)
    boot = [np.median(rng.choice(x, len(x))) - np.median(rng.choice(y, len(y)))
            for _ in range(rounds)]
    return (float(np.median(x) - np.median(y)), float(np.quantile(boot, 0.025)),
            float(np.quantile(boot, 0.975)))


def _z(alpha: float, power: float) -> float:
    return NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)


def samples_to_tell(auc: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """Samples per condition for a two-sided U test at `alpha` to see an effect `auc` with
    probability `power` (Noether 1987, equal groups); inf when there is no effect."""
    gap = abs(auc - 0.5)
    return math.inf if gap == 0 else math.ceil(_z(alpha, power) ** 2 / (6 * gap ** 2))


def detectable_auc(n: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest |auc - 0.5| that n samples per condition detect (Noether, inverted)."""
    return _z(alpha, power) / math.sqrt(6 * n)


def compare(x, y) -> dict:
    """x against y (milliseconds): medians, p95s, ratio of medians, median difference with its
    interval, the test and its p, the effect and the samples an observer would need."""
    name, p = two_sample_p(x, y)
    diff, lo, hi = median_difference(x, y)
    auc = superiority(x, y)
    return {"median_x": quantile(x, 0.5), "median_y": quantile(y, 0.5),
            "p95_x": quantile(x, 0.95), "p95_y": quantile(y, 0.95),
            "ratio": quantile(x, 0.5) / quantile(y, 0.5), "diff_ms": diff, "diff_lo": lo,
            "diff_hi": hi, "test": name, "p": p, "auc": auc,
            "samples_to_tell": samples_to_tell(auc), "n": min(len(x), len(y))}
