"""The Index page's "Build a new index" as a job (`indexer.jobs.build_job`: `python -m indexer
build` in its own process, progress on disk): where the latest build of an index stands, drawn
from disk (running: its bar and Cancel; done: what it built; failed: why, from its log; stopped:
Resume). Leaving the page does not stop a build, and the page finds it again when reopened."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from common.jobs import Job, JobRunner, JobState

from .guard import sentence
from .jobs import show_job, watch_job
from .links import offer_search_on
from .uploads import forget_upload

JOB_NOTE = ("The build runs as a job in its own process: leaving this page or closing the tab "
            "does not stop it, and one job runs at a time on this machine. In a terminal, "
            "`python -m indexer build --corpus CORPUS --model MODEL --out INDEX` does the same.")


def build_key(out: Path) -> str:
    """The key of `out`'s build jobs (`common.jobs.JobSpec.key`)."""
    from indexer import jobs

    return jobs.build_job(".", out, "-").key


def latest_build(runner: JobRunner, out: Path) -> Job | None:
    """The last build job of index `out` (a sync or rebuild of it is not one)."""
    found = runner.jobs(key=build_key(out), kind="build")
    return found[0] if found else None


def failure(job: Job) -> str:
    """Why a build failed, in the command's own words (its last `error: ` line) as a sentence,
    else the job's status message."""
    said = [line[len("error: "):] for line in job.log_tail(200).splitlines()
            if line.startswith("error: ")]
    return sentence(said[-1]) if said else job.status.message or "see its log"


def show_build(runner: JobRunner, job: Job, out: Path) -> bool:
    """The build's state under the form; True while it runs (the form waits for it). An ended
    build (done or failed) no longer needs its uploaded corpus: it is removed."""
    if job.active:
        watch_job(job.id, f"Building {out.name}…")
        return True
    if job.state is JobState.DONE:
        from .resources import open_index

        forget_upload(out.name)
        built = open_index(out)
        if built is not None:
            done = built.stats()
            st.success(f"Built {out.name}: {done.documents:,} documents, {done.chunks:,} "
                       "chunks" + (f", {len(done.skipped)} rows skipped"
                                   if done.skipped else "") + ".")
            offer_search_on(out.name, key=f"search-built-{job.id}")
        return False
    if job.state is JobState.FAILED:
        forget_upload(out.name)
        st.error(f"The build failed: {failure(job)}")
        with st.expander("Log (last lines)"):
            st.code(job.log_tail(25) or "(nothing written)", language=None)
        return False
    show_job(runner, job)  # cancelled: what it saved is kept, to continue from
    if job.can_resume and st.button(f"Resume building {out.name}", key="build-resume"):
        runner.resume(job.id)
        st.rerun()
    return False
