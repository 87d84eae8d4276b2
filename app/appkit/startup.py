"""The first view after `streamlit run` imports torch, transformers and FAISS (tens of seconds on
2 cores). Pages call `load_libraries()` right after their title, so that view shows the title and
a spinner instead of a blank page; later views find the modules imported and skip the spinner."""

from __future__ import annotations

import importlib
import sys

import streamlit as st

HEAVY = ("encoder.encoder", "indexer", "training")  # `encoder` alone is light (lazy names)


def load_libraries() -> None:
    missing = [name for name in HEAVY if name not in sys.modules]
    if not missing:
        return
    with st.spinner("Starting up: loading torch, transformers and FAISS (first view only)…"):
        for name in missing:
            importlib.import_module(name)
