"""Sense shift is real: a polysemous word's contexts split by sense as depth grows."""

import numpy as np
import pytest

from encoder import anisotropy

APPLE_FRUIT = [
    "I ate a crisp apple with my lunch.",
    "She baked an apple pie for dessert.",
    "The apple fell from the tree in the orchard.",
]
APPLE_COMPANY = [
    "Apple released a new iPhone yesterday.",
    "Shares of Apple rose after the earnings call.",
    "Apple opened a store in the mall with its latest MacBooks.",
]
PINGGUO_FRUIT = ["苹果好吃，我每天吃一个。", "这个苹果又红又甜。", "妈妈在市场买了一斤苹果和香蕉。"]
PINGGUO_COMPANY = [
    "苹果发布了新手机，iPhone更好用。",
    "苹果公司的股价今天上涨了。",
    "苹果发布会推出了新款笔记本电脑。",
]


def mean_similarity(tr, a, b) -> np.ndarray:
    """Per layer, mean cosine between contexts in `a` and in `b` (self-pairs left out)."""
    return np.mean([tr.cosine[:, i, j] for i in a for j in b if i != j], axis=0)


def sense_split(encoder, fruit, company, word):
    """Per layer: how far the fruit-company similarity falls below the within-sense similarity,
    in units of what the layer leaves above its anisotropy baseline (0 = no sense split)."""
    tr = encoder.word_trajectory(fruit + company, word)
    a, b = list(range(len(fruit))), list(range(len(fruit), len(fruit) + len(company)))
    within = (mean_similarity(tr, a, a) + mean_similarity(tr, b, b)) / 2
    between = mean_similarity(tr, a, b)
    return tr, (within - between) / np.maximum(1 - tr.baseline, 1e-6)


@pytest.mark.slow
def test_apple_splits_by_sense_in_upper_layers_minilm(minilm):
    tr, sep = sense_split(minilm, APPLE_FRUIT, APPLE_COMPANY, "apple")
    assert tr.vectors.shape == (6, minilm.info.layers + 1, minilm.info.hidden_size)
    upper = sep[len(sep) // 2 :].mean()
    assert abs(sep[0]) < 0.05  # layer 0: the same word embedding in every context
    assert upper > sep[0] + 0.05


@pytest.mark.slow
def test_pingguo_splits_by_sense_in_upper_layers_e5(e5):
    tr, sep = sense_split(e5, PINGGUO_FRUIT, PINGGUO_COMPANY, "苹果")
    upper = sep[len(sep) // 2 :].mean()
    assert upper > sep[0] + 0.05
    # raw cosine alone overstates similarity: every layer's baseline is above zero
    assert (tr.baseline[1:] > 0).all()


def test_missing_word_names_the_context(tiny_encoder):
    """Counted as people count and as the app numbers them (#1, #2), not zero-based."""
    with pytest.raises(ValueError, match=r"context #2: 'bank robbery'"):
        tiny_encoder.word_trajectory(["an apple a day", "bank robbery"], "apple")
    with pytest.raises(ValueError, match=r"context #3 is empty"):
        tiny_encoder.word_trajectory(["an apple", "apple pie", "\u200b"], "apple")
    with pytest.raises(TypeError, match="list of strings"):
        tiny_encoder.word_trajectory("an apple", "apple")


def test_needs_two_contexts_and_a_word(tiny_encoder):
    with pytest.raises(ValueError, match="at least two contexts"):
        tiny_encoder.word_trajectory(["an apple"], "apple")
    with pytest.raises(ValueError, match="word is empty"):
        tiny_encoder.word_trajectory(["an apple", "apple pie"], " ")


def test_trajectory_invariants(tiny_encoder):
    tr = tiny_encoder.word_trajectory(["Apple pie", "an apple tree", "APPLE stock"], "apple")
    assert tr.cosine.shape == (3, 3, 3)
    assert np.allclose(np.diagonal(tr.cosine, axis1=1, axis2=2), 1, atol=1e-5)
    assert np.allclose(tr.cosine, tr.cosine.transpose(0, 2, 1), atol=1e-6)
    assert tr.spans == [(0, 5), (3, 8), (0, 5)]


def test_find_word_prefers_whole_words():
    from encoder.trajectory import find_word

    assert find_word("Online banking at the bank", "bank") == (22, 26)
    assert find_word("banking", "bank") == (0, 4)  # no whole word: the substring
    assert find_word("我爱吃苹果。", "苹果") == (3, 5)
    assert find_word("An Apple-branded phone", "apple") == (3, 8)


def test_anisotropy_matches_brute_force():
    rng = np.random.default_rng(0)
    tokens = rng.normal(size=(3, 7, 5)) + 2.0  # shared offset: positive mean cosine
    unit = tokens / np.linalg.norm(tokens, axis=-1, keepdims=True)
    expected = [
        np.mean([unit[layer, i] @ unit[layer, j] for i in range(7) for j in range(7) if i != j])
        for layer in range(3)
    ]
    assert np.allclose(anisotropy(tokens), expected)
    assert (anisotropy(tokens) > 0.5).all()
