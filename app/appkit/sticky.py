"""A sidebar selectbox whose choice outlives its options: "Compare with" offers every index (or
model) but the page's own, so choosing that one as the page's own hides the comparison, and
Streamlit resets a selectbox whose value left its options and drops a widget's state when the
user opens another page. The choice is kept apart from the widget (`{key}-wanted`, plain session
state) and put back whenever it is among the options again."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st


def sticky_selectbox(label: str, options: Sequence[str], *, key: str, help: str = "") -> str:
    """`st.sidebar.selectbox(label, options, key=key)` showing the user's last choice whenever
    it is one of `options` (else the first option)."""
    wanted = f"{key}-wanted"
    if st.session_state.get(wanted) in options:
        st.session_state[key] = st.session_state[wanted]  # before the widget exists: allowed

    def remember() -> None:
        st.session_state[wanted] = st.session_state[key]

    return st.sidebar.selectbox(label, list(options), key=key, on_change=remember, help=help)


def prefer(key: str, option: str) -> None:
    """Make `option` the choice of the sticky selectbox `key` the next time a page draws it
    (another page sends the user there with it chosen)."""
    st.session_state[f"{key}-wanted"] = option
