"""Fusion: RRF and convex combinations against hand-computed cases; invariants and refusals."""

import math

import numpy as np
import pytest

from indexer import rrf
from indexer.fusion import (
    DEFAULT_FUSION,
    DEFAULT_WEIGHTS,
    FUSIONS,
    check_weights,
    convex,
    fuse,
    normalise,
)


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


# -- convex combination of normalised scores, against hand-computed values ----------------------
LEXICAL = [("a", 10.0), ("b", 6.0), ("c", 2.0)]  # BM25 scores
DENSE = [("b", 0.9), ("c", 0.8), ("d", 0.5)]  # cosines


def test_minmax_and_zscore_by_hand():
    assert normalise([10, 6, 2], "minmax") == [1.0, 0.5, 0.0]
    assert normalise([0.9, 0.8, 0.5], "minmax") == pytest.approx([1.0, 0.75, 0.0])
    # mean 6, population std sqrt(32/3) = 3.26599
    assert normalise([10, 6, 2], "zscore") == pytest.approx([1.224745, 0.0, -1.224745], abs=1e-6)
    assert normalise([3, 3], "minmax") == [1.0, 1.0]  # no spread: all equally best
    assert normalise([3, 3], "zscore") == [0.0, 0.0]
    assert normalise([], "zscore") == []
    with pytest.raises(ValueError, match="Valid: minmax, zscore"):
        normalise([1.0], "softmax")


def test_convex_minmax_by_hand():
    fused = dict(convex([LEXICAL, DENSE], weights=[0.3, 0.7]))
    # a: 0.3*1 + 0.7*0 (missing from dense: its floor 0); b: 0.3*0.5 + 0.7*1
    # c: 0.3*0 + 0.7*0.75; d: 0.3*0 (missing from lexical) + 0.7*0
    assert fused == pytest.approx({"a": 0.3, "b": 0.85, "c": 0.525, "d": 0.0})
    assert [x for x, _ in convex([LEXICAL, DENSE], weights=[0.3, 0.7])] == ["b", "c", "a", "d"]
    # all weight on BM25: its order, then the dense-only item
    assert [x for x, _ in convex([LEXICAL, DENSE], weights=[1.0, 0.0])][:3] == ["a", "b", "c"]


def test_convex_zscore_by_hand():
    z_lex = {"a": 1.224745, "b": 0.0, "c": -1.224745}  # mean 6, std 3.26599
    # dense: mean 0.73333, std 0.169967 -> b 0.980581, c 0.392232, d -1.372813
    z_dense = {"b": 0.980581, "c": 0.392232, "d": -1.372813}
    fused = dict(convex([LEXICAL, DENSE], weights=[0.5, 0.5], norm="zscore"))
    expected = {
        "a": 0.5 * z_lex["a"] + 0.5 * z_dense["d"],  # missing from dense: dense's lowest z
        "b": 0.5 * z_lex["b"] + 0.5 * z_dense["b"],
        "c": 0.5 * z_lex["c"] + 0.5 * z_dense["c"],
        "d": 0.5 * z_lex["c"] + 0.5 * z_dense["d"],  # missing from lexical: lexical's lowest
    }
    assert fused == pytest.approx(expected, abs=1e-5)
    assert [x for x, _ in convex([LEXICAL, DENSE], norm="zscore")] == ["b", "a", "c", "d"]


def test_convex_three_lists_and_bad_weights():
    third = [("d", 5.0), ("a", 1.0)]
    fused = dict(convex([LEXICAL, DENSE, third], weights=[1, 1, 2]))
    # weights relative (sum 1: 1/4, 1/4, 2/4): a: (1 + 0 + 2*0) / 4; b: (0.5 + 1 + 2*0) / 4
    # (missing: floor 0); d: (0 + 0 + 2*1) / 4
    assert fused["a"] == pytest.approx(0.25) and fused["b"] == pytest.approx(0.375)
    assert fused["d"] == pytest.approx(0.5)
    assert fused == dict(convex([LEXICAL, DENSE, third], weights=[0.25, 0.25, 0.5]))
    for norm in ("minmax", "zscore"):  # huge weights: the same finite scores as (1, 1)
        huge = convex([LEXICAL, DENSE], weights=[1e308, 1e308], norm=norm)
        assert huge == convex([LEXICAL, DENSE], weights=[1, 1], norm=norm)
        assert all(math.isfinite(score) for _, score in huge)
    assert all(math.isfinite(score) for _, score in
               rrf([["a", "b"], ["b"]], k=0, weights=[1e308, 1e308]))
    assert convex([[], DENSE])[0][0] == "b"  # an empty list adds nothing
    with pytest.raises(ValueError, match="must be 3 numbers, one per list"):
        convex([LEXICAL, DENSE, third], weights=[1, 1])
    with pytest.raises(ValueError, match=">= 0"):
        convex([LEXICAL, DENSE], weights=[-1, 1])


# -- invariants: one-sided weights, normalisation edge cases, refusals, fuse by name ------------
def test_one_sided_weights_reduce_to_that_list():
    for norm in ("minmax", "zscore"):
        lex_only = [x for x, _ in convex([LEXICAL, DENSE], [1.0, 0.0], norm=norm)]
        dense_only = [x for x, _ in convex([LEXICAL, DENSE], [0.0, 1.0], norm=norm)]
        assert lex_only == ["a", "b", "c", "d"]  # BM25's order; the dense-only item last
        # the cosines' order; "a" (BM25 only) ties with dense's last item, "d"
        assert dense_only[:2] == ["b", "c"] and set(dense_only[2:]) == {"a", "d"}
        fused = dict(convex([LEXICAL, DENSE], [0.0, 1.0], norm=norm))
        assert fused["a"] == fused["d"]
    assert [x for x, _ in rrf([["a", "b"], ["b", "c"]], weights=[1, 0])][:2] == ["a", "b"]


