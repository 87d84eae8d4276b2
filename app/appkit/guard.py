"""Run one library call; a bad input becomes a message on the page, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

T = TypeVar("T")

EXPECTED = (TypeError, ValueError, LookupError, OSError, RuntimeError)


def sentence(exc: BaseException | str) -> str:
    """The exception's message (or a library's message as text) as a sentence; a message that
    starts with a file name or path ("up.jsonl is empty") keeps it as it is."""
    text = (exc if isinstance(exc, str) else str(exc)).strip() or type(exc).__name__
    first = text.split()[0]
    return text[0].upper() + text[1:] if first.isalpha() else text


def call_or_stop(fn: Callable[..., T], *args, what: str = "", **kwargs) -> T:
    """`fn(*args, **kwargs)`, or an `st.error` with the library's own sentence and `st.stop()`."""
    try:
        return fn(*args, **kwargs)
    except EXPECTED as exc:
        st.error(f"{what}{': ' if what else ''}{sentence(exc)}")
        st.stop()
