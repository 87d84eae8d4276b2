"""`FileLock`: an advisory lock (flock) on a file, held by one open file at a time. The kernel
drops it when the holder closes the file or dies, even by `kill -9`, so a lock never outlives
the process that took it."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

POLL_S = 0.05


class LockBusy(BlockingIOError):
    """The lock is held by someone else and `wait` ran out."""


class FileLock:
    """`with FileLock(path, wait=10):` … or `acquire()` / `release()` for a lock held across
    calls. `wait=None` blocks until the lock is free; `0` tries once."""

    def __init__(self, path: str | Path, *, wait: float | None = None) -> None:
        self.path = Path(path)
        self.wait = wait
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, wait: float | None = ...) -> FileLock:  # type: ignore[assignment]
        wait = self.wait if wait is ... else wait
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = None if wait is None else time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait is None else fcntl.LOCK_NB))
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockBusy(f"{self.path} is locked by another process") from None
                time.sleep(POLL_S)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing drops the lock

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self) -> None:
        if hasattr(self, "_fd"):  # not when __init__ failed
            self.release()


