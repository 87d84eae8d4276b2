"""`AuditLog`: an append-only JSONL file of every document write and every refused request.

    {"time": "2026-12-07T14:03:11.52Z", "principal": "alice", "method": "POST",
     "route": "/v1/indexes/{name}/documents", "index": "news", "documents": ["a", "b"],
     "documents_total": 2, "status": 200, "outcome": "written", "reason": null}

Each line is one `os.write` on a file opened with O_APPEND, so a process killed (even by
SIGKILL) mid-stream leaves whole lines only, and lines of several workers never interleave.
Past `max_bytes` the file is renamed `.1` (`.1` to `.2`, ... up to `keep`) and a new one
started; the rename is made under an exclusive lock of the file, and a writer whose file was
renamed by another process opens the new one before its next line."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger("bertscope.service.audit")
MAX_IDS = 20  # document ids written in one line (`documents_total` counts them all)
MAX_ID_CHARS = 200
MAX_REASON_CHARS = 300


class AuditLogError(ValueError):
    """An audit log that cannot be opened (the message names the path and why)."""


class AuditLog:
    def __init__(self, path: Path, *, max_bytes: int = 100 * 1024 * 1024, keep: int = 5) -> None:
        self.path = Path(path)
        self.max_bytes, self.keep = max_bytes, keep
        self._lock = threading.Lock()
        self._fd = self._open()

    def _open(self) -> int:
        if self.path.is_dir():
            raise AuditLogError(f"{self.path}: is a folder; give a file path (it is created)")
        try:
            return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                           0o600)
        except OSError as exc:
            raise AuditLogError(f"{self.path}: cannot be opened for appending: "
                                f"{exc.strerror or exc}") from None

    def record(self, *, principal: str | None, method: str, route: str,
               index: str | None = None, documents: list[str] | None = None,
               status: int, outcome: str, reason: str | None = None) -> None:
        """Append one line (a failure to write is logged, never raised to the request)."""
        ids = list(documents or [])
        entry = {"time": datetime.now(UTC).isoformat(timespec="milliseconds")
                 .replace("+00:00", "Z"),
                 "principal": principal, "method": method, "route": route, "index": index,
                 "documents": [str(i)[:MAX_ID_CHARS] for i in ids[:MAX_IDS]],
                 "documents_total": len(ids), "status": status, "outcome": outcome,
                 "reason": reason[:MAX_REASON_CHARS] if reason else None}
        line = (json.dumps(entry, ensure_ascii=True) + "\n").encode("ascii")
        try:
            with self._lock:
                self._write(line)
        except OSError as exc:
            log.error("audit line not written to %s: %s", self.path, exc)

    def _write(self, line: bytes) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            if self._renamed():  # another worker rotated it: write to the new file
                self._reopen()
            if os.fstat(self._fd).st_size + len(line) > self.max_bytes:
                self._rotate()
            os.write(self._fd, line)  # one call: the line is whole or absent
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _renamed(self) -> bool:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return True
        own = os.fstat(self._fd)
        return (st.st_ino, st.st_dev) != (own.st_ino, own.st_dev)

    def _reopen(self) -> None:
        old, self._fd = self._fd, self._open()
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        fcntl.flock(old, fcntl.LOCK_UN)
        os.close(old)

    def _rotate(self) -> None:
        if os.fstat(self._fd).st_size == 0:
            return  # a line longer than max_bytes goes into an empty file
        for n in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{n + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        self._reopen()

    def close(self) -> None:
        with self._lock:
            os.close(self._fd)
