"""Pretraining heads on the page: say whether a model has them and why not (the library's
`encoder.heads_status`), and train a bundled model's once — never silently: the page asks first.
The training is a job (`training.jobs.mlm_heads_job`) in its own process, so it goes on when
the page is left; the page shows its progress whenever it is open (`appkit.jobs`)."""

from __future__ import annotations

import streamlit as st

from common.jobs import Job, JobRunner, JobState

from .jobs import show_job, watch_job

JOB_NOTE = (
    "The training runs as a job in its own process on this machine: leaving this page, "
    "closing the tab or restarting the app does not stop it, and this page shows its progress "
    "whenever it is open. One job runs at a time on this machine; a job started while another "
    "runs waits for it. A stopped job continues from its last checkpoint (every 50 steps). In a "
    "terminal, `python -m training mlm-heads {name}` does the same.")


def offer_bundled_training(encoder, status) -> None:
    """The head-training job for the bundled model: a button that starts it (or resumes a
    stopped one), or the running job's live progress with the button disabled."""
    from encoder import HeadsState
    from training.jobs import heads_key, saved_step
    from training.mlm.bundled import RECIPES

    recipe = RECIPES[encoder.name]
    why = (f"**{encoder.name}'s cached MLM head was trained for another version of the model.**"
           if status.state is HeadsState.OTHER_VERSION
           else f"**{encoder.name} ships without an MLM head.**")
    st.info(f"{why} BERTScope trains one once — head only, the encoder frozen — on "
            f"{recipe.description}, text its packages ship: {recipe.steps} steps ({recipe.minutes}"
            "; the bar shows the time left on this machine once it runs), then cached in "
            "`$BERTSCOPE_HOME/heads`.")
    runner = JobRunner()
    job = runner.latest(heads_key(encoder.name))
    label = f"Train {encoder.name}'s MLM + NSP heads now"
    st.caption(JOB_NOTE.format(name=encoder.name))
    if job is not None and job.active:
        watch_job(job.id, f"Training {encoder.name}'s heads…")
        return
    stopped = job is not None and job.state is not JobState.DONE
    if stopped:  # failed or cancelled: say how, show the log, offer to continue
        show_job(runner, job)
        run = job.spec.outputs.get("run")
        step = saved_step(run) if run else None
        label = (f"Resume {encoder.name}'s head training from step {step}" if step
                 else f"Train {encoder.name}'s MLM + NSP heads again")
    if st.button(label, key="train-heads"):
        start_heads_job(runner, encoder, job if stopped and job.can_resume else None)
        st.rerun()


def start_heads_job(runner: JobRunner, encoder, stopped: Job | None = None) -> Job:
    """Resume `stopped` (a failed or cancelled head-training job), or start a new one for the
    encoder's weights."""
    from training import jobs

    if stopped is not None:
        return runner.resume(stopped.id)
    return runner.submit(jobs.mlm_heads_job(encoder.name, fingerprint=encoder.fingerprint))


def models_with_heads(config, exclude: str) -> dict[str, str]:
    """Label -> model key of every model whose heads are ready: bundled ones with cached heads,
    and trained folders (under the runs root) that carry heads."""
    from encoder import BUNDLED
    from encoder.heads import bundled_heads_dir, has_heads

    from .discovery import find_trained_models, label

    options = {f"{name} (bundled, BERTScope's heads)": name for name in BUNDLED
               if has_heads(bundled_heads_dir(name))}
    for folder in find_trained_models(config.runs_root):
        if has_heads(folder):
            options[f"{label(folder, config.runs_root)} (trained)"] = str(folder)
    return {k: v for k, v in options.items() if v != exclude}


def stop_without_heads(encoder, status) -> None:
    """Explain why the heads are not ready (`status`: `encoder.heads_status`'s answer) and, where
    BERTScope's bundled-head training fixes it, offer it; stop the page."""
    if status.trainable:
        offer_bundled_training(encoder, status)
    else:
        st.info(status.reason)
    st.stop()


def heads_hint(name: str) -> str | None:
    """For a bundled model without BERTScope's heads yet: that fill-mask and next-sentence
    prediction need them, and what training them once takes (a newcomer found out only on the
    Pretraining page); None where they are there."""
    from encoder.heads import bundled_heads_dir, has_heads
    from training.mlm.bundled import RECIPES

    if name not in RECIPES or has_heads(bundled_heads_dir(name)):
        return None
    return (f"Fill-mask and next-sentence prediction need an MLM head, which {name} does not "
            f"ship: the Pretraining page trains BERTScope's once, as a job ({RECIPES[name].minutes}"
            "), and asks before it starts.")


def heads_cell(name: str) -> str:
    """The Models page's MLM head cell of bundled model `name`: whose and how good
    (`encoder.heads_quality.heads_summary`), or, where there is none yet, what fill-mask needs
    first."""
    from encoder.heads import bundled_heads_dir
    from encoder.heads_quality import heads_summary

    hint = heads_hint(name)
    return f"none yet. {hint}" if hint else heads_summary(bundled_heads_dir(name))
