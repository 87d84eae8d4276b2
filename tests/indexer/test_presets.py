"""Every preset agrees with exact search on seeded data; knobs are validated."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from indexer.presets import check_knobs, create, search_params, spec_for, train_and_add

N, DIM, K = 6_000, 64, 10


@pytest.fixture(scope="module")
def data():
    """Seeded clustered unit vectors (like sentence embeddings), and held-out queries."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((60, DIM)).astype(np.float32)
    x = centres[rng.integers(0, 60, N + 200)] + 0.6 * rng.standard_normal((N + 200, DIM))
    x = x.astype(np.float32)
    faiss.normalize_L2(x)
    base, queries = x[:N], x[N:]
    ids = np.arange(N, dtype=np.int64) * 3 + 7  # stable ids that are not positions
    exact = faiss.IndexFlatIP(DIM)
    exact.add(base)
    _, truth = exact.search(queries, K)
    return base, ids, queries, ids[truth]


def recall_at_k(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / K for f, t in zip(found, truth, strict=True)]))


@pytest.mark.parametrize("preset,floor", [("flat", 1.0), ("hnsw", 0.95), ("ivf", 0.95),
                                          ("sq8", 0.95), ("ivfpq", 0.9),
                                          ("ivfpq-disk", 0.9)])
def test_preset_agrees_with_exact_search(data, preset, floor):
    base, ids, queries, truth = data
    spec = spec_for(preset, N, DIM)
    index = create(spec, DIM)
    train_and_add(index, base, ids)
    params = search_params(spec, check_knobs(spec, {}), None, index)
    _, found = index.search(queries, K, params=params)
    assert recall_at_k(found, truth) >= floor
    assert set(found.ravel()) <= set(ids)


def test_knobs_raise_recall(data):
    base, ids, queries, truth = data
    spec = spec_for("ivf", N, DIM)
    index = create(spec, DIM)
    train_and_add(index, base, ids)
    low = recall_at_k(index.search(queries, K, params=search_params(
        spec, check_knobs(spec, {"nprobe": 1}), None, index))[1], truth)
    high = recall_at_k(index.search(queries, K, params=search_params(
        spec, check_knobs(spec, {"nprobe": 128}), None, index))[1], truth)
    assert low < high and high >= 0.99


def test_auto_and_invalid():
    assert spec_for("auto", 1000, DIM).preset == "flat"
    assert spec_for("auto", 500_000, DIM).preset == "hnsw"
    with pytest.raises(ValueError, match="Valid: flat, hnsw"):
        spec_for("annoy", 10, DIM)
    with pytest.raises(ValueError, match="Valid knobs: efSearch"):
        check_knobs(spec_for("hnsw", 100, DIM), {"nprobe": 4})
    with pytest.raises(ValueError, match="positive integer"):
        check_knobs(spec_for("ivf", 1000, DIM), {"nprobe": 0})
