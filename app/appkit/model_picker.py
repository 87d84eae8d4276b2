"""Sidebar widget: a bundled model or a trained model folder found under the runs root."""

from __future__ import annotations

import streamlit as st

from .config import AppConfig
from .discovery import find_trained_models, label
from .sticky import sticky_selectbox


def model_options(config: AppConfig) -> dict[str, str]:
    """Display label → key for `load_encoder` (a bundled name or an absolute folder path)."""
    from encoder import BUNDLED

    options = {f"{name} (bundled)": name for name in BUNDLED}
    for folder in find_trained_models(config.runs_root):
        options[f"{label(folder, config.runs_root)} (trained)"] = str(folder)
    return options


def pick_model(config: AppConfig, *, default: str = "minilm", key: str = "model") -> str:
    options = model_options(config)
    labels = list(options)
    keys = list(options.values())
    index = keys.index(default) if default in keys else 0
    choice = st.sidebar.selectbox(
        "Model", labels, index=index, key=key,
        help=f"Bundled models, and trained model folders under {config.runs_root}.",
    )
    return options[choice]


NONE = "(none)"


def pick_second_model(config: AppConfig, *, key: str, first: str | None = None) -> str | None:
    """An optional second model to draw beside the first (e.g. bundled vs a trained run); the
    first itself is not offered (it would draw the same figures twice under one name); the choice
    comes back when the first model changes again (`sticky_selectbox`)."""
    options = {k: v for k, v in model_options(config).items() if v != first}
    choice = sticky_selectbox(
        "Compare with", [NONE, *options], key=key,
        help="A second model drawn beside the first: a bundled one or a trained run folder.")
    return None if choice in (NONE, None) else options.get(choice)


def model_label(key: str) -> str:
    """A short name for a model key (a bundled name, or a folder's last part)."""
    return key.rstrip("/").rsplit("/", 1)[-1]
