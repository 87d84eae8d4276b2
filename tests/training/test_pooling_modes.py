"""Pooling is rebuilt, not inherited, and each mode computes what it says on hand-made tensors."""

from __future__ import annotations

import pytest
import torch

from training import TrainingError, build_siamese, pooling_mode


@pytest.fixture(scope="module")
def tokens():
    # Two sentences, T=3 tokens, dim 2; the second has one padding position holding huge values
    # that a correct pooling must ignore.
    emb = torch.tensor(
        [
            [[1.0, 2.0], [3.0, -4.0], [5.0, 0.0]],
            [[-1.0, 1.0], [2.0, 3.0], [100.0, 100.0]],
        ]
    )  # (B=2, T=3, D=2)
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])  # (B, T)
    return emb, mask


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("cls", [[1.0, 2.0], [-1.0, 1.0]]),  # first token ([CLS])
        ("mean", [[3.0, -2.0 / 3], [0.5, 2.0]]),  # average over real tokens only
        ("max", [[5.0, 2.0], [2.0, 3.0]]),  # per-dimension max over real tokens only
    ],
)
def test_pooling_on_hand_made_tensors(tiny_model_dir, tokens, mode, expected):
    model = build_siamese(tiny_model_dir, pooling=mode)
    emb, mask = tokens
    pooled = model[1]({"token_embeddings": emb, "attention_mask": mask})["sentence_embedding"]
    assert torch.allclose(pooled, torch.tensor(expected))


def test_modes_differ_on_real_text_and_replace_the_source_pooling(tiny_model_dir):
    texts = ["A man is playing a guitar.", "Two dogs run in the snow."]
    vectors = {}
    for mode in ("cls", "mean", "max"):
        model = build_siamese(tiny_model_dir, pooling=mode, max_seq_length=32)
        assert pooling_mode(model) == mode  # the tiny source folder pools by mean
        assert model.max_seq_length == 32
        vectors[mode] = model.encode(texts, convert_to_tensor=True)
        assert torch.allclose(vectors[mode].norm(dim=1), torch.ones(2), atol=1e-5)
    assert not torch.allclose(vectors["cls"], vectors["mean"], atol=1e-3)
    assert not torch.allclose(vectors["max"], vectors["mean"], atol=1e-3)


def test_unknown_pooling_lists_the_valid_ones(tiny_model_dir):
    with pytest.raises(TrainingError, match="Invalid pooling mode 'sum'. Valid: mean, cls, max"):
        build_siamese(tiny_model_dir, pooling="sum")
