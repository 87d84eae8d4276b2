"""The Training page's list of every run on this machine (running, queued, finished, failed,
cancelled): one table of what each is and what it gave, then each run with its results and its
actions (`training_run.show_run`); the one this session started, and any still running, open."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import streamlit as st

from common.jobs import Job, JobRunner, JobState, duration

from .config import AppConfig
from .links import page_link
from .training_run import JOB_KEY, all_runs, show_run


def result_text(job: Job, where: str = "in its section below") -> str:
    """What the run gave, in a few words: dev scores, the adaptation's check, or where it is
    (`where` its progress is drawn: below on the Training page, there from the Models page)."""
    if job.active:  # the table is drawn once; the run's own section redraws live
        return f"running: its progress is {where}" \
            if job.state is JobState.RUNNING else "queued behind the job ahead"
    if job.state is not JobState.DONE:
        return job.status.message or job.state.value
    from training.adapt import read_adapt
    from training.report import read_metrics, result_summary

    run = Path(job.spec.outputs["run"])
    if job.spec.kind == "adapt":
        record = read_adapt(run)
        return "no check recorded" if record is None else result_summary(None, record)
    return result_summary(read_metrics(run) or {})


def runs_table(runs: list[Job], where: str = "in its section below") -> pd.DataFrame:
    return pd.DataFrame([{
        "run": Path(j.spec.outputs["run"]).name,
        "what": "adapt (no labels)" if j.spec.kind == "adapt" else "fine-tune",
        "state": j.state.value,
        "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(j.created)),
        "took": duration(j.seconds) if j.seconds is not None and not j.active else "",
        "result": result_text(j, where),
    } for j in runs])


def runs_list(runner: JobRunner, config: AppConfig) -> None:
    runs = all_runs(runner)
    if not runs:
        return
    st.subheader(f"Runs on this machine ({len(runs)})")
    st.table(runs_table(runs), hide_index=True)  # wraps: no column cut off on the right
    opened = st.session_state.get(JOB_KEY) or runs[0].id
    for job in runs:
        state = job.state.value
        with st.expander(f"{job.spec.title} · {state}",
                         expanded=job.active or job.id == opened):
            show_run(runner, job, config)


def unfinished_runs(runner: JobRunner) -> None:
    """For the Models page: the runs that left no model (cancelled, failed) or have not yet
    (running, queued), where to continue them."""
    runs = [j for j in all_runs(runner) if j.state is not JobState.DONE]
    if not runs:
        return
    st.markdown(f"**Runs without a model yet ({len(runs)})**: cancelled, failed, running or "
                "queued. Resume, re-run or watch them on the Training page.")
    st.table(runs_table(runs, "on the Training page"), hide_index=True)
    page_link("pages/7_Training.py", "Open the Training page", ":material/fitness_center:")
