"""The Pretraining page's head-training job in a real browser, on its own Streamlit server with an
empty $BERTSCOPE_HOME: the page shows a running job's progress with the button disabled, a new
tab (the person left and came back) shows it too, and when the job ends the open page moves on
by itself (the fragment's timer, which AppTest does not run) to predictions with the new heads.
The job is the stand-in `fake_heads_job.py`, held at step 1 by a gate file. Screenshots go where
the other browser tests put theirs ($BERTSCOPE_HOME/test-artifacts/app/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_fixtures import LOAD_MS, shot, wait_idle
from browser_setup import streamlit_server
from session_home import linked_home

from common.jobs import JobRunner, JobSpec, JobState
from training.jobs import heads_key

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).with_name("fake_heads_job.py")


@pytest.fixture(scope="module")
def own_home(tmp_path_factory) -> Path:
    home = linked_home(tmp_path_factory.mktemp("jobs-home"), "exports")  # no heads, jobs, runs
    (home / "models").mkdir()
    return home


@pytest.fixture(scope="module")
def jobs_app(browser, own_home, tmp_path_factory):
    """A server of its own: the page must see this home's jobs and heads, not the user's."""
    runs, indexes = tmp_path_factory.mktemp("runs"), tmp_path_factory.mktemp("indexes")
    env = {"BERTSCOPE_HOME": str(own_home), "BERTSCOPE_RUNS_ROOT": str(runs),
           "BERTSCOPE_INDEX_ROOT": str(indexes)}
    log = tmp_path_factory.mktemp("streamlit-jobs") / "streamlit.log"
    try:
        with streamlit_server(REPO, env, log) as url:
            yield url
    finally:
        for job in JobRunner(own_home / "jobs").jobs():
            if job.active:
                JobRunner(own_home / "jobs").cancel(job.id, grace_s=2)


def test_running_job_shows_progress_and_the_page_moves_on_when_it_ends(browser, jobs_app,
                                                                      own_home, tmp_path):
    runner = JobRunner(own_home / "jobs")
    gate = tmp_path / "gate"
    argv = ("env", f"BERTSCOPE_HOME={own_home}", sys.executable, str(FAKE), "minilm", str(gate))
    job = runner.submit(JobSpec("mlm-heads", heads_key("minilm"), "Train minilm's MLM + NSP heads",
                                argv, argv, str(REPO)))
    runner.wait(job.id, timeout=120, until=(JobState.RUNNING,))

    tabs = []
    for _ in range(2):  # the first view, then a new tab: the person left and came back
        context = browser.new_context(viewport={"width": 1400, "height": 1700})
        tab = context.new_page()
        tab.set_default_timeout(LOAD_MS)
        tab.goto(f"{jobs_app}/Pretraining")
        tab.get_by_text("Running: training: 1 of 2 steps.").wait_for()
        wait_idle(tab)
        busy = tab.get_by_role("button", name="Training minilm's heads…")
        assert busy.is_disabled()
        assert tab.get_by_role("button", name="Cancel").is_enabled()
        tabs.append((context, tab))
    shot(tabs[0][1], "head-job-01-running")

    gate.touch()  # the job saves the heads and ends; nobody touches the pages
    for _, tab in tabs:
        tab.get_by_text("MLM loss on this draw").wait_for(timeout=180_000)
        # gone once the run that drew the result ends (a loaded 3-worker run saw it still
        # there, stale, the moment the result appeared)
        tab.get_by_role("button", name="Cancel").wait_for(state="detached", timeout=60_000)
    assert runner.get(job.id).state is JobState.DONE
    wait_idle(tabs[0][1])
    shot(tabs[0][1], "head-job-02-done-predicts")
    for context, _ in tabs:
        context.close()
