"""BERT's masking draw: 15 % selected, of which 80/10/10; labels only where selected; special
tokens and padding never selected; whole words selected together (jieba words for Chinese)."""

from __future__ import annotations

import pytest
import torch

from encoder import BertMasker, draw_mask
from encoder.masking import IGNORE, classify


@pytest.fixture(scope="module")
def tokenizer(tiny_encoder):
    return tiny_encoder.tokenizer


@pytest.fixture(scope="module")
def big_draw(tokenizer):
    """1,000 x 900 tokens (half the rows padded from 500 on): about 105k selected."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 29000, (1000, 900), generator=g)
    ids[:, 0], ids[:, -1] = tokenizer.cls_token_id, tokenizer.sep_token_id
    attention = torch.ones_like(ids)
    attention[:500, 500:] = 0
    ids[:500, 500:] = tokenizer.pad_token_id
    ids[:500, 499] = tokenizer.sep_token_id
    masked, labels = BertMasker(tokenizer, 0.15, seed=1)(ids, attention)
    return ids, attention, masked, labels


def test_80_10_10_on_over_100k_selected_tokens(big_draw, tokenizer):
    ids, attention, masked, labels = big_draw
    selected = labels != IGNORE
    n = int(selected.sum())
    assert n >= 100_000
    eligible = int(attention.sum()) - 2 * ids.shape[0] - 500  # less [CLS], [SEP], the extra [SEP]
    assert n / eligible == pytest.approx(0.15, abs=0.005)
    became_mask = (masked == tokenizer.mask_token_id) & selected
    kept = (masked == ids) & selected
    random = selected & ~became_mask & ~kept
    assert int(became_mask.sum()) / n == pytest.approx(0.80, abs=0.01)
    assert int(random.sum()) / n == pytest.approx(0.10, abs=0.01)
    assert int(kept.sum()) / n == pytest.approx(0.10, abs=0.01)


def test_labels_only_at_selected_positions_and_hold_the_original(big_draw):
    ids, _, masked, labels = big_draw
    selected = labels != IGNORE
    assert torch.equal(labels[selected], ids[selected])
    assert torch.equal(masked[~selected], ids[~selected])  # nothing else changed


def test_special_tokens_and_padding_are_never_selected(big_draw, tokenizer):
    ids, attention, _, labels = big_draw
    selected = labels != IGNORE
    assert not selected[attention == 0].any()
    special = torch.isin(ids, torch.tensor(tokenizer.all_special_ids))
    assert not selected[special].any()


def test_the_input_batch_is_not_modified(tokenizer):
    ids = torch.randint(1000, 29000, (4, 50))
    copy = ids.clone()
    BertMasker(tokenizer, 0.5, seed=0)(ids)
    assert torch.equal(ids, copy)


def test_whole_word_selects_every_piece_of_a_word(tokenizer):
    text = "Unbelievably, the tokenization of antidisestablishmentarianism works. " * 6
    draw = draw_mask(tokenizer, text, probability=0.4, seed=3, whole_word=True)
    pieces = [i for i, t in enumerate(draw.tokens) if t.startswith("##")]
    assert pieces  # the text really has multi-piece words
    for i in pieces:  # a continuation piece shares its word's fate
        assert bool(draw.status[i]) == bool(draw.status[i - 1])
    assert draw.selected and len(draw.selected) < len(draw.tokens) - 2


@pytest.mark.slow
def test_whole_word_groups_chinese_words_not_runs(e5):
    draw = draw_mask(e5.tokenizer, "我昨天去看了医生，他说我只是太累了。" * 4, probability=0.3,
                     seed=5, whole_word=True)
    statuses = {bool(s) for s, t in zip(draw.status, draw.tokens, strict=True)
                if t not in ("<s>", "</s>")}
    assert statuses == {True, False}  # some words selected, not the whole run of characters


def test_draw_is_repeatable_with_a_seed_and_classified(tokenizer):
    a = draw_mask(tokenizer, "The quick brown fox jumps over the lazy dog. " * 5, seed=7)
    b = draw_mask(tokenizer, "The quick brown fox jumps over the lazy dog. " * 5, seed=7)
    c = draw_mask(tokenizer, "The quick brown fox jumps over the lazy dog. " * 5, seed=8)
    assert a.status == b.status and a.input_ids == b.input_ids
    assert a.status != c.status
    assert sum(a.counts().values()) == len(a.selected)
    for i in a.selected:
        assert a.labels[i] == a.token_ids[i]


def test_classify_reads_the_outcome():
    original = torch.tensor([5, 6, 7, 8])
    masked = torch.tensor([5, 103, 9, 8])
    labels = torch.tensor([IGNORE, 6, 7, 8])
    assert classify(original, masked, labels, 103) == ["", "mask", "random", "kept"]


def test_bad_probability_and_missing_word_ids(tokenizer):
    with pytest.raises(ValueError, match="probability"):
        BertMasker(tokenizer, 1.5)
    with pytest.raises(ValueError, match="word_ids"):
        BertMasker(tokenizer, whole_word=True)(torch.randint(1000, 2000, (1, 10)))
