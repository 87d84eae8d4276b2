"""bench/kit/timing_stats.py, as invariants: the effect size is symmetric and 0.5 for equal
samples; separated samples are told apart; the samples an observer needs fall as the effect grows
and invert the smallest detectable effect."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.kit.timing_stats import (
    compare,
    detectable_auc,
    permutation_p,
    samples_to_tell,
    superiority,
)


def test_equal_samples_show_no_effect_and_the_effect_is_symmetric():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=200), rng.normal(0.3, size=150)
    assert superiority(x, x) == 0.5
    assert superiority(x, y) + superiority(y, x) == pytest.approx(1.0)
    assert superiority(x + 100, x) == 1.0 and superiority(x, x + 100) == 0.0
    assert compare(list(x), list(x))["p"] == pytest.approx(1.0)


def test_separated_samples_are_told_apart_and_need_few_samples():
    rng = np.random.default_rng(1)
    x, y = rng.normal(10, 1, 100), rng.normal(0, 1, 100)
    result = compare(list(x), list(y))
    assert result["p"] < 1e-6 and result["auc"] > 0.99
    assert result["diff_lo"] <= result["diff_ms"] <= result["diff_hi"]
    assert 0 < permutation_p(x, y, rounds=200) < 0.01
    assert result["samples_to_tell"] < 10


def test_the_samples_to_tell_fall_as_the_effect_grows_and_invert_the_detectable_effect():
    assert samples_to_tell(0.5) == math.inf
    needs = [samples_to_tell(0.5 + gap) for gap in (0.01, 0.05, 0.1, 0.3)]
    assert needs == sorted(needs, reverse=True)
    assert samples_to_tell(0.4) == samples_to_tell(0.6)  # faster or slower, the same
    for n in (20, 300, 5000):
        assert samples_to_tell(0.5 + detectable_auc(n)) == pytest.approx(n, abs=1)
