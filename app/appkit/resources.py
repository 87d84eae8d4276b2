"""Models load once per server through `st.cache_resource` (on the `auto` backend: the fastest
whose export passed the fidelity gate); the first load shows a spinner."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from .backends import backend_row
from .discovery import index_stamp

if TYPE_CHECKING:
    from encoder import Encoder
    from encoder.auto_plan import AutoPlan


BACKEND = "auto"  # what the app encodes with; indexes search on their own backend
_loaded: dict[str, Encoder] = {}  # key -> encoder this server loaded (the Models page shows them)


@st.cache_resource(show_spinner=False, max_entries=4)
def _encoder(key: str) -> Encoder:
    from encoder import load_encoder

    enc = load_encoder(key, backend=BACKEND)
    _loaded[key] = enc
    return enc


@st.cache_resource(show_spinner=False, max_entries=4)
def _torch_encoder(key: str) -> Encoder:
    from encoder import load_encoder

    return load_encoder(key, backend="torch")


def inspection_encoder(key: str) -> Encoder:
    """An encoder for pages that look inside the model (attention, trajectories, heads): all of
    that runs on the torch model, so a model not loaded for search loads on torch alone, with no
    fast-backend export (minutes for int8) it would never use. One already loaded is shared."""
    return loaded_encoder(key) or _torch_encoder(key)


def forget_encoders() -> None:
    """Drop every encoder this server holds, cached and recorded: the next page loads afresh
    (what `st.cache_resource.clear()` alone left behind in the record)."""
    st.cache_resource.clear()
    _loaded.clear()


def loaded_encoder(key: str) -> Encoder | None:
    """The encoder for `key` if this server has loaded it already (None: not loaded yet)."""
    return _loaded.get(key)


@st.cache_data(ttl=30, show_spinner=False)
def planned_backend(key: str) -> AutoPlan:
    """What `auto` would encode `key` with, from the exports on disk (nothing loaded); kept 30 s:
    it hashes the model folder and verifies the exports' checksums."""
    from encoder.auto_plan import auto_plan

    return auto_plan(key)


def backend_cells(key: str) -> dict[str, str]:
    """The Models page's backend / fidelity / note cells for `key`: the loaded encoder's, else
    what `auto` would pick."""
    enc = loaded_encoder(key)
    return backend_row(enc, None if enc is not None else planned_backend(key))


@st.cache_data(ttl=30, show_spinner=False)
def _first_use_export(key: str) -> tuple[str, float] | None:
    from encoder.auto_plan import first_use_export

    return first_use_export(key)


def loading_message(key: str, inspect_only: bool = False) -> str:
    """What the spinner says while `key` loads: the export its first use makes, with the time it
    is estimated to take, where there is one (inspection loads torch alone: none)."""
    if loaded_encoder(key) is not None:
        return f"Loading the encoder {key}…"
    first = None if inspect_only else _first_use_export(key)
    if first is None:
        return f"Loading the encoder {key} (the first time on this server takes a while)…"
    backend, seconds = first
    return (f"Loading the encoder {key}: its first use on this machine exports it to {backend}, "
            f"about {seconds:.0f} s on 2 cores (once per model; faster encoding afterwards)…")


def get_encoder(key: str, *, inspect_only: bool = False) -> Encoder:
    """The encoder for a bundled name or a model folder; failures stop the page with a message.
    `inspect_only`: the page only looks inside the model (see `inspection_encoder`)."""
    with st.spinner(loading_message(key, inspect_only)):
        try:
            return inspection_encoder(key) if inspect_only else _encoder(key)
        except (ValueError, TypeError, RuntimeError, OSError, ImportError) as exc:
            st.error(f"Cannot load the encoder {key!r}: {exc}")
            st.stop()


@st.cache_resource(show_spinner=False, max_entries=4)
def _index(path: str, stamp):
    # `stamp` (`index_stamp`: a new version of either store) makes it load afresh.
    from indexer import SemanticIndex

    return SemanticIndex.open(path)


def open_index(path: Path):
    """The index in `path` (a folder, or a `NAME.milvus` file naming a Milvus index), opened
    once per version (of a Milvus index: per change of the file; its writes are live), or None
    after an `st.error` saying why."""
    with st.spinner(f"Opening the index {path.name} (the first time takes a while)…"):
        try:
            return _index(str(path), index_stamp(path))
        except (ValueError, TypeError, RuntimeError, OSError, ImportError) as exc:
            st.error(f"Cannot open the index {path.name}: {exc}")
            return None


def get_index(path: Path):
    """Like `open_index`, but a damaged index stops the page after its message."""
    index = open_index(path)
    if index is None:
        st.stop()
    return index
