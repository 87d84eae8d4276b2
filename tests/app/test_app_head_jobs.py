"""Pretraining page: head training is a job in its own process (`common.jobs`), not work inside
the page's script run. The page starts it, shows its progress with the button disabled, shows it
again in a new session (the person navigated away and came back), offers to resume a cancelled
one from its checkpoint, and predicts once the job has saved the heads. The job's command is a
stand-in (`fake_heads_job.py`) that waits for a gate file, so each state can be looked at."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from apptest_helpers import assert_clean, texts
from session_home import linked_home

from common.jobs import JobRunner, JobSpec, JobState

pytestmark = pytest.mark.slow  # the page loads the bundled minilm

FAKE = Path(__file__).with_name("fake_heads_job.py")
REPO = Path(__file__).resolve().parents[2]
asked: list[dict] = []  # what the page asked `mlm_heads_job` for


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty $BERTSCOPE_HOME (no cached heads, no jobs; the session's exports) and an empty
    runs root. The pages' encoders go first: one loaded by an earlier test file in this process
    (Search keeps a record of it beside the cache) may carry heads from that test's home (seen
    under `make test`'s workers)."""
    import streamlit as st
    from appkit.resources import forget_encoders

    forget_encoders()
    st.cache_data.clear()
    (linked_home(tmp_path / "home", "exports") / "models").mkdir()
    (tmp_path / "runs").mkdir()
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(tmp_path / "runs"))
    yield
    if (tmp_path / "home" / "heads").exists():  # heads now loaded for the cached encoder:
        forget_encoders()  # the next test gets a fresh one, without them


@pytest.fixture
def gate(tmp_path, monkeypatch):
    """The page's job runs `fake_heads_job.py`, held at step 1 until the returned file exists."""
    import training.jobs as jobs

    gate = tmp_path / "gate"
    real = jobs.mlm_heads_job
    asked.clear()

    def stand_in(name, **kwargs):
        asked.append(kwargs)
        spec = real(name, **kwargs)
        argv = (sys.executable, str(FAKE), name, str(gate))
        return JobSpec(spec.kind, spec.key, spec.title, argv, argv, str(REPO), spec.outputs)

    monkeypatch.setattr(jobs, "mlm_heads_job", stand_in)
    yield gate
    runner = JobRunner()
    for job in runner.jobs():
        if job.active:
            runner.cancel(job.id, grace_s=2)


def at_step_one(runner: JobRunner) -> None:
    deadline = time.monotonic() + 60
    while not ((job := runner.jobs()[0]).progress and job.state is JobState.RUNNING):
        assert time.monotonic() < deadline, job.log_tail()
        time.sleep(0.1)


def progress_texts(at) -> list[str]:
    return [e.proto.text for e in at.get("progress")]


def test_the_page_starts_a_job_and_shows_its_progress(page, home, gate):
    at = page("pretraining")
    assert_clean(at)
    note = " ".join(texts(at.caption))
    assert "runs as a job in its own process" in note and "does not stop it" in note
    assert "python -m training mlm-heads minilm" in note
    at.button(key="train-heads").click().run()
    assert_clean(at)
    runner = JobRunner()
    (job,) = runner.jobs()
    assert job.spec.key == "mlm-heads:minilm" and job.spec.argv[1] == str(FAKE)
    at_step_one(runner)

    for shown in (at.run(), page("pretraining")):  # this session, and a new one (came back)
        assert_clean(shown)
        assert progress_texts(shown) == ["Running: training: 1 of 2 steps."]
        busy = [b for b in shown.button if b.label == "Training minilm's heads…"]
        assert len(busy) == 1 and busy[0].disabled
        assert "Cancel" in [b.label for b in shown.button]
        assert not [b for b in shown.button if b.label.startswith("Train minilm's")]
        assert not shown.dataframe  # no predictions yet
        assert "leaving this page" in " ".join(texts(shown.caption))  # said while it runs too

    gate.touch()
    assert runner.wait(job.id, timeout=120).state is JobState.DONE
    at.run()
    assert_clean(at)
    assert len(at.dataframe[0].value) > 0  # the heads the job saved predict
    from encoder.heads import bundled_heads_dir, read_meta

    made_for = read_meta(bundled_heads_dir("minilm"))["fingerprint"]
    assert asked == [{"fingerprint": made_for}]  # trained for the page's model's weights
    assert not at.get("progress") and not at.button


def test_a_second_job_waits_with_the_queue_said(page, home, gate, tmp_path):
    runner = JobRunner()
    blocker = runner.submit(JobSpec("fake", "other", "Re-index news", (
        sys.executable, "-c", f"import pathlib, time\nwhile not pathlib.Path({str(gate)!r})"
        ".exists(): time.sleep(0.05)"), cwd=str(REPO)))
    runner.wait(blocker.id, timeout=30, until=(JobState.RUNNING,))
    at = page("pretraining")
    at.button(key="train-heads").click().run()
    assert_clean(at)
    queued = " ".join(texts(at.info))
    assert "Queued behind “Re-index news” (running): one job runs at a time" in queued


def test_a_cancelled_job_resumes_from_its_checkpoint(page, home, gate):
    at = page("pretraining")
    at.button(key="train-heads").click().run()
    runner = JobRunner()
    at_step_one(runner)
    at.run()
    next(b for b in at.button if b.label == "Cancel").click().run()
    assert_clean(at)
    first = runner.jobs()[0]
    assert first.state is JobState.CANCELLED
    assert any(t.startswith("Cancelled after") for t in texts(at.warning))
    resume = at.button(key="train-heads")
    assert resume.label == "Resume minilm's head training from step 50"
    resume.click().run()
    again = runner.jobs()[0]
    assert again.resumes == first.id and again.spec.argv == first.spec.argv
    assert again.active  # cancelled by the fixture: finishing it would only load minilm again


def test_a_failed_job_is_said_with_its_log_and_offered_again(page, home, monkeypatch):
    import training.jobs as jobs

    argv = (sys.executable, "-c", "import sys; print('error: the disk is full'); sys.exit(3)")
    monkeypatch.setattr(jobs, "mlm_heads_job", lambda name, **kwargs: JobSpec(
        "mlm-heads", jobs.heads_key(name), "Train heads", argv, argv, str(REPO)))
    at = page("pretraining")
    at.button(key="train-heads").click().run()
    runner = JobRunner()
    first = runner.wait(runner.jobs()[0].id, timeout=60)
    assert first.state is JobState.FAILED
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [runner.describe(first)]
    assert texts(at.error)[0].endswith(": exit status 3.")
    assert "error: the disk is full" in at.code[0].value  # the log, open
    again = at.button(key="train-heads")
    assert again.label == "Train minilm's MLM + NSP heads again"  # nothing saved to resume from
    again.click().run()
    assert runner.jobs()[0].resumes == first.id
