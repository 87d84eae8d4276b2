"""Folders built once and published whole: built in a hidden staging folder beside the target,
fsynced, renamed over it, under a lock so that two processes never build the same one; each
file's checksum recorded so that a later load can tell a damaged folder from a good one.

Backend exports and the converted e5 model are made this way. A build killed outright (kill -9,
the machine stopping) leaves its staging folder (hundreds of MB for an export); the next
`build_once` of that target removes it."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .atomic import fsync_path, fsync_tree
from .hashing import CHECKSUM, file_checksum
from .locks import FileLock, LockBusy


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
    lock = FileLock(target.parent / f".{target.name}.lock")
    if problem() is None:
        if leftovers(target):  # a killed build's; never one under way (its builder holds the lock)
            try:
                lock.acquire(wait=0)
            except LockBusy:
                return
            try:
                _remove(leftovers(target))
            finally:
                lock.release()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with lock:
        _remove(leftovers(target))  # under the lock no other build of target is alive
        why = problem()
        if why is None:
            return
        if target.exists() and on_stale is not None:
            on_stale(why)
        publish_folder(target, build)


def leftovers(target: Path) -> list[Path]:
    """The staging folders `publish_folder` made beside `target` and a killed build left (their
    names: a dot, the target's name, a dash and `mkdtemp`'s 8 characters, so that no other
    target's folder matches)."""
    name = re.compile(rf"\.{re.escape(target.name)}-[a-z0-9_]{{8}}")
    try:
        found = [p for p in target.parent.iterdir() if name.fullmatch(p.name)]
    except FileNotFoundError:
        return []
    return [p for p in found if p.is_dir() and not p.is_symlink()]


def _remove(folders: list[Path]) -> None:
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
