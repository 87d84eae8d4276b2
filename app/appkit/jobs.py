"""Jobs on a page (`common.jobs`): where a job stands, its progress and its log, redrawn every
few seconds while it runs (a fragment: the rest of the page stays put), with a Cancel button.
The job runs in its own process: leaving the page, closing the tab or restarting the app does
not stop it, and the page shows it again from disk when it is next opened."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from common.jobs import Job, JobRunner, JobState

EVERY_S = 2.0


def show_job(runner: JobRunner, job: Job) -> None:
    """The job's state in one sentence (a bar while it runs) and its log's last lines."""
    line = runner.describe(job)
    if job.state is JobState.RUNNING:
        st.progress(job.progress.fraction if job.progress else 0.0, text=line)
    elif job.state is JobState.QUEUED:
        st.info(line)
    elif job.state is JobState.DONE:
        st.success(line)
    elif job.state is JobState.FAILED:
        st.error(line)
    else:
        st.warning(line)
    with st.expander("Log (last lines)", expanded=job.state is JobState.FAILED):
        st.code(job.log_tail(25) or "(nothing written yet)", language=None)


@st.fragment(run_every=EVERY_S)
def watch_job(job_id: str, busy_label: str, extra: Callable[[Job], None] | None = None) -> None:
    """An active job, redrawn every `EVERY_S` s: its state, `extra(job)` (what else the page
    draws from it, e.g. its curves), a disabled `busy_label` button (the work is under way) and
    Cancel. When it ends, the whole page runs again to use what it made."""
    runner = JobRunner()
    job = runner.get(job_id)
    if not job.active:
        st.rerun()
    show_job(runner, job)
    if extra is not None:
        extra(job)
    left, right = st.columns(2)
    left.button(busy_label, disabled=True, key=f"busy-{job_id}",
                help="A job is running it; this button comes back when it ends.")
    if right.button("Cancel", key=f"cancel-{job_id}",
                    help="Stops the job's process; what it saved is kept for resuming."):
        runner.cancel(job_id)
        st.rerun()
