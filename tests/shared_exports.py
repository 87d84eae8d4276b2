"""Scratch homes that reuse the session's exports: an export is keyed by its weights'
fingerprint and published whole under a lock, so a test that wants a home without heads, jobs or
runs need not export minilm again (6 CPU-s each)."""

from __future__ import annotations

from pathlib import Path


def share_exports(home: Path) -> Path:
    """Link `home/exports` to the current `$BERTSCOPE_HOME`'s (call before pointing the variable
    at `home`); return `home`."""
    from common import bertscope_home

    home.mkdir(parents=True, exist_ok=True)
    (home / "exports").symlink_to(bertscope_home("exports"), target_is_directory=True)
    return home
