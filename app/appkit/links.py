"""Links from one page to another that also work where a page runs on its own."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError


def page_link(path: str, label: str, icon: str) -> None:
    """`st.page_link` to `path` (relative to app/Home.py).

    A page run by itself (`streamlit run app/pages/5_Models.py`, Streamlit's AppTest) has no
    other page registered, and Streamlit refuses the link; the page then says in words where
    the other page is, instead of failing.
    """
    try:
        st.page_link(path, label=label, icon=icon)
    except StreamlitPageNotFoundError:
        st.caption(f"{label}: it is in the sidebar of the full app (`bertscope app`).")
