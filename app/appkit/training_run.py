"""A fit job on the Training page: its state, steps, time left, log and Cancel (`appkit.jobs`),
with the run's loss and dev curves redrawn as the run logs them; once it is done, "Re-index with
this model" (a rebuild job, `indexer.jobs.rebuild_job`, with its own progress), then buttons
that open the Search page comparing both indexes and the Attention and Disambiguation pages with
the new model beside the bundled one."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from common.jobs import Job, JobRunner, JobState

from .config import AppConfig
from .discovery import default_position, find_indexes, label
from .jobs import show_job, watch_job
from .model_picker import model_options
from .sticky import prefer

JOB_KEY = "train-job"  # the fit job this session started (else the newest one is shown)
PAGES_WITH_A_SECOND_MODEL = (("Attention", "pages/2_Attention.py", "attn-compare"),
                             ("Disambiguation", "pages/3_Disambiguation.py", "dis-compare"))


def latest_fit(runner: JobRunner) -> Job | None:
    """The fit job this session started, else the newest fit job on this machine."""
    wanted = st.session_state.get(JOB_KEY)
    if wanted:
        return next((j for j in runner.jobs(kind="fit") if j.id == wanted), None)
    found = runner.jobs(kind="fit")
    return found[0] if found else None


def draw_curves(job: Job) -> None:
    """The run's training loss and dev Spearman as logged so far (`training.report`)."""
    from charts.training import training_curve

    from training.report import read_metrics, run_curves

    run = job.spec.outputs["run"]
    loss, dev = run_curves(run)
    if not loss and not dev:
        st.caption("No loss logged yet: the curves start at the first logged step.")
        return
    before = (read_metrics(run) or {}).get("dev_before") or {}
    st.plotly_chart(training_curve(loss, dev, before.get("spearman")), key=f"curve-{job.id}")
    st.caption(f"{len(loss)} loss points, {len(dev)} dev scores logged"
               + (" (step 0: the base model's dev score)" if before else "") + ".")


def show_fit(runner: JobRunner, job: Job, config: AppConfig) -> None:
    """The job live while it runs; when it has ended, what it left and what to do next."""
    if job.active:
        watch_job(job.id, "Training…", extra=draw_curves)
        return
    show_job(runner, job)
    draw_curves(job)
    if job.state is not JobState.DONE:
        offer_resume(runner, job)
        return
    run = Path(job.spec.outputs["run"])
    scores_line(run)
    offer_pages(run, config)
    offer_reindex(runner, run, config)


def scores_line(run: Path) -> None:
    from training.report import read_metrics

    m = read_metrics(run) or {}
    before, after = m.get("dev_before") or {}, m.get("dev_after") or {}
    if before.get("spearman") is not None and after.get("spearman") is not None:
        st.markdown(f"Dev Spearman × 100: **{before['spearman']:.2f}** before, "
                    f"**{after['spearman']:.2f}** after (the best checkpoint).")


def offer_resume(runner: JobRunner, job: Job) -> None:
    from training.jobs import saved_step

    step = saved_step(job.spec.outputs["run"])
    if job.can_resume and step and st.button(f"Resume from step {step}", key="train-resume"):
        st.session_state[JOB_KEY] = runner.resume(job.id).id
        st.rerun()


def model_option(run: Path, config: AppConfig) -> str | None:
    """The trained model's label in the pages' model pickers (None: not under the runs root)."""
    return next((k for k, v in model_options(config).items() if v == str(run)), None)


def offer_pages(run: Path, config: AppConfig) -> None:
    """Buttons to the pages that draw a second model beside the first."""
    option = model_option(run, config)
    if option is None:
        st.caption(f"The other pages list model folders under {config.runs_root}; {run} is not "
                   "one of them.")
        return
    columns = st.columns(len(PAGES_WITH_A_SECOND_MODEL))
    for where, (name, page, key) in zip(columns, PAGES_WITH_A_SECOND_MODEL, strict=True):
        if where.button(f"{name}: {run.name} beside the bundled model", key=f"open-{key}"):
            prefer(key, option)
            st.switch_page(page)


def rebuild_of(runner: JobRunner, run: Path) -> Job | None:
    found = [j for j in runner.jobs(kind="rebuild") if j.spec.outputs.get("model") == str(run)]
    return found[0] if found else None


def offer_reindex(runner: JobRunner, run: Path, config: AppConfig) -> None:
    """Re-index a chosen index with the run's model (a job), or the one under way or done."""
    from indexer.jobs import rebuild_job

    st.subheader("Re-index with this model")
    job = rebuild_of(runner, run)
    if job is not None and job.active:
        watch_job(job.id, "Re-indexing…")
        return
    if job is not None:
        show_job(runner, job)
        if job.state is JobState.DONE:
            offer_search(job, config)
            return
        if job.can_resume and st.button("Resume re-indexing (from the shards it encoded)",
                                        key="train-reindex-resume"):
            runner.resume(job.id)
            st.rerun()
    indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
    if not indexes:
        st.info(f"No index under {config.index_root} to re-index; build one on the Index page.")
        return
    names = list(indexes)
    source = st.selectbox("Index to re-index", names, key="train-reindex-source",
                          index=default_position(names, config.default_index))
    out = config.index_root / f"{Path(source).name}-{run.name}"
    st.caption(f"Its documents, chunking and metadata encoded again with {run.name} into {out} "
               "(a job: `python -m indexer rebuild`); the index itself is only read.")
    if st.button("Re-index with this model", type="primary", key="train-reindex",
                 disabled=out.exists(), help=f"{out} exists already." if out.exists() else None):
        runner.submit(rebuild_job(indexes[source], out, str(run)))
        st.rerun()


def offer_search(job: Job, config: AppConfig) -> None:
    """Open the Search page with the re-indexed pair chosen: the source, compared with the new."""
    source, new = Path(job.spec.outputs["source"]), Path(job.spec.outputs["index"])
    if st.button(f"Compare {label(source, config.index_root)} with "
                 f"{label(new, config.index_root)} on the Search page", type="primary",
                 key="train-compare"):
        st.session_state["search-index"] = label(source, config.index_root)
        prefer("search-compare", label(new, config.index_root))
        st.switch_page("pages/1_Search.py")
