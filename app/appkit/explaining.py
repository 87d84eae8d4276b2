"""One cached explanation per (index, query, hit, steps): reruns of the page reuse it."""

from __future__ import annotations

import streamlit as st


@st.cache_data(show_spinner=False, max_entries=64)
def explain_hit(index_key: str, query: str, chunk_id: int, steps: int, _index, _hit):
    """`_index.explain(query, _hit)`; the leading-underscore arguments are not hashed, the
    others name them (`index_key` changes when the index is rebuilt)."""
    return _index.explain(query, _hit, steps=steps)
