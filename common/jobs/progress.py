"""`progress.json`: how far a job's command is, as it reports it. The runner names the file in
`$BERTSCOPE_JOB_PROGRESS` when it starts the command; a command that reports (the training CLIs'
trainers, the indexer's builds) writes it through `job_progress_file()`, which is None outside a
job. Written atomically, at most once a second (every phase change and the last step at once)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..atomic import write_json_atomic

PROGRESS_ENV = "BERTSCOPE_JOB_PROGRESS"
PROGRESS_FILE = "progress.json"


@dataclass(frozen=True)
class JobProgress:
    """`done` of `total` `unit` in `phase`; `eta_s` is the command's own estimate, or the rate
    since the phase's first report in this process (a resumed run is not credited with the
    steps it read back); `at`: when it was written."""

    done: int
    total: int | None
    unit: str = ""
    phase: str = ""
    eta_s: float | None = None
    at: float = 0.0

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0


class ProgressFile:
    """`report = ProgressFile(path)`, then `report(done, total, unit=..., phase=...)`."""

    def __init__(self, path: str | Path, *, every_s: float = 1.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.every_s = every_s
        self.clock = clock
        self.written = 0.0
        self.phase: str | None = None
        self.since: tuple[float, int] = (0.0, 0)  # (time, done) at the phase's first report

    def __call__(self, done: int, total: int | None, *, unit: str = "", phase: str = "",
                 eta_s: float | None = None) -> None:
        now = self.clock()
        if phase != self.phase:
            self.phase, self.since = phase, (now, done)
        elif now - self.written < self.every_s and (total is None or done < total):
            return
        t0, d0 = self.since
        if eta_s is None and total and done > d0:
            eta_s = (now - t0) / (done - d0) * (total - done)
        write_json_atomic(self.path, asdict(JobProgress(done, total, unit, phase, eta_s, now)))
        self.written = now


def job_progress_file() -> ProgressFile | None:
    """The progress file of the job this process runs as, None when it is not a job."""
    path = os.environ.get(PROGRESS_ENV)
    return ProgressFile(path) if path else None


def read_progress(path: str | Path) -> JobProgress | None:
    """What the command last reported; None before its first report (or from an unreadable
    file: atomically written, so only a foreign file can be one)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return JobProgress(**{k: data[k] for k in JobProgress.__dataclass_fields__ if k in data})
    except (OSError, ValueError, TypeError):
        return None
