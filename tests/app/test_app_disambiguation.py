"""Disambiguation page: similarity and PCA charts in English and Chinese; bad inputs as messages."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, texts, values

pytestmark = pytest.mark.slow


def by_title(at, start: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(start))


def test_english_apple_draws_similarity_and_pca(page):
    at = page("disambiguation")
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “apple”")
    assert len(sim["data"]) == 4 * 3 // 2 + 1  # every context pair, then the baseline
    baseline = sim["data"][-1]
    assert "baseline" in baseline["name"]
    assert len(values(baseline["y"])) == 7  # minilm: embeddings + 6 layers
    pca = by_title(at, "“apple” in 2-D")
    assert "layer 6" in pca["layout"]["title"]["text"]
    at.slider[0].set_value(2).run()
    assert "layer 2 highlighted" in by_title(at, "“apple” in 2-D")["layout"]["title"]["text"]
    at.radio(key="dis-fit").set_value("this layer").run()
    assert_clean(at)
    assert "fitted on layer 2" in by_title(at, "“apple” in 2-D")["layout"]["title"]["text"]


def test_river_bank_and_money_bank_separate_in_the_last_layer(page):
    """Real behaviour (minilm): the two river contexts stay closer than river vs money."""
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("English: bank (river vs money)").run()
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “bank”")
    pairs = {(t["name"].split()[0], t["name"].split("↔ ")[1].split()[0]): values(t["y"])[-1]
             for t in sim["data"][:-1]}  # names read "#1 We had… ↔ #2 The canoe…"
    assert pairs[("#1", "#2")] > pairs[("#1", "#3")]  # river-river above river-money
    assert pairs[("#3", "#4")] > pairs[("#2", "#4")]  # money-money above river-money


def test_chinese_apple_with_e5(page):
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("中文: 苹果 (水果 vs 公司)").run()
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “苹果”")
    assert len(sim["data"]) == 2  # one pair and the baseline
    assert len(values(sim["data"][0]["y"])) == 13  # e5-small: embeddings + 12 layers
    assert by_title(at, "“苹果” in 2-D")


def test_word_missing_from_a_context_is_a_message(page):
    at = page("disambiguation")
    at.text_area[0].set_value("I ate an apple.\nThe weather is nice today.").run()
    assert not at.exception
    assert any("does not occur in context #2" in t and "weather" in t for t in texts(at.error))
    assert not any("contexts[" in t for t in texts(at.error))  # numbered as the page numbers
    assert not figures(at)


def test_too_few_contexts_and_empty_word_ask_for_input(page):
    at = page("disambiguation")
    at.text_area[0].set_value("Only one apple here.").run()
    assert not at.exception and any("at least two" in t for t in texts(at.info))
    at.text_input[0].set_value(" ").run()
    assert not at.exception and any("Type the word" in t for t in texts(at.info))
    assert not figures(at)


def usages(at) -> list[str]:
    """The ranked chunks of the "used like this" section, best first."""
    return [h.proto.body for h in at.get("html") if "<mark" in h.proto.body]


def test_other_uses_are_ranked_by_sense(page, with_indexes):
    """Real behaviour (minilm): the pie context finds the orchard chunk first, the iPhone one
    the iPhone chunk — the same word, ranked by its contextual vector."""
    at = page("disambiguation")
    assert_clean(at)
    assert any("chunks of a-news that contain “apple”" in t for t in texts(at.caption))
    assert "Orchard harvest" in usages(at)[0]  # context #1: apple pie
    at.selectbox(key="dis-anchor").set_value(2).run()  # context #3: Apple's iPhone
    assert_clean(at)
    assert "New iPhone" in usages(at)[0]
    assert all(">apple</mark>" in u.lower() for u in usages(at))


def test_word_absent_from_the_index_falls_back_to_sentence_neighbours(page, with_indexes):
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("English: bank (river vs money)").run()
    at.text_area[0].set_value("We sat by the river.\nThe river was cold.").run()
    at.text_input[0].set_value("river").run()
    assert_clean(at)
    assert any("No chunk of a-news contains “river”" in t for t in texts(at.info))
    assert len([h for h in at.get("html") if "<b>" in h.proto.body]) == 5


def test_long_context_is_truncated_with_a_note(page):
    at = page("disambiguation")
    at.text_area[0].set_value("An apple a day. " + "More words follow here. " * 120
                              + "\nApple sells phones.").run()
    assert_clean(at)
    assert any("Truncated at 256 tokens: context #1." in t for t in texts(at.warning))
    assert figures(at)
