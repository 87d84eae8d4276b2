"""Length limits on typed text, said out loud. A widget's `max_chars` makes the browser drop a
longer paste without a word, so pages take any length, keep the first `limit` characters and
warn."""

from __future__ import annotations

import streamlit as st


def within_limit(text: str, limit: int, what: str, why: str = "") -> str:
    """`text`, or its first `limit` characters after a warning naming `what` and the limit."""
    if len(text) <= limit:
        return text
    st.warning(f"{what} has {len(text):,} characters; this page reads its first {limit:,} only"
               + (f" ({why})." if why else "."))
    return text[:limit]
