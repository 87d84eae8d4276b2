"""The Training page's one click: "Adapt to this index" fine-tunes the index's own encoder on the
index's own documents, with no labels (`python -m training adapt`, a job), then says whether it
helped on a held-out slice of those documents. The run appears in the page's list of runs."""

from __future__ import annotations

import shlex
from pathlib import Path

import streamlit as st

from common.jobs import JobRunner

from .config import AppConfig
from .discovery import default_position, find_indexes, label
from .training_run import JOB_KEY


def free_folder(root: Path, name: str) -> Path:
    out, n = root / name, 2
    while out.exists():
        out, n = root / f"{name}-{n}", n + 1
    return out


def adapt_panel(runner: JobRunner, config: AppConfig) -> None:
    from training.adapt_config import MEASURED_TIME
    from training.jobs import adapt_job

    st.subheader("Adapt to this index")
    indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)
               if p.is_dir()}
    if not indexes:
        st.info(f"No index under {config.index_root} to adapt to. Build the default one on the "
                "Index page (or `python -m indexer default`), then come back.")
        return
    names = list(indexes)
    name = st.selectbox("Index", names, key="adapt-index",
                        index=default_position(names, config.default_index))
    index = indexes[name]
    out = free_folder(config.runs_root, f"{Path(name).name}-adapted")
    st.caption(
        "Fine-tunes the index's own encoder on the index's own documents, with no labels: each "
        "document's title (or a section's heading) and its first passage make a pair, and the "
        "other pairs of a batch are the negatives (MNRL). A tenth of the documents is held out "
        "first: their titles and a sentence taken out of each are searched before and after, "
        "and the run says whether the adapted model did better there. "
        f"{MEASURED_TIME} In a terminal: `"
        + shlex.join(["python", "-m", "training", "adapt", "--index", str(index), "--out",
                      str(out)]) + "`.")
    if st.button(f"Adapt to {name}", type="primary", key="adapt-start"):
        job = runner.submit(adapt_job(index, out, title=f"Adapt to {name} into {out.name}"))
        st.session_state[JOB_KEY] = job.id
        st.rerun()
