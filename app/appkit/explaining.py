"""Explanations of a hit, cached per (index, query, hit, method, steps, readers): reruns of the
page reuse them, and a reader never gets one cached for another. Occlusion (about a second or
less once the torch model is loaded: bench/results/explain-timing.md) comes first; the exact
method runs on request, with progress (`progress.ProgressBar`)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


@st.cache_data(show_spinner=False, max_entries=64)
def explain_hit(index_key: str, query: str, chunk_id: int, method: str, steps: int, _index,
                _hit, _progress: Callable[[int, int], None] | None = None,
                readers: tuple[str, ...] | None = None):
    """`_index.explain(query, _hit, ..., readers=readers)`: a hit of a document hidden from
    `readers` raises `KeyError` as a missing one. The leading-underscore arguments are not
    hashed, the others name them (`index_key` changes when the index is rebuilt)."""
    return _index.explain(query, _hit, method=method, steps=steps, progress=_progress,
                          readers=readers)
