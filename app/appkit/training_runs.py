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


def result_text(job: Job) -> str:
    """What the run gave, in a few words: dev scores, the adaptation's check, or where it is."""
    if job.active:  # the table is drawn once; the run's own section below redraws live
        return "running: its progress is in its section below" \
            if job.state is JobState.RUNNING else "queued behind the job ahead"
    if job.state is not JobState.DONE:
        return job.status.message or job.state.value
    from training.adapt import read_adapt
    from training.report import read_metrics

    run = Path(job.spec.outputs["run"])
    if job.spec.kind == "adapt":
        record = read_adapt(run)
        if record is None:
            return "no check recorded"
        if not record["check"]["queries"]:
            return "no check: too few documents to hold any out"
        word = "better" if record["verdict"]["better"] else "no measured gain"
        return (f"check nDCG@10 {record['before']['ndcg@10']:.4f} → "
                f"{record['after']['ndcg@10']:.4f} ({word})")
    m = read_metrics(run) or {}
    before, after = (m.get("dev_before") or {}), (m.get("dev_after") or {})
    if before.get("spearman") is not None and after.get("spearman") is not None:
        return f"dev Spearman {before['spearman']:.2f} → {after['spearman']:.2f}"
    return "trained (no dev set)"


def runs_table(runs: list[Job]) -> pd.DataFrame:
    return pd.DataFrame([{
        "run": Path(j.spec.outputs["run"]).name,
        "what": "adapt (no labels)" if j.spec.kind == "adapt" else "fine-tune",
        "state": j.state.value,
        "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(j.created)),
        "took": duration(j.seconds) if j.seconds is not None and not j.active else "",
        "result": result_text(j),
    } for j in runs])


def runs_list(runner: JobRunner, config: AppConfig) -> None:
    runs = all_runs(runner)
    if not runs:
        return
    st.subheader(f"Runs on this machine ({len(runs)})")
    st.dataframe(runs_table(runs), hide_index=True, width="stretch", key="train-runs")
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
    st.dataframe(runs_table(runs), hide_index=True, width="stretch", key="models-unfinished")
    page_link("pages/7_Training.py", "Open the Training page", ":material/fitness_center:")
