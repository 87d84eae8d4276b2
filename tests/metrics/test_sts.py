"""metrics.sts: Spearman and Pearson against scipy, ties, and paired cosines."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from metrics import paired_cosine, pearson, spearman, sts_scores


def test_correlations_agree_with_scipy_including_ties():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 6, 200).astype(float)  # many ties
    y = x + rng.normal(0, 2, 200)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
    assert pearson(x, y) == pytest.approx(pearsonr(x, y).statistic, abs=1e-12)


def test_hand_computed_spearman():
    # ranks 1..5 against 1..5 with two neighbours swapped: 1 - 6 * 2 / (5 * 24) = 0.9
    assert spearman([1, 2, 3, 4, 5], [1, 3, 2, 4, 5]) == pytest.approx(0.9)


def test_paired_cosine_and_scores():
    a = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    b = np.array([[2.0, 0.0], [1.0, 0.0], [-1.0, -1.0]])
    np.testing.assert_allclose(paired_cosine(a, b), [1.0, 0.0, -1.0], atol=1e-12)
    scores = sts_scores(a, b, [5.0, 2.5, 0.0])
    assert scores == {"spearman": pytest.approx(100.0), "pearson": pytest.approx(100.0)}


@pytest.mark.parametrize("x,y", [([1.0], [1.0]), ([1, 2, 3], [1, 2]), ([[1, 2]], [[1, 2]])])
def test_bad_shapes_are_refused(x, y):
    with pytest.raises(ValueError, match="1-D sequences"):
        spearman(x, y)


def test_constant_scores_correlate_zero_not_nan():
    assert pearson([1, 1, 1], [1, 2, 3]) == 0.0
