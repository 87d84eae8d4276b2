"""`shipped_folder`: a folder BERTScope ships beside its packages (the app's scripts, the
training recipes): the checkout's own where the packages run from one (the repository, an
editable install), else where a wheel installed it, `<prefix>/share/bertscope/NAME`."""

from __future__ import annotations

import sys
from pathlib import Path

from .home import REPO


def shipped_folder(name: str) -> Path:
    """The folder `name` (e.g. "app", "recipes"); the wheel's place when neither exists, so a
    message naming it says where it should be."""
    here = REPO / name
    return here if here.is_dir() else Path(sys.prefix) / "share" / "bertscope" / name
