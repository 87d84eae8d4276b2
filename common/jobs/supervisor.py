"""The process that carries one job: `python -m common.jobs FOLDER` (started by
`JobRunner.submit`). It forks itself into a new session, so that neither the page's script run,
nor the app, nor a terminal's Ctrl-C takes it down, and returns once the job has a pid on disk.

Then it waits its turn (first queued job by creation; the machine lock, held while a job runs,
lets one run at a time), runs the command with its output in `log.txt`, and records how it ended.
The command dies with it (PDEATHSIG): a supervisor killed by `kill -9` leaves no command running
unsupervised, outside the lock, on a folder that a resume would then share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

from ..locks import FileLock, LockBusy
from .progress import PROGRESS_ENV, PROGRESS_FILE
from .records import (
    CANCEL_FILE,
    LOG_FILE,
    SUPERVISOR_MARK,
    JobState,
    JobStatus,
    observed_status,
    process_ticks,
    read_spec,
    write_status,
)

LOCK_FILE = "machine.lock"
POLL_S = 0.25


def launch(folder: Path) -> int:
    """Fork the supervisor of the job in `folder`; exit status 0 once it has written its pid."""
    ready, told = os.pipe()
    if os.fork():  # the launcher: its caller waits for it, so it must not wait for the job
        os.close(told)
        return 0 if os.read(ready, 1) == b"1" else 1
    os.close(ready)
    os.setsid()
    log = os.open(folder / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = sys.stdout
    try:
        supervise(folder, told)
    except BaseException:  # a bug here, or a folder removed under it: say so in the log
        traceback.print_exc()
        write_status(folder, JobStatus(JobState.FAILED, ended=time.time(),
                                       message="the job's supervisor failed; see the log"))
    finally:
        os._exit(0)  # never return into the launcher's code path


def supervise(folder: Path, told: int) -> None:
    pid = os.getpid()
    # before the status names this process: a cancel's SIGTERM may follow at once, and without
    # the handler it killed the supervisor ("cancelled", not "cancelled while queued")
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.append(signum))
    status = JobStatus(JobState.QUEUED, pid=pid, pgid=os.getpgid(0), ticks=process_ticks(pid))
    write_status(folder, status)
    os.write(told, b"1")
    os.close(told)
    lock = FileLock(folder.parent / LOCK_FILE)
    passed: set[str] = set()
    while not lock.held:
        if stop or (folder / CANCEL_FILE).exists():
            write_status(folder, replace(status, state=JobState.CANCELLED, ended=time.time(),
                                         message="cancelled while queued"))
            return
        if first_in_line(folder, passed):
            try:
                lock.acquire(wait=0)
            except LockBusy:
                pass
        if not lock.held:
            time.sleep(POLL_S)
    try:
        write_status(folder, run(folder, status, stop))
    finally:
        lock.release()


def run(folder: Path, status: JobStatus, stop: list[int]) -> JobStatus:
    """Run the command; the status it ended with."""
    spec = read_spec(folder)[0]
    started = time.time()
    print(f"{SUPERVISOR_MARK} started {time.strftime('%Y-%m-%d %H:%M:%S')}: {' '.join(spec.argv)}",
          flush=True)
    env = {**os.environ, PROGRESS_ENV: str(folder / PROGRESS_FILE)}
    try:
        child = subprocess.Popen(spec.argv, cwd=spec.cwd, env=env, stdin=subprocess.DEVNULL,
                                 stdout=sys.stdout, stderr=subprocess.STDOUT,
                                 preexec_fn=die_with_parent)
    except OSError as exc:
        return replace(status, state=JobState.FAILED, started=started, ended=time.time(),
                       message=f"the command could not start: {exc}")
    status = replace(status, state=JobState.RUNNING, child=child.pid, started=started)
    write_status(folder, status)
    while True:
        try:
            code = child.wait(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            if stop and child.poll() is None:
                child.terminate()  # a SIGTERM sent to the supervisor alone
    ended = time.time()
    cancelled = bool(stop) or (folder / CANCEL_FILE).exists()
    state = (JobState.CANCELLED if cancelled and code != 0 else
             JobState.DONE if code == 0 else JobState.FAILED)
    message = {JobState.DONE: "done", JobState.CANCELLED: "cancelled"}.get(
        state, f"killed by signal {-code}" if code < 0 else f"exit status {code}")
    print(f"{SUPERVISOR_MARK} {state.value} after {ended - started:.1f} s ({message})", flush=True)
    return replace(status, state=state, ended=ended, returncode=code, message=message)


def first_in_line(folder: Path, passed: set[str] | None = None) -> bool:
    """True when no live queued job was created before the one in `folder`. `passed` collects
    the jobs that can never again be ahead of it (created after it, or ended), so that a poll
    reads only the others."""
    passed = set() if passed is None else passed
    mine = (read_spec(folder)[1], folder.name)
    for other in folder.parent.iterdir():
        if other == folder or other.name in passed or not other.is_dir():
            continue
        try:
            ahead = (read_spec(other)[1], other.name) < mine
        except (OSError, ValueError, KeyError):
            continue  # being written, or not a job
        state = observed_status(other).state if ahead else None
        if state is JobState.QUEUED:
            return False
        if state is None or not state.active:
            passed.add(other.name)
    return True


def die_with_parent() -> None:
    """In the command's process before exec: the kernel kills it when the supervisor dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
