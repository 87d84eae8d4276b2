"""Writing an index folder: a writer's private staging folder, the publication of a new version
(the manifest switch last), the write lock, and the removal of what no reader needs any more."""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common import CHECKSUM, FileLock, LockBusy, file_checksum, fsync_path, fsync_tree
from common.atomic import write_atomic

from ...errors import ConcurrentWriteError
from .manifest import ALL_ROLES, MANIFEST, ROLES, now, read_raw, to_bytes, token
from .version import size_of

LOCK = ".write.lock"  # held by whoever publishes or creates a private folder, briefly
OWNER_LOCK = ".lock"  # inside a private folder: held as long as its writer lives
STAGING = ".staging-"
BUILD = ".build-"
LOCK_WAIT_S = 60.0
# version files and folders: this layout's `v000007-<tag>`, and the flat names of older indexes
VERSIONED = re.compile(r"^(?:v(\d{6,})-[0-9a-f]+|vectors-(\d+)\.faiss|store-(\d+)\.sqlite|"
                       r"bm25-(\d+))$")


class StaleBase(ConcurrentWriteError):
    """The folder's manifest is no longer the one this writer started from."""


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
    """A folder inside the index folder that belongs to one live writer: created under the write
    lock with its owner lock held, so no clean-up removes it while the writer lives; a writer
    that dies (even by `kill -9`) drops the lock and its folder becomes removable debris."""

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


class Staging(Private):
    """A writer's next version while it is made: `.staging-<tag>/` with the files of ROLES."""

    def __init__(self, folder: Path) -> None:
        self.tag = uuid.uuid4().hex[:12]
        super().__init__(Path(folder) / f"{STAGING}{self.tag}")

    def file(self, role: str) -> Path:
        return self.path / ALL_ROLES[role]


def publish(folder: Path, staging: Staging, fields: dict, base: str | None
            ) -> tuple[dict, str]:
    """Make `staging`'s files the current version of `folder`; returns (manifest, token).

    `fields`: the manifest less `version`, `updated_at` and `files`. `base`: the token of the
    version the writer started from (None: no index yet); `StaleBase` when it is no longer
    current, with nothing published. The manifest switch is the last step: a failure or a kill
    before it leaves the old version current and debris that the next publish removes.
    """
    entries = {role: {"path": ALL_ROLES[role], "bytes": size_of(staging.file(role)),
                      "algorithm": CHECKSUM, "checksum": file_checksum(staging.file(role))}
               for role in ALL_ROLES if role in ROLES or staging.file(role).exists()}
    fsync_tree(staging.path)
    with write_lock(folder):
        raw = read_raw(folder)
        if token(raw) != base:
            raise StaleBase(f"{folder} changed since this writer opened it")
        version = next_version(folder, fields.get("version", 0))
        name = f"v{version:06d}-{staging.tag}"
        os.rename(staging.path, folder / name)  # no longer a staging folder: no sweep claims it
        manifest = {**fields, "version": version, "updated_at": now(),
                    "files": {role: {**e, "path": f"{name}/{e['path']}"}
                              for role, e in entries.items()}}
        data = to_bytes(manifest)
        try:
            fsync_path(folder)
            with write_atomic(folder / MANIFEST) as fh:  # the switch
                fh.write(data)
        except BaseException:
            os.rename(folder / name, staging.path)  # nothing published: the writer keeps its files
            raise
        (folder / name / OWNER_LOCK).unlink(missing_ok=True)
        staging.release()
        sweep(folder, keep={name} | _names(raw))
    return manifest, token(data)


def next_version(folder: Path, at_least: int) -> int:
    """One above every version the folder has held (a damaged manifest's included)."""
    seen = [int(next(g for g in m.groups() if g)) for m in map(VERSIONED.match,
                                                                  os.listdir(folder)) if m]
    return max([at_least, *seen]) + 1


def _names(raw: bytes | None) -> set[str]:
    """The top-level names a manifest's files live under (none for a damaged manifest)."""
    try:
        files = json.loads(raw)["files"]
        return {str(e["path"]).split("/")[0] for e in files.values()}
    except Exception:
        return set()


def sweep(folder: Path, keep: set[str]) -> None:
    """Remove versions not in `keep`, staging folders whose writers died, stale temporary
    manifests. Runs under the write lock, so no private folder is half made."""
    for path in Path(folder).iterdir():
        name = path.name
        if name.startswith(STAGING):
            if path.is_dir() and not _claim(path):
                continue  # a live writer's
            _remove(path)
        elif VERSIONED.match(name) and name not in keep:
            _remove(path)
        elif name.startswith(f".{MANIFEST}.") and name.endswith(".tmp"):
            _remove(path)


def remove_private(folder: Path, prefix: str) -> None:
    """Remove the `prefix` folders (e.g. BUILD) no live writer holds."""
    with write_lock(folder):
        for path in Path(folder).glob(f"{prefix}*"):
            if not path.is_dir() or _claim(path):
                _remove(path)


def _claim(path: Path) -> bool:
    """True when no live writer holds the private folder `path` (its lock is then ours)."""
    try:
        FileLock(path / OWNER_LOCK).acquire(wait=0).release()
        return True
    except LockBusy:
        return False
    except FileNotFoundError:
        return True  # removed meanwhile


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
