"""Attention page: charts for English and Chinese inputs, subword merging, bad inputs."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, texts, titles

pytestmark = pytest.mark.slow


def by_title(at, start: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(start))


def view(at, name: str):
    at.radio(key="attn-view").set_value(name).run()
    assert_clean(at)
    return at


def enlarged(at) -> dict:
    return by_title(view(at, "One head"), "Attention, layer")


def grid(at) -> dict:
    return by_title(view(at, "Layer × head grid"), "Attention, every")


def test_default_english_example_draws_every_chart(page):
    at = page("attention")
    assert_clean(at)
    assert titles(at) == ["Attention, every layer and head"]  # the default view
    assert len(grid(at)["data"]) == 6 * 12  # minilm: 6 layers x 12 heads
    labels = enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert labels[0] == "[CLS]" and labels[-1] == "[SEP]" and "bank" in labels
    assert titles(view(at, "Head view")) == ["Head view, layer 6, mean of all heads"]
    assert titles(view(at, "[CLS] by layer"))[0].startswith("What [CLS] attends to")
    masks = view(at, "BERT vs GPT mask")
    assert len(figures(masks)) == 2 and "causal mask" in titles(masks)[1]


def test_merge_toggle_turns_subwords_into_words(page):
    at = page("attention")
    at.text_area[0].set_value("Tokenization of unbelievably long words.").run()
    tokens = enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert "##bly" in tokens or any(t.startswith("##") for t in tokens)
    at.sidebar.toggle[0].set_value(True).run()
    assert_clean(at)
    words = enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert "unbelievably" in words and not any(w.startswith("##") for w in words)
    assert len(words) < len(tokens)


def test_sentence_pair_shows_two_segments(page):
    at = page("attention")
    at.sidebar.selectbox[0].set_value("English pair: [CLS] A [SEP] B [SEP]").run()
    assert_clean(at)
    segments = at.dataframe[0].value["segment"].tolist()
    assert segments[0] == 0 and segments[-1] == 1 and sorted(set(segments)) == [0, 1]


def test_chinese_with_minilm_merges_apple_into_one_word(page):
    at = page("attention")
    at.text_area[0].set_value("苹果好吃，iPhone更好用。").run()
    at.sidebar.toggle[0].set_value(True).run()
    assert not at.exception and not at.error
    assert "苹果" in enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert any("[UNK]" in t and "e5-multilingual" in t for t in texts(at.warning))


def test_chinese_preset_with_e5(page):
    at = page("attention")
    at.sidebar.selectbox[0].set_value("中文: 苹果好吃，iPhone更好用。").run()  # picks e5
    at.sidebar.toggle[0].set_value(True).run()
    assert_clean(at)
    assert len(grid(at)["data"]) == 12 * 12  # e5-small: 12 layers x 12 heads
    words = enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert "苹果" in words and "iPhone" in words
    assert not at.warning  # e5 reads Chinese: no [UNK] note


def test_trained_model_folder_is_offered_and_runs(page):
    at = page("attention")
    model = at.sidebar.selectbox[1]
    trained = [o for o in model.options if o.endswith("(trained)")]
    assert "tiny-run (trained)" in trained
    model.set_value("tiny-run (trained)").run()
    assert_clean(at)
    assert len(grid(at)["data"]) == 2 * 4  # the tiny test model


def test_empty_sentence_asks_for_input(page):
    at = page("attention")
    at.text_area[0].set_value("   ").run()
    assert not at.exception
    assert not figures(at)
    assert any("Type a sentence" in t for t in texts(at.info))


def test_text_the_tokenizer_drops_entirely_says_so(page):
    at = page("attention")
    at.text_area[0].set_value("\ufffd\ufffd").run()  # yesterday: figures over [CLS] [SEP]
    assert not at.exception and not figures(at)
    assert any("reads no token in this text" in t for t in texts(at.info))
    at.text_area[0].set_value("\x00\x01\x02").run()  # nothing visible: refused as empty text
    assert not at.exception and not figures(at)
    assert any("empty" in t for t in texts(at.error))
    at.text_area[0].set_value("[CLS] [SEP] [MASK]").run()  # special tokens typed: still shown
    assert not at.exception and figures(at) and not at.info


def test_long_input_is_truncated_with_a_note(page):
    at = page("attention")
    at.text_area[0].set_value("word " * 400).run()
    assert not at.exception
    assert any("truncated" in t for t in texts(at.warning))
    assert any("The grid is drawn for up to" in t for t in texts(at.info))
    assert len(enlarged(at)["layout"]["xaxis"]["ticktext"]) == 256  # minilm's max length


def test_chinese_merged_words_keep_every_character(page):
    """Issue 25: merged, 我今天吃了一个苹果 lost 一个 and 苹果发布了新款手机 lost 了."""
    at = page("attention")
    at.sidebar.selectbox[0].set_value("中文: 苹果好吃，iPhone更好用。").run()  # picks e5
    at.text_area[0].set_value("我今天吃了一个苹果").run()
    at.text_area[1].set_value("苹果发布了新款手机").run()
    tokens = enlarged(at)["layout"]["xaxis"]["ticktext"]
    assert "\u2581" in tokens  # XLM-R reads a lone word-start mark before the second 苹果
    assert any("word-start mark" in t for t in texts(at.caption))
    at.sidebar.toggle[0].set_value(True).run()
    assert_clean(at)
    labels = [w.replace("\u200b", "") for w in enlarged(at)["layout"]["xaxis"]["ticktext"]]
    words = [w for w in labels if w not in ("<s>", "</s>")]
    assert "".join(words) == "我今天吃了一个苹果" + "苹果发布了新款手机"
    assert "\u2581" not in words and not any("word-start" in t for t in texts(at.caption))
