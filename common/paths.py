"""`check_path`: a path argument of a library call, checked before it reaches `open()` or
`Path()`, so None, a number or "" give a sentence that names the argument instead of a traceback
from deep inside."""

from __future__ import annotations

import os
from pathlib import Path


def check_path(value: object, what: str = "path",
               accepted: str = "a path (str or pathlib.Path)") -> Path:
    """`value` as an expanded `Path`; a `TypeError` naming `what` and `accepted` when it is not a
    str / os.PathLike, a `ValueError` when it is empty or holds a NUL character."""
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what} must be {accepted}, got {value!r} ({type(value).__name__})")
    text = os.fspath(value)
    if isinstance(text, bytes) or not text.strip():
        raise ValueError(f"{what} is empty: pass {accepted}")
    if "\x00" in text:
        raise ValueError(f"{what} {text!r} contains a NUL character")
    if "://" in text:
        raise ValueError(f"{what} {text!r} is a URL; pass {accepted}")
    return Path(text).expanduser()
