"""`compare_senses`: several models' trajectories of one word, each measured on the same sense
labels, and the layer a map opens on; on hand-made trajectories (no model loaded)."""

from __future__ import annotations

import numpy as np
import pytest

from encoder import WordTrajectory, compare_senses, sense_separation

LABELS = ["fruit"] * 8 + ["company"] * 8
CONTEXTS = [f"context {i}" for i in range(16)]


def trajectory(vectors: np.ndarray, contexts=CONTEXTS) -> WordTrajectory:
    n, layers = vectors.shape[:2]
    return WordTrajectory("apple", list(contexts), [(0, 5)] * n, [[1]] * n, vectors,
                          np.zeros((layers, n, n)), np.zeros(layers))


def separated_from(layer: int, seed: int, layers: int = 6) -> np.ndarray:
    """(16, layers, 32): the first 8 contexts moved apart from `layer` on."""
    v = np.random.default_rng(seed).normal(size=(16, layers, 32))
    v[:8, layer:, 0] += 20.0
    return v


def separated_at(layer: int, seed: int, layers: int = 6) -> np.ndarray:
    """(16, layers, 32): the first 8 contexts moved apart at `layer` only."""
    v = np.random.default_rng(seed).normal(size=(16, layers, 32))
    v[:8, layer, 0] += 20.0
    return v


def test_each_model_measured_and_the_map_opens_on_the_first_models_best_layer():
    a, b = separated_at(4, seed=0), separated_at(1, seed=1)
    got = compare_senses({"late": trajectory(a), "early": trajectory(b)}, LABELS)
    assert list(got.measured) == ["late", "early"] and got.senses == LABELS
    for key, v in (("late", a), ("early", b)):
        want = sense_separation(v, LABELS)
        np.testing.assert_array_equal(got.measured[key].accuracy, want.accuracy)
        assert got.measured[key].best_layer == want.best_layer
    assert (got.measured["late"].best_layer, got.measured["early"].best_layer) == (4, 1)
    assert got.map_layer == 4  # the first model's
    assert got.first is got.trajectories["late"]


def test_without_senses_nothing_is_measured_and_the_map_opens_on_the_last_layer():
    got = compare_senses({"m": trajectory(separated_from(2, seed=0, layers=5))}, None)
    assert got.measured == {} and got.senses is None and got.map_layer == 4


def test_a_misplaced_context_is_named_with_its_sense():
    v = separated_from(2, seed=3)
    v[0] = v[8]  # context #1 (a fruit) now sits among the companies
    m = compare_senses({"m": trajectory(v)}, LABELS).measured["m"]
    assert 0 in m.misplaced
    assert m.misplaced_note("minilm").startswith(f"minilm, layer {m.best_layer}: the nearest "
                                                 "neighbour of #1 (fruit)")
    few = sense_separation(separated_from(2, seed=4)[:4], ["a", "a", "b", "b"])
    assert few.p_value is None and few.misplaced_note() is None  # too few contexts to tell


def test_bad_input_names_the_fix():
    with pytest.raises(ValueError, match="at least one model"):
        compare_senses({}, LABELS)
    other = trajectory(separated_from(2, seed=0), contexts=[f"other {i}" for i in range(16)])
    with pytest.raises(ValueError, match="same contexts"):
        compare_senses({"a": trajectory(separated_from(2, seed=0)), "b": other}, LABELS)
    with pytest.raises(ValueError, match="two senses"):
        compare_senses({"a": trajectory(separated_from(2, seed=0))}, ["one"] * 16)
