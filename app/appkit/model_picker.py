"""Sidebar widget: a bundled model or a trained model folder found under the runs root."""

from __future__ import annotations

import streamlit as st

from .config import AppConfig
from .discovery import find_trained_models, label


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
