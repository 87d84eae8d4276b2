"""Explanations of a hit, cached per (index, query, hit, method, steps): reruns of the page reuse
them. Occlusion (about a second) comes first; the exact method runs on request, with progress."""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st


@st.cache_data(show_spinner=False, max_entries=64)
def explain_hit(index_key: str, query: str, chunk_id: int, method: str, steps: int, _index,
                _hit, _progress: Callable[[int, int], None] | None = None):
    """`_index.explain(query, _hit, ...)`; the leading-underscore arguments are not hashed, the
    others name them (`index_key` changes when the index is rebuilt)."""
    return _index.explain(query, _hit, method=method, steps=steps, progress=_progress)


def progress_bar(label: str) -> Callable[[int, int], None]:
    """A `progress(done, total)` that draws a bar with the time left, estimated from the rate so
    far. Each update is a Streamlit call: when the person changes a control or closes the page,
    Streamlit stops the run there, so the work stops with it."""
    bar = st.progress(0.0, text=label)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        elapsed = time.perf_counter() - started
        left = elapsed / done * (total - done) if done else None
        eta = f" · about {left:.0f} s left" if left is not None else ""
        bar.progress(min(done / max(total, 1), 1.0),
                     text=f"{label}: {done:,} of {total:,} Jacobian-vector products{eta}")

    return progress