def test_convex_is_invariant_to_each_lists_scale_and_shift():
    shifted = [(i, 100 + 7 * s) for i, s in LEXICAL]  # same ranking, other units
    for norm in ("minmax", "zscore"):
        assert dict(convex([shifted, DENSE], [0.4, 0.6], norm=norm)) == pytest.approx(
            dict(convex([LEXICAL, DENSE], [0.4, 0.6], norm=norm)))


def test_constant_scores_and_single_items():
    flat = [("x", 2.0), ("y", 2.0)]
    # min-max: a list without spread ranks all its items equally best; z-score: all 0
    assert dict(convex([flat, DENSE], [0.5, 0.5])) == pytest.approx(
        {"x": 0.5, "y": 0.5, "b": 0.5 + 0.5, "c": 0.5 + 0.375, "d": 0.5})
    assert dict(convex([[("x", 3.0)]], norm="zscore")) == {"x": 0.0}
    assert all(map(lambda v: v == v, dict(convex([flat, flat], norm="zscore")).values()))  # no NaN



def definition(runs, weights, norm):
    """convex as its docstring defines it, item by item (first seen first, stable sort)."""
    lists = [dict(zip([i for i, _ in r], normalise([s for _, s in r], norm), strict=True))
             for r in runs]
    floors = [min(n.values()) if n else 0.0 for n in lists]
    scaled = [w / max(weights) for w in weights]  # relative: summing to 1
    weights = [w / sum(scaled) for w in scaled]
    items = list(dict.fromkeys(i for r in runs for i, _ in r))
    scored = [(i, sum(w * n.get(i, f) for w, n, f in zip(weights, lists, floors, strict=True)))
              for i in items]
    return sorted(scored, key=lambda x: x[1], reverse=True)


def test_convex_equals_its_definition_bit_for_bit_ties_included():
    rng = np.random.default_rng(5)
    for _ in range(300):
        pool = [f"d{i}" for i in range(int(rng.integers(0, 40)))]
        runs = []
        for _ in range(int(rng.integers(1, 4))):
            items = list(rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))])
            scores = rng.choice([0.5, 1.0, -0.0, float(rng.random())], size=len(items))
            runs.append(sorted(zip(items, scores.tolist(), strict=True), key=lambda x: -x[1]))
        weights = rng.choice([0.0, 0.3, 1.0, 2.5], size=len(runs)).tolist()
        weights[0] = weights[0] or 1.0
        for norm in ("minmax", "zscore"):
            got = convex(runs, weights, norm=norm)
            want = definition(runs, weights, norm)
            assert [(i, repr(s)) for i, s in got] == [(i, repr(s)) for i, s in want]

@pytest.mark.parametrize("weights,said", [
    ([float("nan"), 1.0], "weights: weight 1 of 2 must be a finite number >= 0, got nan"),
    ([1.0, float("inf")], "weights: weight 2 of 2 must be a finite number >= 0, got inf"),
    ([-0.5, 1.5], "weights: weight 1 of 2 must be a finite number >= 0, got -0.5"),
    ([1, True], "weights: weight 2 of 2 must be a finite number >= 0, got True"),
    ([0.0, 0], "weights (0, 0) give every hit score 0: make at least one positive"),
    ([1.0], "weights must be 2 numbers, one per list, like (1.0, 1.0), got [1.0]"),
    ("11", "weights must be 2 numbers, one per list, like (1.0, 1.0), got '11'"),
])
def test_bad_weights_are_refused_by_every_fusion(weights, said):
    """One check (`check_weights`) and one message for rrf, convex and fuse."""
    calls = [lambda: rrf([["a"], ["b"]], weights=weights),
             lambda: convex([LEXICAL, DENSE], weights)]
    calls += [lambda m=m: fuse([LEXICAL, DENSE], m, weights) for m in FUSIONS]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == said


def test_named_weights_say_which_list():
    """The search names its two lists (dense, lexical); the wording is otherwise fuse's."""
    names = ("dense", "lexical")
    with pytest.raises(ValueError) as info:
        check_weights((1, float("nan")), 2, names)
    assert str(info.value) == "weights: the lexical weight must be a finite number >= 0, got nan"
    with pytest.raises(ValueError) as info:
        check_weights((1, 1, 1), 2, names)
    assert str(info.value) == "weights must be a pair (dense, lexical) like (1.0, 1.0), got " \
                              "(1, 1, 1)"
    assert check_weights(None, 3) == [1.0, 1.0, 1.0]
    assert check_weights(np.array([0.25, 1]), 2, names) == [0.25, 1.0]


def test_fuse_by_name():
    assert fuse([LEXICAL, DENSE], "rrf", rrf_k=60) == rrf([["a", "b", "c"], ["b", "c", "d"]])
    assert fuse([LEXICAL, DENSE], "zscore", [1, 2]) == convex([LEXICAL, DENSE], [1, 2],
                                                               norm="zscore")
    with pytest.raises(ValueError, match="Valid: rrf, minmax, zscore"):
        fuse([LEXICAL, DENSE], "borda")
    assert DEFAULT_FUSION in FUSIONS and set(DEFAULT_WEIGHTS) == set(FUSIONS)


def test_every_mode_and_fusion_says_what_its_score_means():
    from indexer.fusion import FUSIONS, score_scale

    sentences = {score_scale("dense"), score_scale("lexical"),
                 *(score_scale("hybrid", f) for f in FUSIONS)}
    assert len(sentences) == 2 + len(FUSIONS)  # one meaning each
    assert "standard deviations" in score_scale("hybrid", "zscore")
    assert "cosine" in score_scale("dense") and "BM25" in score_scale("lexical")
