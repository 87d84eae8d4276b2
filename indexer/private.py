"""Private folders: a folder inside another (an index folder, a build's work folder) that belongs
to one live writer, and the parent's write lock under which one is made. The folder store's
staging folders (`indexer.folder.store`) and every build's resumable shards (`indexer.shards`)
are such folders; one whose writer died (even by `kill -9`) becomes removable debris."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common import FileLock, LockBusy

from .errors import ConcurrentWriteError

LOCK = ".write.lock"  # held by whoever publishes or creates a private folder, briefly
OWNER_LOCK = ".lock"  # inside a private folder: held as long as its writer lives
BUILD = ".build-"  # a build's shards: `.build-<key>/`
LOCK_WAIT_S = 60.0


@contextmanager
def write_lock(folder: Path, wait: float | None = None) -> Iterator[None]:
    """The folder's write lock; a `ConcurrentWriteError` when another writer keeps it `wait` s
    (default LOCK_WAIT_S)."""
    wait = LOCK_WAIT_S if wait is None else wait
    folder.mkdir(parents=True, exist_ok=True)
    try:
        lock = FileLock(folder / LOCK).acquire(wait=wait)
    except LockBusy as exc:
        raise ConcurrentWriteError(f"another writer has been publishing to {folder} for over "
                                   f"{wait:.0f} s; try again when it is done") from exc
    try:
        yield
    finally:
        lock.release()


class Private:
    """A folder inside another (an index folder, a build's work folder) that belongs to one live
    writer: created under the parent's write lock with its owner lock held, so no clean-up
    removes it while the writer lives; a writer that dies (even by `kill -9`) drops the lock and
    its folder becomes removable debris."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with write_lock(path.parent):
            path.mkdir(exist_ok=True)
            try:
                self._lock = FileLock(path / OWNER_LOCK).acquire(wait=0)
            except LockBusy as exc:
                raise ConcurrentWriteError(f"{path} belongs to another live writer") from exc

    def release(self) -> None:
        """Let go of the folder (it stays; `discard` removes it)."""
        self._lock.release()

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self._lock.release()


def remove_private(folder: Path, prefix: str) -> None:
    """Remove the `prefix` folders (e.g. BUILD) no live writer holds."""
    with write_lock(folder):
        for path in Path(folder).glob(f"{prefix}*"):
            if not path.is_dir() or claim(path):
                remove(path)


def claim(path: Path) -> bool:
    """True when no live writer holds the private folder `path` (its lock is then ours)."""
    try:
        FileLock(path / OWNER_LOCK).acquire(wait=0).release()
        return True
    except LockBusy:
        return False
    except FileNotFoundError:
        return True  # removed meanwhile


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
