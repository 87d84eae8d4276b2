"""The label-free adaptation's parts that need no model: pairs from what documents carry, the
held-out check's pseudo-queries, and the verdict's rule (better only beyond the noise)."""

from __future__ import annotations

import pytest

from common.corpus import Document
from training.adapt_check import CheckScores, check_set, split_documents, verdict
from training.adapt_config import AdaptConfig, check_adapt_config
from training.adapt_pairs import make_pairs, own_title, passages, sections, sentences
from training.errors import TrainingError

TEXT = ("Solar panels turn light into power. Their output falls in winter. Batteries store "
        "the surplus for the night. Prices fell by half in ten years.")


def doc(i: int, title: str = "", text: str = TEXT, **metadata) -> Document:
    return Document(f"d{i}", text, title, metadata)


def test_each_source_pairs_what_the_document_carries():
    markdown = doc(1, "Guide to panels", "# Setup guide\nMount the panel facing south. Tighten "
                   "the bolts.\n\n# Cleaning tips\nWash it twice a year with water.")
    pairs = make_pairs([doc(0, "Why solar power got cheap"), markdown],
                       ("title", "heading", "neighbours", "simcse"), seed=1)
    by = {}
    for p in pairs:
        by.setdefault(p.source, []).append((p.anchor, p.positive))
    assert ("Why solar power got cheap", TEXT) in by["title"]  # one short passage: all of it
    assert ("Setup guide", "Mount the panel facing south. Tighten the bolts.") in by["heading"]
    assert ("Cleaning tips", "Wash it twice a year with water.") in by["heading"]
    assert all(a == b for a, b in by["simcse"])  # dropout alone makes the two views differ
    long = doc(2, text=" ".join(f"Sentence number {i} says a little more here." for i in range(40)))
    chunks = passages(long.text, 20)
    neighbours = [p for p in make_pairs([long], ("neighbours",)) if p.doc_id == "d2"]
    assert len(chunks) > 3 and len(neighbours) == len(passages(long.text)) - 1
    assert {(p.anchor, p.positive) for p in neighbours} <= {
        (a, b) for a, b in zip(passages(long.text), passages(long.text)[1:], strict=False)}


def test_titles_that_say_nothing_new_make_no_pair():
    assert own_title(doc(0, "Solar panels turn light into power.")) == ""  # the text's opening
    assert own_title(doc(0, "d0")) == ""  # the id, as a reader falls back to
    assert own_title(doc(0, "Report")) == ""  # one word: a file name, not a title
    assert own_title(doc(0, "notes/solar panels.md")) == ""  # a path, as folder corpora have
    assert own_title(doc(0, "reports/2024/solar")) == ""
    assert own_title(doc(0, "HIV/AIDS care in rural clinics")) != ""  # a slash in a title
    assert own_title(doc(0, "Cheap solar power")) == "Cheap solar power"
    assert sections(doc(0, text="no headings here", section="Intro part")) == [
        ("Intro part", "no headings here")]
    assert sentences("第一句。第二句！Third one. fourth") == [
        "第一句。", "第二句！", "Third one. fourth"]


def test_a_limit_is_shared_evenly_and_the_draw_is_seeded():
    docs = [doc(i, f"Title number {i}", f"{TEXT} Site {i} is new.") for i in range(50)]
    pairs = make_pairs(docs, ("title", "simcse"), seed=3, limit=30)
    counts = {s: sum(p.source == s for p in pairs) for s in ("title", "simcse")}
    assert counts == {"title": 15, "simcse": 15}
    assert pairs == make_pairs(docs, ("title", "simcse"), seed=3, limit=30)
    few = make_pairs(docs[:4], ("title", "simcse"), seed=3, limit=30)
    assert len(few) == 8  # fewer than the limit: every pair
    assert len(make_pairs([doc(0, "Same text twice"), doc(1, "Same text again")],
                          ("simcse",))) == 1  # one text, one pair
    with pytest.raises(ValueError, match="Unknown pair source 'nope'. Valid: title, heading"):
        make_pairs(docs, ("nope",))


def test_the_check_holds_out_documents_by_id_and_hides_what_it_asks():
    docs = [doc(i, f"Solar report number {i}") for i in range(400)]
    train, check = split_documents(docs, share=0.1, seed=42)
    assert 20 < len(check) < 70 and len(train) + len(check) == 400
    _, again = split_documents(list(reversed(docs)), share=0.1, seed=42)
    assert {d.id for d in again} == {d.id for d in check}  # by id, whatever the order
    checks = check_set(check[:5], seed=1)
    assert checks.to_dict() == {"documents": 5, "passages": 5, "queries": 10,
                                "title_queries": 5, "sentence_queries": 5}
    for qid, text in checks.queries.items():
        doc_id = qid.split("#")[0]
        searched = " ".join(t for d, t in checks.passages if d == doc_id)
        assert text not in searched  # neither the title nor the sentence taken out is there


def scores(values: list[float]) -> CheckScores:
    per = {f"q{i}": v for i, v in enumerate(values)}
    return CheckScores(sum(values) / len(values), 0.0, per)


def test_the_verdict_is_better_only_beyond_the_noise():
    base = [0.5, 0.6, 0.7, 0.8] * 10
    up = verdict(scores(base), scores([v + 0.1 for v in base]))
    assert up.better and up.low > 0 and "helped" in up.text
    mixed = verdict(scores(base), scores([v + (0.1 if i % 2 else -0.1)
                                          for i, v in enumerate(base)]))
    assert not mixed.better and "did not measurably help" in mixed.text
    assert "Keep the model you have" in mixed.text
    down = verdict(scores(base), scores([v - 0.1 for v in base]))
    assert not down.better and "worse" in down.text
    few = verdict(scores(base[:5]), scores([v + 0.1 for v in base[:5]]))
    assert not few.better and "Too few held-out queries (5)" in few.text


@pytest.mark.parametrize(("change", "message"), [
    ({"sources": ("titles",)}, "--pairs: unknown source 'titles'. Valid: title, heading"),
    ({"learning_rate": 0.0}, "--lr: must be > 0, got 0.0"),
    ({"batch_size": 1}, "--batch-size: must be >= 2 (MNRL's negatives"),
    ({"epochs": float("inf")}, "--epochs: must be a finite number"),
])
def test_bad_settings_are_refused_by_name(change, message):
    with pytest.raises(TrainingError, match=message.replace("(", r"\(").replace(".", r"\.")):
        check_adapt_config(AdaptConfig(out="x", **change))
