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


def offer_search_on(name: str, key: str) -> None:
    """After an index is built or synced: where it is searched (the Search page's sidebar picks
    the index; a new one is not chosen by itself), and a button that opens it there."""
    st.caption(f"To search it, choose **{name}** under *Index* in the Search page's sidebar "
               "(the Search page opens on the default index).")
    if st.button(f"Search {name}", key=key, icon=":material/search:"):
        st.session_state["search-index"] = name
        try:
            st.switch_page("pages/1_Search.py")
        except StreamlitPageNotFoundError:  # a page run on its own: the caption says where
            pass
