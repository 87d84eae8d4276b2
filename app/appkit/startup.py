"""The first view after `streamlit run` imports torch, transformers and FAISS (tens of seconds on
2 cores). Pages call `load_libraries()` right after their title, so that view shows the title and
a spinner instead of a blank page; later views find the modules imported and skip the spinner."""

from __future__ import annotations

import importlib
import os
import sys

import streamlit as st

HEAVY = ("encoder.encoder", "indexer", "training")  # `encoder` alone is light (lazy names)


def prefer_passive_openmp_waits() -> None:
    """The app serves one query at a time: FAISS's OpenMP threads should sleep after a search,
    not spin on the cores ONNX Runtime encodes the next query on. libgomp reads this when it
    loads, so it is set before the first heavy import, and never over the user's own value.
    Measured side by side (bench/results/search_latency-{spin,passive}.md, 1M HNSW): passive
    waits made onnx's search, its encode and FAISS faster, and left torch unchanged."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def load_libraries() -> None:
    missing = [name for name in HEAVY if name not in sys.modules]
    if not missing:
        return
    prefer_passive_openmp_waits()
    with st.spinner("Starting up: loading torch, transformers and FAISS (first view only)…"):
        for name in missing:
            importlib.import_module(name)
