"""A full disk, said as such. SQLite says "database or disk is full", FAISS "76800 requested and
76768 written" or "'ret == (size * 4)' failed ... (No space left on device)", Python
`[Errno 28]`: each becomes one `DiskFullError` naming the folder, the free space left and what
was kept. The store's writes are atomic, so a failed write loses nothing: the published index
stays as it was."""

from __future__ import annotations

import errno
import functools
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from .errors import IndexerError

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# FAISS's writers on a full disk: "76800 requested and 76768 written", or an assertion
# "'ret == (size * 4)' failed: write error in ...: 0 != 76800 (No space left on device)"
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written|No space left on device|"
                          r"Disk quota exceeded")


class DiskFullError(IndexerError):
    """The disk filled up while the index was written; nothing published was lost."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` is a disk running out of space, in any of the ways the libraries say it."""
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        return True
    if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower():
        return True  # SQLITE_FULL: "database or disk is full"
    return isinstance(exc, RuntimeError) and bool(_SHORT_WRITE.search(str(exc)))


def free_space(folder: Path) -> str:
    """The space left on the disk holding `folder` (its nearest existing parent), in words."""
    path = Path(folder).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        free = shutil.disk_usage(path).free
    except OSError:
        return "unknown space"
    return f"{free / 2**20:,.1f} MiB free" if free < 2**30 else f"{free / 2**30:,.1f} GiB free"


@contextmanager
def disk_full_said(folder: Path, doing: str, kept: str) -> Iterator[None]:
    """Turn a full disk inside the block into one `DiskFullError`: `doing` what, `kept` what."""
    try:
        yield
    except DiskFullError:
        raise
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        raise DiskFullError(f"the disk holding {folder} is full ({free_space(folder)}): {doing} "
                            f"stopped and nothing was lost: {kept}; free some space and run it "
                            "again") from exc


F = TypeVar("F", bound=Callable)


def writes_index(doing: str) -> Callable[[F], F]:
    """For `SemanticIndex` methods that write: a full disk is a `DiskFullError` (see above)."""
    def wrap(method: F) -> F:
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            with disk_full_said(self.folder, doing, "the index is as it was last saved, and "
                                "this index object keeps its unsaved changes"):
                return method(self, *args, **kwargs)
        return run  # type: ignore[return-value]
    return wrap
