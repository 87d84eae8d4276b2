"""`$BERTSCOPE_HOME`: where BERTScope keeps what it makes outside the repository (converted
models, benchmark caches, training runs)."""

from __future__ import annotations

import os
from pathlib import Path


def bertscope_home(*parts: str, create: bool = True) -> Path:
    """`$BERTSCOPE_HOME` (default `~/.cache/bertscope`) joined with `parts`; created unless
    `create=False`."""
    home = Path(os.environ.get("BERTSCOPE_HOME") or Path.home() / ".cache" / "bertscope")
    path = home.expanduser().joinpath(*parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
