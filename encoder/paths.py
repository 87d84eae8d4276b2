"""Where BERTScope keeps what it builds outside the repository (converted models, caches)."""

from __future__ import annotations

import os
from pathlib import Path


def bertscope_home() -> Path:
    """`$BERTSCOPE_HOME`, default `~/.cache/bertscope`; created on first use."""
    home = Path(os.environ.get("BERTSCOPE_HOME", Path.home() / ".cache" / "bertscope"))
    home.mkdir(parents=True, exist_ok=True)
    return home


def models_dir() -> Path:
    path = bertscope_home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path
