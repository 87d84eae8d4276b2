"""Shape buckets: the OpenVINO runner sees a few (rows, tokens) shapes whatever the batches, and
the padding changes no vector beyond the backend's fidelity."""

from __future__ import annotations

import random

import numpy as np
import pytest
from backend_home import module_home

from encoder import load_encoder
from encoder.shapes import bucket_rows, bucket_tokens, pad_to_bucket, token_buckets

home = module_home("shapes-home")
WORDS = "the bank of a river red apple stocks fell sharply on monday phone chip".split()


@pytest.mark.parametrize("window", [48, 64, 128, 256, 512])
def test_token_buckets_cover_every_length_with_little_padding(window):
    for n in range(1, window + 1):
        b = bucket_tokens(n, window)
        assert n <= b <= window and b in token_buckets(window)
        assert b - n < 8 or b - n <= n // 4 + 1  # 8 tokens or a quarter at most
    assert len(token_buckets(256)) == 16 and len(token_buckets(512)) == 20


def test_an_avoided_token_count_is_never_padded_to():
    avoid = frozenset({32})
    assert 32 not in token_buckets(256, avoid) and 31 in token_buckets(256, avoid)
    assert [bucket_tokens(n, 256, avoid) for n in (24, 25, 31, 32, 33)] == [24, 31, 31, 40, 40]
    assert token_buckets(32, avoid)[-1] == 32  # the window itself: nothing lies past it
    ids = np.ones((1, 27), dtype=np.int64)
    padded = pad_to_bucket({"input_ids": ids, "attention_mask": ids}, 256, 0, avoid)
    assert padded["input_ids"].shape == (1, 31)


def test_row_buckets_waste_at_most_a_third():
    assert [bucket_rows(n) for n in range(1, 10)] == [1, 2, 3, 4, 6, 6, 8, 8, 12]
    for n in range(1, 300):
        assert n <= bucket_rows(n) <= max(n, 1.5 * n - 0.5)


def _masked_mean(inputs: dict[str, np.ndarray], table: np.ndarray) -> np.ndarray:
    """What the graph does after the transformer: mean of the unmasked tokens' vectors."""
    mask = inputs["attention_mask"][..., None].astype(np.float64)
    return (table[inputs["input_ids"]] * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)


def test_padding_masks_new_columns_and_copies_row_zero():
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 50, size=(5, 11))
    inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids),
              "token_type_ids": np.zeros_like(ids)}
    inputs["attention_mask"][3, 7:] = 0  # a shorter row, already padded
    padded = pad_to_bucket(inputs, window=64, pad_id=0)
    assert padded["input_ids"].shape == (6, 16)
    assert (padded["attention_mask"][:5, 11:] == 0).all()
    assert (padded["input_ids"][5] == padded["input_ids"][0]).all()
    table = rng.normal(size=(50, 4))
    assert np.allclose(_masked_mean(padded, table)[:5], _masked_mean(inputs, table), atol=1e-12)
    assert pad_to_bucket(padded, window=64, pad_id=0) is padded  # a bucket shape stays


def _random_batches(seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 70)))
             for _ in range(rng.randint(1, 20))] for _ in range(40)]


@pytest.mark.slow
def test_openvino_sees_a_bounded_set_of_shapes_and_the_same_vectors(home, tiny_model_dir,
                                                                    monkeypatch):
    enc = load_encoder(tiny_model_dir, backend="openvino")
    model = enc.encoder_model
    assert model.bucketed
    shapes: set[tuple[int, int]] = set()
    run = model._run

    def recording(inputs):
        shapes.add(inputs["input_ids"].shape)
        return run(inputs)

    monkeypatch.setattr(model, "_run", recording)
    batches = _random_batches(0)
    bucketed = [enc.encode(b, batch_size=8) for b in batches]
    bound = len(token_buckets(enc.max_length)) * len({bucket_rows(n) for n in range(1, 9)})
    assert 0 < len(shapes) <= bound
    shapes.clear()
    model.bucketed = False
    plain = [enc.encode(b, batch_size=8) for b in batches]
    assert len(shapes) > bound  # the same batches unpadded: the growth this bounds
    for a, b in zip(bucketed, plain, strict=True):
        # OpenVINO may run fp32 graphs in bf16 on this CPU: equal within its fidelity
        assert np.allclose(a, b, atol=2e-3) and np.min(np.sum(a * b, axis=1)) > 0.9999


def test_onnx_runtime_is_not_padded(home, tiny_model_dir):
    assert not load_encoder(tiny_model_dir, backend="onnx").encoder_model.bucketed
