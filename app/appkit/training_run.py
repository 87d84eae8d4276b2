"""One training run on the Training page (a `fit` or `adapt` job): its state, steps, time left,
log and Cancel (`appkit.jobs`), with the run's loss and dev curves redrawn as the run logs them;
once it is done, its results (dev scores, or an adaptation's held-out check and verdict), then
"Re-index with this model" (a rebuild job, `indexer.jobs.rebuild_job`, with its own progress)
and buttons that open the Search page comparing both indexes and the Attention and
Disambiguation pages with the new model beside the bundled one. Every key carries the job's id,
so any number of runs sit on one page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from common.jobs import Job, JobRunner, JobState

from .config import AppConfig
from .discovery import default_position, find_indexes, label
from .jobs import show_job, watch_job
from .model_picker import model_options
from .sticky import prefer

JOB_KEY = "train-job"  # the run this session started (shown open)
RUN_KINDS = ("fit", "adapt")
PAGES_WITH_A_SECOND_MODEL = (("Attention", "pages/2_Attention.py", "attn-compare"),
                             ("Disambiguation", "pages/3_Disambiguation.py", "dis-compare"))


def all_runs(runner: JobRunner) -> list[Job]:
    """Every fit and adapt job on this machine, newest first, whatever its state."""
    return [j for j in runner.jobs() if j.spec.kind in RUN_KINDS]


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


def show_run(runner: JobRunner, job: Job, config: AppConfig) -> None:
    """The job live while it runs; when it has ended, what it left and what to do next."""
    if job.active:
        watch_job(job.id, "Adapting…" if job.spec.kind == "adapt" else "Training…",
                  extra=draw_curves)
        return
    show_job(runner, job)
    draw_curves(job)
    if job.state is not JobState.DONE:
        offer_resume(runner, job)
        return
    run = Path(job.spec.outputs["run"])
    recommended = adapt_verdict(run) if job.spec.kind == "adapt" else scores_line(run)
    offer_pages(run, config, job.id)
    offer_reindex(runner, run, config, job, recommended)


def scores_line(run: Path) -> bool:
    from training.report import read_metrics

    m = read_metrics(run) or {}
    before, after = m.get("dev_before") or {}, m.get("dev_after") or {}
    if before.get("spearman") is not None and after.get("spearman") is not None:
        st.markdown(f"Dev Spearman × 100: **{before['spearman']:.2f}** before, "
                    f"**{after['spearman']:.2f}** after (the best checkpoint).")
    return True


def adapt_verdict(run: Path) -> bool:
    """The adaptation's own check, before and after, and its verdict in words; True when the
    adapted model is the better one."""
    from training.adapt import read_adapt

    record = read_adapt(run)
    if record is None:
        st.warning(f"{run} has no adapt.json: the adaptation did not finish its check, so "
                   "nothing says whether it helped.")
        return False
    check, before, after = record["check"], record["before"], record["after"]
    verdict = record["verdict"]
    (st.success if verdict["better"] else st.warning)(verdict["text"])
    if not check["queries"]:
        st.caption(f"The index has too few documents ({record['documents']:,}) to hold a tenth "
                   "out for a check: nothing measured whether adapting helped.")
        return False
    st.caption(
        f"The check: {check['documents']:,} of the index's documents held out from training, "
        f"searched by {check['queries']:,} pseudo-queries (their own titles, and a sentence "
        f"taken out of each). nDCG@10 {before['ndcg@10']:.4f} → {after['ndcg@10']:.4f}; "
        f"MRR@10 {before['mrr@10']:.4f} → {after['mrr@10']:.4f}. Pseudo-queries are not your "
        "users' questions: on SciFact this check rose for pair sources that lowered real "
        "queries' scores (bench/results/adapt_scifact.md), which is why adapting uses titles "
        "and headings only.")
    return bool(verdict["better"])


def offer_resume(runner: JobRunner, job: Job) -> None:
    from training.jobs import saved_step

    step = saved_step(job.spec.outputs["run"])
    if job.can_resume and step and st.button(f"Resume from step {step}",
                                             key=f"train-resume-{job.id}"):
        st.session_state[JOB_KEY] = runner.resume(job.id).id
        st.rerun()


def model_option(run: Path, config: AppConfig) -> str | None:
    """The trained model's label in the pages' model pickers (None: not under the runs root)."""
    return next((k for k, v in model_options(config).items() if v == str(run)), None)


def offer_pages(run: Path, config: AppConfig, job_id: str) -> None:
    """Buttons to the pages that draw a second model beside the first."""
    option = model_option(run, config)
    if option is None:
        st.caption(f"The other pages list model folders under {config.runs_root}; {run} is not "
                   "one of them.")
        return
    columns = st.columns(len(PAGES_WITH_A_SECOND_MODEL))
    for where, (name, page, key) in zip(columns, PAGES_WITH_A_SECOND_MODEL, strict=True):
        if where.button(f"{name}: {run.name} beside the bundled model",
                        key=f"open-{key}-{job_id}"):
            prefer(key, option)
            st.switch_page(page)


def rebuild_of(runner: JobRunner, run: Path) -> Job | None:
    found = [j for j in runner.jobs(kind="rebuild") if j.spec.outputs.get("model") == str(run)]
    return found[0] if found else None


def offer_reindex(runner: JobRunner, run: Path, config: AppConfig, job: Job,
                  recommended: bool = True) -> None:
    """Re-index a chosen index with the run's model (a job), or the one under way or done; an
    adaptation that did not help is offered only as "anyway", beside its verdict."""
    from indexer.jobs import rebuild_job

    st.markdown("**Re-index with this model**")
    rebuild = rebuild_of(runner, run)
    if rebuild is not None and rebuild.active:
        watch_job(rebuild.id, "Re-indexing…")
        return
    if rebuild is not None:
        show_job(runner, rebuild)
        if rebuild.state is JobState.DONE:
            offer_search(rebuild, config)
            return
        if rebuild.can_resume and st.button("Resume re-indexing (from the shards it encoded)",
                                            key=f"train-reindex-resume-{job.id}"):
            runner.resume(rebuild.id)
            st.rerun()
    indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
    if not indexes:
        st.info(f"No index under {config.index_root} to re-index; build one on the Index page.")
        return
    names = list(indexes)
    adapted = job.spec.outputs.get("index")
    first = label(Path(adapted), config.index_root) if adapted else config.default_index
    source = st.selectbox("Index to re-index", names, key=f"train-reindex-source-{job.id}",
                          index=default_position(names, first))
    base = Path(source).name  # a run named after its index (bbc-news-adapted) names the copy
    out = config.index_root / (run.name if run.name.startswith(base) else f"{base}-{run.name}")
    st.caption(f"Its documents, metadata and chunks (the same spans) encoded again with "
               f"{run.name} into {out} (a job: `python -m indexer rebuild`); the index itself "
               "is only read.")
    if not recommended:
        st.caption("Not recommended: the check above found no gain. Re-indexing anyway lets "
                   "you compare for yourself.")
    if st.button("Re-index with this model" if recommended else "Re-index anyway",
                 type="primary" if recommended else "secondary", key=f"train-reindex-{job.id}",
                 disabled=out.exists(), help=f"{out} exists already." if out.exists() else None):
        runner.submit(rebuild_job(indexes[source], out, str(run)))
        st.rerun()


def offer_search(job: Job, config: AppConfig) -> None:
    """Open the Search page with the re-indexed pair chosen: the source, compared with the new."""
    source, new = Path(job.spec.outputs["source"]), Path(job.spec.outputs["index"])
    if st.button(f"Compare {label(source, config.index_root)} with "
                 f"{label(new, config.index_root)} on the Search page", type="primary",
                 key=f"train-compare-{job.id}"):
        st.session_state["search-index"] = label(source, config.index_root)
        prefer("search-compare", label(new, config.index_root))
        st.switch_page("pages/1_Search.py")
