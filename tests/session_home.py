"""Scratch `$BERTSCOPE_HOME`s that reuse parts of the session's: a converted model (`models`) or
an export (`exports`, keyed by its weights' fingerprint) is published whole under a lock, so a
test that wants a home of its own (no heads, jobs or runs; exports of its own) need not convert
e5 or export minilm again."""

from __future__ import annotations

from pathlib import Path


def linked_home(root: Path, *parts: str) -> Path:
    """`root`, with each of `parts` a link to the current `$BERTSCOPE_HOME`'s folder of that name
    (call it before pointing the variable at `root`)."""
    from common import bertscope_home

    root.mkdir(parents=True, exist_ok=True)
    for part in parts:
        (root / part).symlink_to(bertscope_home(part), target_is_directory=True)
    return root
