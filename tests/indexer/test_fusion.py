"""rrf: the reciprocal-rank fusion formula, weights, ties."""

import pytest

from indexer import rrf


def test_rrf_formula_and_order():
    fused = dict(rrf([["a", "b", "c"], ["c", "a"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)
    assert [x for x, _ in rrf([["a", "b", "c"], ["c", "a"]])] == ["a", "c", "b"]


def test_rrf_weights_can_favour_one_list():
    assert rrf([["a", "b"], ["b", "a"]], weights=[2.0, 1.0])[0][0] == "a"
    assert rrf([["a", "b"], ["b", "a"]], weights=[1.0, 2.0])[0][0] == "b"
    with pytest.raises(ValueError, match="weights"):
        rrf([["a"]], weights=[1.0, 1.0])
