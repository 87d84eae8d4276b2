"""A job on disk: `job.json` (what to run, written once), `state.json` (where it stands, rewritten
atomically as it changes), `log.txt` (the command's output), `progress.json` (what the command
reports, see `progress.py`) and `cancel` (a cancel was asked), in `<jobs root>/<id>/`.

A job's state as read is what its supervisor last wrote, unless that supervisor is gone: a job
left queued or running by a process that no longer exists (killed, the machine restarted) reads
as failed, or cancelled where a cancel was asked."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..atomic import write_json_atomic
from ..paths import os_error_text

FORMAT = 1
SPEC_FILE, STATE_FILE, LOG_FILE, CANCEL_FILE = "job.json", "state.json", "log.txt", "cancel"
SUPERVISOR_MARK = "[job]"  # starts the lines the supervisor itself writes into the log


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def active(self) -> bool:
        return self in (JobState.QUEUED, JobState.RUNNING)


@dataclass(frozen=True)
class JobSpec:
    """What to run. `kind` names the command family ("mlm-heads", "fit", "rebuild"); `key` names
    what the job makes (one model's heads, one output folder), so a page finds the latest job for
    it; `resume_argv` (None: the command cannot resume) continues a stopped run; `outputs` are
    paths a reader of the job wants (the run folder, the index), by name."""

    kind: str
    key: str
    title: str
    argv: tuple[str, ...]
    resume_argv: tuple[str, ...] | None = None
    cwd: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def resumable(self) -> bool:
        return self.resume_argv is not None


@dataclass(frozen=True)
class JobStatus:
    """`state.json`. `pid` / `pgid` / `ticks` identify the supervisor (`ticks`: its start time in
    /proc, so a recycled pid is not taken for it); `child` is the command's pid."""

    state: JobState
    pid: int | None = None
    pgid: int | None = None
    ticks: int | None = None
    child: int | None = None
    started: float | None = None
    ended: float | None = None
    returncode: int | None = None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "state": self.state.value}

    @classmethod
    def from_json(cls, data: Any) -> JobStatus:
        """The status `data` records; ValueError naming what does not fit."""
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, not an object")
        try:
            state = JobState(data.get("state"))
        except ValueError:
            raise ValueError(f"state {data.get('state')!r} is none of "
                             f"{', '.join(s.value for s in JobState)}") from None
        for name, types in (*((n, int) for n in ("pid", "pgid", "ticks", "child", "returncode")),
                            ("started", (int, float)), ("ended", (int, float))):
            value = data.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, types)):
                raise ValueError(f"{name} is {value!r}, not a number")
        if not isinstance(data.get("message", ""), str):
            raise ValueError(f"message is {data['message']!r}, not a string")
        names = set(cls.__dataclass_fields__)
        return cls(**{**{k: v for k, v in data.items() if k in names}, "state": state})


def write_spec(folder: Path, job_id: str, spec: JobSpec, created: float,
               resumes: str | None) -> None:
    data = {"format": FORMAT, "id": job_id, "created": created, "resumes": resumes,
            **asdict(spec)}
    write_json_atomic(folder / SPEC_FILE, data)


def read_spec(folder: Path) -> tuple[JobSpec, float, str | None]:
    """(spec, created, id of the job it resumes)."""
    data = json.loads((folder / SPEC_FILE).read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{folder / SPEC_FILE}: unknown job format {data.get('format')!r}")
    resume = data.get("resume_argv")
    spec = JobSpec(kind=data["kind"], key=data["key"], title=data["title"],
                   argv=tuple(data["argv"]), resume_argv=tuple(resume) if resume else None,
                   cwd=data.get("cwd"), outputs=dict(data.get("outputs") or {}))
    return spec, float(data["created"]), data.get("resumes")


def write_status(folder: Path, status: JobStatus) -> None:
    write_json_atomic(folder / STATE_FILE, status.to_json())


def read_status(folder: Path) -> JobStatus:
    """The status as written; see `observed_status` for the one to show. A damaged record (not
    JSON, empty, not a status, a folder) reads as failed, saying so: one job's damage never
    hides the others."""
    path = folder / STATE_FILE
    try:
        return JobStatus.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:  # between the spec and the supervisor's first write
        return JobStatus(JobState.QUEUED)
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        why = os_error_text(exc) if isinstance(exc, OSError) else str(exc) or "empty"
        if isinstance(exc, json.JSONDecodeError):
            why = "empty" if not exc.doc.strip() else f"not JSON ({exc.msg} at line {exc.lineno})"
        return JobStatus(JobState.FAILED, message=f"its record {path} is damaged ({why}), so "
                                                  "where it stands is unknown; its log and "
                                                  "outputs are kept")


def observed_status(folder: Path) -> JobStatus:
    """The status, with a supervisor that died before recording the end taken as the end."""
    status = read_status(folder)
    if not status.state.active or status.pid is None or process_alive(status.pid, status.ticks):
        return status
    status = read_status(folder)  # it may have finished between the two reads
    if not status.state.active:
        return status
    cancelled = (folder / CANCEL_FILE).exists()
    return replace(status, state=JobState.CANCELLED if cancelled else JobState.FAILED,
                   ended=status.ended or time.time(), message=(
                       "cancelled" if cancelled else
                       "its process ended without recording the end (killed, or the machine "
                       "restarted); see the log"))


def process_ticks(pid: int) -> int | None:
    """The start time of process `pid` (clock ticks after boot), None when it does not exist or
    is a zombie (dead, not yet reaped)."""
    if not Path("/proc/self/stat").exists():  # not Linux: ask the kernel whether pid exists
        return 0 if _pid_exists(pid) else None
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()  # after the command name, which may hold spaces
    return None if fields[0] in ("Z", "X") else int(fields[19])


def process_alive(pid: int, ticks: int | None) -> bool:
    found = process_ticks(pid)
    return found is not None and (ticks is None or found == 0 or found == ticks)


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
