"""`pca_2d`: a word trajectory's vectors on a 2-D map, computed in the library (numpy only), so
the app's chart only draws the points it is given."""

import numpy as np
import pytest

from encoder import pca_2d


def test_pca_is_shared_across_layers_and_ignores_scale():
    rng = np.random.default_rng(2)
    v = rng.normal(size=(3, 4, 16))
    v[:, 2] = v[:, 1] * 10  # layer 2 = layer 1 scaled: same directions, same points
    p = pca_2d(v)
    assert p.shape == (3, 4, 2)
    np.testing.assert_allclose(p[:, 1], p[:, 2], atol=1e-9)
    one = pca_2d(v, fit_layer=3)  # fitted on one layer: its points are centred there
    np.testing.assert_allclose(one[:, 3].mean(axis=0), 0.0, atol=1e-9)
    two = pca_2d(v[:2], fit_layer=0)  # two contexts: one direction, the second axis is 0
    np.testing.assert_allclose(two[:, 0, 1], 0.0, atol=1e-9)


def test_first_axis_carries_the_most_spread():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(6, 2, 8)) * 0.01
    v[..., 0] += 1.0
    v[:3, :, 1] += 1.0  # two groups apart along one direction
    p = pca_2d(v, fit_layer=1)
    spread = p[:, 1].std(axis=0)
    assert spread[0] > spread[1]
    assert np.sign(p[:3, 1, 0]).tolist() == [np.sign(p[0, 1, 0])] * 3  # one group, one side
    assert np.all(np.sign(p[3:, 1, 0]) == -np.sign(p[0, 1, 0]))


def test_bad_shapes_and_layers_are_refused():
    with pytest.raises(ValueError, match="contexts, layers, hidden"):
        pca_2d(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="fit_layer"):
        pca_2d(np.ones((2, 3, 4)), fit_layer=3)

