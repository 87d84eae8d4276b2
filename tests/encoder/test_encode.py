"""Encoding contract on a tiny random BERT: shapes, dtype, norms, determinism, batching."""

import numpy as np
import pytest


def test_shape_dtype_and_unit_norm(tiny_encoder):
    out = tiny_encoder.encode(["a red apple", "the bank of the river", "x"])
    assert out.shape == (3, tiny_encoder.dim) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-5)


def test_single_string_is_one_row(tiny_encoder):
    assert tiny_encoder.encode("hello").shape == (1, tiny_encoder.dim)


def test_batching_does_not_change_vectors(tiny_encoder):
    texts = [f"sentence number {i} with some words" * (i % 3 + 1) for i in range(10)]
    one = tiny_encoder.encode(texts, batch_size=1)
    many = tiny_encoder.encode(texts, batch_size=7)
    assert np.allclose(one, many, atol=1e-5)


def test_same_text_same_vector_different_text_different(tiny_encoder):
    a, b, c = tiny_encoder.encode(["apple pie", "apple pie", "stock market"])
    assert np.allclose(a, b)
    assert not np.allclose(a, c)


@pytest.mark.slow
def test_prompt_prefix_changes_input_only_where_defined(tiny_encoder, e5):
    assert tiny_encoder.prompt_prefix("query") == ""
    assert e5.prompt_prefix("query") == "query: " and e5.prompt_prefix("passage") == "passage: "
    q, p = e5.encode(["hello"], prompt="query"), e5.encode(["hello"], prompt="passage")
    assert not np.allclose(q, p)
    assert e5.token_lengths(["hello"], prompt="query")[0] > e5.token_lengths(["hello"])[0]


def test_info_matches_the_model(tiny_encoder):
    info = tiny_encoder.info
    assert (info.layers, info.heads, info.hidden_size, info.dim) == (2, 4, 32, 32)
    assert info.max_length == 64 and info.vocab_size == 30522 and info.pooling == "mean"
    assert info.to_dict()["name"] == "tiny-bert"
