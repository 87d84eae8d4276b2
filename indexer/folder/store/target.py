"""Where a build may publish: checked before anything is read, encoded or written."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...errors import CorruptIndexError, IndexerError
from ...manifest import FORMAT
from ...private import BUILD, LOCK
from .manifest import FOLDER_FORMAT_VERSION, MANIFEST, parse, read_raw, token
from .publishing import STAGING, VERSIONED


def check_target(folder: str | Path) -> str | None:
    """The token of what a build into `folder` replaces (None: nothing yet).

    A new or empty folder, an index (even a damaged one) and what an interrupted build left
    are fine. Refused, naming the folder: a file; a path below a file; a folder this user may
    not write in; a folder holding other things; a foreign `manifest.json`; an index written
    by a newer BERTScope.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise IndexerError(f"--out {folder} is a file; pass a folder for the index")
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise IndexerError(f"out {folder} lies below {existing}, which is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise IndexerError(f"out {folder}: no permission to write in {existing}")
    if not folder.is_dir():
        return None
    names = sorted(p.name for p in folder.iterdir())
    raw = read_raw(folder)
    if raw is not None:
        try:
            parse(folder, raw)
        except CorruptIndexError as exc:
            _refuse_if_not_ours(folder, raw, exc, names)
        return token(raw)
    others = [n for n in names if not _ours(n)]
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise IndexerError(f"{folder} is not empty and is not a BERTScope index ({shown}); "
                           "choose a new or empty folder")
    return None


def _refuse_if_not_ours(folder: Path, raw: bytes, exc: CorruptIndexError,
                        names: list[str]) -> None:
    """A damaged index of ours may be rebuilt; a newer one or someone else's file may not."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        have = data.get("format_version")
        if isinstance(have, int) and have > FOLDER_FORMAT_VERSION:
            raise IndexerError(f"{folder} holds an index written by a newer BERTScope (format "
                               f"{have}); a build would replace it: upgrade BERTScope, or build "
                               "into another folder") from exc
        return  # ours, damaged: a build replaces it
    if data is None and any(VERSIONED.match(n) for n in names):
        return  # an unreadable manifest beside our version files: ours, damaged
    raise IndexerError(f"{folder} holds a {MANIFEST} that is not a BERTScope index manifest; "
                       "choose another folder for the index") from exc


def _ours(name: str) -> bool:
    return (name in (MANIFEST, LOCK) or name.startswith((STAGING, BUILD, f".{MANIFEST}."))
            or VERSIONED.match(name) is not None)
