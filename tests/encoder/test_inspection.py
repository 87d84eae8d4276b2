"""`inspect`: attention rows are distributions, shapes follow `info`, segments sit as in BERT."""

import numpy as np
import pytest

from encoder import merge_subwords


def test_attention_rows_sum_to_one_and_shapes_match_info(tiny_encoder):
    ins = tiny_encoder.inspect("The apple pie was delicious.")
    info, t = tiny_encoder.info, len(ins.tokens)
    assert ins.attentions.shape == (info.layers, info.heads, t, t)
    assert ins.hidden_states.shape == (info.layers + 1, t, info.hidden_size)
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-5)
    assert (ins.attentions >= 0).all()


@pytest.mark.slow
def test_bert_pair_layout_follows_the_seed_article(minilm):
    ins = minilm.inspect("I ate an apple.", "Apple sells phones.")
    assert ins.tokens[0] == "[CLS]" and ins.tokens[-1] == "[SEP]"
    first_sep = ins.tokens.index("[SEP]")
    assert ins.segment_ids == [0] * (first_sep + 1) + [1] * (len(ins.tokens) - first_sep - 1)
    assert [t for t, s in zip(ins.tokens, ins.special_mask, strict=True) if s] == [
        "[CLS]", "[SEP]", "[SEP]"
    ]
    info = minilm.info
    assert ins.attentions.shape[:2] == (info.layers, info.heads)
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-4)


@pytest.mark.slow
def test_xlmr_pair_layout(e5):
    ins = e5.inspect("苹果好吃", "苹果发布了新手机")
    assert ins.tokens[0] == "<s>" and ins.tokens[-1] == "</s>"
    seps = [i for i, t in enumerate(ins.tokens) if t == "</s>"]
    assert len(seps) == 3 and seps[1] == seps[0] + 1  # <s> A </s></s> B </s>
    assert set(ins.segment_ids[: seps[0] + 1]) == {0}
    assert set(ins.segment_ids[seps[1] :]) == {1}
    assert ins.attentions.shape == (12, 12, len(ins.tokens), len(ins.tokens))
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-4)


@pytest.mark.slow
def test_chinese_word_groups_keep_words_whole(e5, minilm):
    for enc in (e5, minilm):
        ins = enc.inspect("苹果发布了新手机，iPhone更好用。")
        words = [g.word for g in ins.word_groups if not g.special]
        assert "苹果" in words and "iPhone" in words
        covered = sorted(t for g in ins.word_groups for t in g.tokens)
        assert covered == list(range(len(ins.tokens)))  # every token in exactly one group
    # minilm sees 苹果 as two [UNK] tokens; the group still makes them one word
    group = next(g for g in minilm.inspect("苹果好吃").word_groups if g.word == "苹果")
    assert len(group.tokens) == 2


@pytest.mark.slow
def test_english_subwords_merge_into_words(minilm):
    ins = minilm.inspect("Tokenization is unbelievable")
    group = next(g for g in ins.word_groups if g.word == "Tokenization")
    assert len(group.tokens) > 1
    merged = merge_subwords(ins.attentions, ins.word_groups)
    assert merged.shape[-1] == len(ins.word_groups) < len(ins.tokens)
    assert np.allclose(merged.sum(-1), 1, atol=1e-4)


def test_merge_subwords_by_hand():
    from encoder import WordGroup

    attn = np.array([[0.5, 0.25, 0.25], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    groups = [WordGroup("a", [0], 0, 0, 1), WordGroup("bc", [1, 2], 0, 2, 4)]
    merged = merge_subwords(attn, groups)
    assert np.allclose(merged, [[0.5, 0.5], [0.15, 0.85]])


def test_long_input_is_truncated_and_flagged(tiny_encoder):
    ins = tiny_encoder.inspect("word " * 500)
    assert ins.truncated and len(ins.tokens) == tiny_encoder.max_length


@pytest.mark.parametrize(("text", "pair"), [("", None), ("ok", "   "), (None, None)])
def test_bad_inspect_inputs(tiny_encoder, text, pair):
    with pytest.raises((ValueError, TypeError)):
        tiny_encoder.inspect(text, pair)
