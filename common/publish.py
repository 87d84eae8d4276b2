"""Folders built once and published whole: built in a hidden staging folder beside the target,
fsynced, renamed over it, under a lock so that two processes never build the same one; each
file's checksum recorded so that a later load can tell a damaged folder from a good one.

Backend exports and the converted e5 model are made this way."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .atomic import fsync_path, fsync_tree
from .hashing import CHECKSUM, file_checksum
from .locks import FileLock


def file_checksums(folder: Path, *, leave_out: Iterable[str] = (),
                   keep: Callable[[str], bool] | None = None,
                   algorithm: str = CHECKSUM) -> dict[str, str]:
    """{relative path: checksum} of every file below `folder`, but those named in `leave_out`
    and those whose relative path `keep` refuses."""
    skip = set(leave_out)
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in skip and (keep is None or keep(rel)):
            out[rel] = file_checksum(path, algorithm)
    return out


def files_problem(folder: Path, recorded: dict[str, str], *, leave_out: Iterable[str] = (),
                  algorithm: str = CHECKSUM) -> str | None:
    """None when `folder` holds exactly the `recorded` files with those checksums (besides those
    in `leave_out`); else what is wrong, in words."""
    skip = set(leave_out)
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    if not recorded or present - skip != set(recorded):
        return "files missing or unexpected"
    for name, digest in recorded.items():
        if file_checksum(folder / name, algorithm) != digest:
            return f"{name} is damaged (checksum differs)"
    return None


def publish_folder(target: Path, build: Callable[[Path], None]) -> None:
    """`build(staging)` fills a new hidden folder beside `target`; it is then fsynced and renamed
    over `target`. A failed build leaves `target` as it was and no staging folder behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    staging.chmod(0o755)
    try:
        build(staging)
        fsync_tree(staging)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
        fsync_path(target.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build_once(target: Path, problem: Callable[[], str | None], build: Callable[[Path], None],
               *, on_stale: Callable[[str], None] | None = None) -> None:
    """Make sure `target` is good: `problem()` says what is wrong with it (None: nothing). If
    something is, build it under a lock beside it (`publish_folder`); another process that
    built it meanwhile wins, and nothing is built twice. `on_stale(why)` is told when an
    existing folder is replaced."""
    if problem() is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(target.parent / f".{target.name}.lock"):
        why = problem()
        if why is None:
            return
        if target.exists() and on_stale is not None:
            on_stale(why)
        publish_folder(target, build)
