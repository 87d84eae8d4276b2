"""`JobRunner`: start long commands as jobs, each in its own process, one at a time per machine,
and read where they stand from disk (`$BERTSCOPE_HOME/jobs`). No server: every call reads the
folders, so a new runner (a restarted app, another process) sees what the last one started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..home import REPO, bertscope_home
from ..paths import os_error_text
from .progress import PROGRESS_FILE, JobProgress, read_progress
from .records import (
    CANCEL_FILE,
    LOG_FILE,
    SUPERVISOR_MARK,
    JobSpec,
    JobState,
    JobStatus,
    observed_status,
    process_alive,
    read_spec,
    write_spec,
    write_status,
)


class JobError(RuntimeError):
    """A job that cannot be started, resumed or found; the message says why."""


@dataclass(frozen=True)
class Job:
    """One job as read from disk, at the moment it was read."""

    id: str
    folder: Path
    spec: JobSpec
    created: float
    resumes: str | None
    status: JobStatus
    progress: JobProgress | None

    @property
    def state(self) -> JobState:
        return self.status.state

    @property
    def active(self) -> bool:
        return self.status.state.active

    @property
    def can_resume(self) -> bool:
        return self.spec.resumable and self.state in (JobState.FAILED, JobState.CANCELLED)

    @property
    def seconds(self) -> float | None:
        """How long it has run (so far, or in all)."""
        if self.status.started is None:
            return None
        return (self.status.ended or time.time()) - self.status.started

    def log_tail(self, lines: int = 30, max_bytes: int = 64_000) -> str:
        """The log's last `lines` lines, each as a terminal shows it (a progress bar redrawn
        with carriage returns is its last drawing)."""
        try:
            with open(self.folder / LOG_FILE, "rb") as fh:
                fh.seek(max(0, fh.seek(0, os.SEEK_END) - max_bytes))
                text = fh.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        raw = text.rstrip("\n").split("\n")  # not splitlines(): it splits at "\r" too
        shown = [line.rstrip("\r").rsplit("\r", 1)[-1] for line in raw]
        return "\n".join(shown[-lines:])


class JobRunner:
    """`runner = JobRunner()` (root: `$BERTSCOPE_HOME/jobs`), then `runner.submit(spec)`,
    `runner.latest(key)`, `runner.describe(job)`, `runner.cancel(id)`, `runner.resume(id)`."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root else bertscope_home("jobs", create=False)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JobError(self._unwritable(exc)) from None

    def _unwritable(self, exc: OSError) -> str:
        return (f"cannot keep jobs in {self.root}: {os_error_text(exc)}; make it writable, or "
                "point BERTSCOPE_HOME at a writable folder (jobs live in its jobs/)")

    def submit(self, spec: JobSpec, *, resumes: str | None = None) -> Job:
        """Queue `spec` and start its process; returns at once (the job waits its turn)."""
        if not spec.argv:
            raise JobError(f"job {spec.title!r} has no command")
        job_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{spec.kind}-{uuid.uuid4().hex[:6]}"
        folder = self.root / job_id
        try:
            folder.mkdir()
            write_spec(folder, job_id, spec, time.time(), resumes)
            write_status(folder, JobStatus(JobState.QUEUED))
        except OSError as exc:
            raise JobError(self._unwritable(exc)) from None
        started = subprocess.run([sys.executable, "-m", "common.jobs", str(folder)], cwd=REPO,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=120)
        if started.returncode != 0:
            why = (started.stderr.strip().splitlines() or ["no message"])[-1]
            write_status(folder, JobStatus(JobState.FAILED, ended=time.time(),
                                           message=f"its process did not start: {why}"))
        return self.get(job_id)

    def get(self, job_id: str) -> Job:
        folder = self.root / job_id
        try:
            spec, created, resumes = read_spec(folder)
        except (OSError, ValueError, KeyError) as exc:
            raise JobError(f"no job {job_id!r} in {self.root} ({exc})") from exc
        return Job(job_id, folder, spec, created, resumes, observed_status(folder),
                   read_progress(folder / PROGRESS_FILE))

    def jobs(self, *, key: str | None = None, kind: str | None = None) -> list[Job]:
        """Every job (or those for `key` / of `kind`), newest first."""
        found = []
        for folder in self.root.iterdir():
            if not (folder / "job.json").is_file():
                continue
            try:
                job = self.get(folder.name)
            except JobError:
                continue  # being written, or removed meanwhile
            if (key is None or job.spec.key == key) and (kind is None or job.spec.kind == kind):
                found.append(job)
        return sorted(found, key=lambda j: (j.created, j.id), reverse=True)

    def latest(self, key: str) -> Job | None:
        """The newest job for `key` (what a page shows for the thing it offers to make)."""
        found = self.jobs(key=key)
        return found[0] if found else None

    def ahead_of(self, job: Job) -> Job | None:
        """For a queued job: the running job, else the first queued one before it."""
        if job.state is not JobState.QUEUED:
            return None
        others = [j for j in self.jobs() if j.active and j.id != job.id]
        running = [j for j in others if j.state is JobState.RUNNING]
        earlier = [j for j in others if (j.created, j.id) < (job.created, job.id)]
        return running[0] if running else (earlier[-1] if earlier else None)

    def describe(self, job: Job) -> str:
        """One sentence: where the job stands ("queued behind …", "running: 40 of 200 steps")."""
        if job.state is JobState.QUEUED:
            ahead = self.ahead_of(job)
            return (f"Queued behind “{ahead.spec.title}” ({ahead.state.value}): one job runs "
                    "at a time on this machine; this one starts when it ends."
                    if ahead else "Queued: starting…")
        if job.state is JobState.RUNNING:
            p = job.progress
            if p is None:  # loading, reading data: the log says which
                said = [x.strip() for x in job.log_tail(5).splitlines()
                        if x.strip() and not x.startswith(SUPERVISOR_MARK)]
                last = said[-1] if said else ""
                last = last if len(last) <= 120 else last[:119] + "…"
                return (f"Running for {duration(job.seconds)}, no progress reported yet; " + (
                    f"the log's last line: “{last}”." if last else "nothing logged yet."))
            return f"Running: {progress_text(p)}."
        took = f" after {duration(job.seconds)}" if job.seconds is not None else ""
        if job.state is JobState.DONE:
            return f"Done{took}."
        return f"{job.state.value.capitalize()}{took}: {job.status.message}."

    def cancel(self, job_id: str, *, grace_s: float = 10.0) -> Job:
        """Stop a job (queued: it never starts; running: SIGTERM to its process group, SIGKILL
        after `grace_s`). What it saved (checkpoints) stays for `resume`."""
        job = self.get(job_id)
        if not job.active:
            return job
        (job.folder / CANCEL_FILE).write_text(f"{time.time()}\n", encoding="utf-8")
        self._signal(job.status, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while (job := self.get(job_id)).active and time.monotonic() < deadline:
            time.sleep(0.1)
        if job.active:
            self._signal(job.status, signal.SIGKILL)
            job = self.wait(job_id, timeout=5)
        return job

    def resume(self, job_id: str) -> Job:
        """A new job that continues a failed or cancelled one from what it saved."""
        job = self.get(job_id)
        if not job.can_resume:
            why = ("its command cannot resume" if not job.spec.resumable else
                   f"it is {job.state.value}")
            raise JobError(f"job {job.spec.title!r} cannot be resumed: {why}")
        spec = job.spec
        again = JobSpec(spec.kind, spec.key, spec.title, spec.resume_argv or spec.argv,
                        spec.resume_argv, spec.cwd, dict(spec.outputs))
        return self.submit(again, resumes=job.id)

    def wait(self, job_id: str, *, timeout: float | None = None,
             until: tuple[JobState, ...] = ()) -> Job:
        """The job once it has ended (or reached a state in `until`); `TimeoutError` after
        `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self.get(job_id)
            if job.state in until or (not until and not job.active):
                return job
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {job.state.value} after {timeout} s")
            time.sleep(0.1)

    @staticmethod
    def _signal(status: JobStatus, signum: int) -> None:
        if status.pgid and status.pid and process_alive(status.pid, status.ticks):
            try:
                os.killpg(status.pgid, signum)
            except ProcessLookupError:
                pass


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def progress_text(p: JobProgress, now: float | None = None) -> str:
    """"training: 40 of 200 steps · about 3.5 min left"; a phase of unknown length (no total,
    nothing counted): "export: under way for 2.1 min, no estimate"."""
    if not p.total and not p.done:
        since = duration(max(0.0, (now or time.time()) - p.at)) if p.at else "?"
        return f"{p.phase or 'working'}: under way for {since}, no estimate"
    unit = f" {p.unit}" if p.unit else ""
    left = f" · about {duration(p.eta_s)} left" if p.eta_s is not None else ""
    total = f"{p.total:,}" if p.total else "?"
    return f"{p.phase + ': ' if p.phase else ''}{p.done:,} of {total}{unit}{left}"
