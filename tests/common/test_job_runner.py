"""The job runner (`common.jobs`) on a stand-in command (`fake_job.py`, a fraction of a second a
job): every state, one job at a time with the queue said, cancel, a job outliving the process
that started it and read by a new one, and a killed job shown failed, then resumed from its
checkpoint."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common.jobs import JobRunner, JobSpec, JobState, ProgressFile, read_progress

FAKE = Path(__file__).with_name("fake_job.py")
REPO = Path(__file__).resolve().parents[2]


def fake(out: Path, *args: str, title: str = "count", resumable: bool = True) -> JobSpec:
    argv = (sys.executable, str(FAKE), str(out), *args)
    return JobSpec("fake", f"fake:{out.name}", title, argv,
                   resume_argv=argv if resumable else None, cwd=str(REPO))


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    made = JobRunner()
    yield made
    for job in made.jobs():  # nothing left running after a failed assertion
        if job.active:
            made.cancel(job.id, grace_s=2)


def until(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rpartition(")")[2].split()[0] == "Z"  # a zombie is dead


def test_done_with_progress_and_log(runner, tmp_path):
    job = runner.wait(runner.submit(fake(tmp_path / "a", "--steps", "4")).id, timeout=30)
    assert job.state is JobState.DONE and job.status.returncode == 0
    assert (job.progress.done, job.progress.total, job.progress.unit) == (4, 4, "steps")
    log = job.log_tail()
    assert "starting from step 0" in log and "finished 4 steps" in log
    assert "step 4" in log and "step 1" not in log  # a redrawn line shows as its last drawing
    assert runner.describe(job).startswith("Done after")


def test_failed_says_how_and_keeps_the_log(runner, tmp_path):
    job = runner.wait(runner.submit(fake(tmp_path / "a", "--steps", "5", "--fail-at", "3")).id,
                      timeout=30)
    assert job.state is JobState.FAILED and job.status.returncode == 3
    assert runner.describe(job).endswith(": exit status 3.")
    assert "error: step 3 failed" in job.log_tail()
    assert job.can_resume


def test_a_command_that_cannot_start_fails_with_the_reason(runner, tmp_path):
    spec = JobSpec("fake", "fake:x", "nothing", (str(tmp_path / "no-such-program"),))
    job = runner.wait(runner.submit(spec).id, timeout=30)
    assert job.state is JobState.FAILED and "could not start" in job.status.message
    assert not job.can_resume  # no resume_argv: the command cannot continue


def test_one_at_a_time_in_order_with_the_queue_said(runner, tmp_path):
    gate = tmp_path / "gate"
    first = runner.submit(fake(tmp_path / "a", "--gate", str(gate), title="first"))
    second = runner.submit(fake(tmp_path / "b", title="second"))
    third = runner.submit(fake(tmp_path / "c", title="third"))
    until(lambda: runner.get(first.id).state is JobState.RUNNING)
    time.sleep(0.6)  # a few polls of the queued supervisors: neither may start
    second, third = runner.get(second.id), runner.get(third.id)
    assert (second.state, third.state) == (JobState.QUEUED, JobState.QUEUED)
    assert second.status.child is None and not (tmp_path / "b").exists()
    assert runner.describe(second).startswith("Queued behind “first” (running): one job runs")
    said = runner.describe(runner.get(first.id))
    assert said.endswith("no progress reported yet; nothing logged yet.") or "starting" in said
    said = until(lambda: "starting" in (d := runner.describe(runner.get(first.id))) and d)
    assert said.endswith("no progress reported yet; the log's last line: “starting from step 0”.")
    gate.touch()
    jobs = [runner.wait(j.id, timeout=30) for j in (first, second, third)]
    assert [j.state for j in jobs] == [JobState.DONE] * 3
    starts = [j.status.started for j in jobs]
    ends = [j.status.ended for j in jobs]
    assert starts[1] >= ends[0] and starts[2] >= ends[1]  # one at a time, first come first


def test_cancel_a_running_job_stops_its_process_group(runner, tmp_path):
    gate = tmp_path / "gate"
    job = runner.submit(fake(tmp_path / "a", "--steps", "10", "--gate", str(gate)))
    running = until(lambda: (j := runner.get(job.id)).status.child and j)
    child = running.status.child
    job = runner.cancel(job.id)
    assert job.state is JobState.CANCELLED and runner.describe(job).startswith("Cancelled")
    assert until(lambda: gone(child) and gone(job.status.pid), timeout=5)
    assert job.can_resume


def test_cancel_a_queued_job_before_it_starts(runner, tmp_path):
    gate = tmp_path / "gate"
    first = runner.submit(fake(tmp_path / "a", "--gate", str(gate)))
    until(lambda: runner.get(first.id).state is JobState.RUNNING)
    second = runner.cancel(runner.submit(fake(tmp_path / "b")).id)
    assert second.state is JobState.CANCELLED
    assert second.status.message == "cancelled while queued" and second.status.child is None
    gate.touch()
    assert runner.wait(first.id, timeout=30).state is JobState.DONE
    assert not (tmp_path / "b").exists()  # it never ran


def test_a_job_outlives_the_process_that_started_it(runner, tmp_path):
    """The app restarting: the process that submitted the job exits while it runs; a new
    runner in another process reads it running, then done."""
    gate = tmp_path / "gate"
    start = (f"import sys; from common.jobs import JobRunner, JobSpec; "
             f"job = JobRunner().submit(JobSpec('fake', 'fake:a', 'count', "
             f"({sys.executable!r}, {str(FAKE)!r}, {str(tmp_path / 'a')!r}, '--gate', "
             f"{str(gate)!r}), cwd={str(REPO)!r})); print(job.id)")
    job_id = subprocess.run([sys.executable, "-c", start], capture_output=True, text=True,
                            check=True, timeout=60, env=os.environ).stdout.strip()
    read = ("import sys; from common.jobs import JobRunner; "
            "print(JobRunner().get(sys.argv[1]).state.value)")

    def seen_by_a_new_process() -> str:
        return subprocess.run([sys.executable, "-c", read, job_id], check=True,
                              capture_output=True, text=True).stdout.strip()

    until(lambda: seen_by_a_new_process() == "running")
    gate.touch()
    assert JobRunner().wait(job_id, timeout=30).state is JobState.DONE


def test_a_killed_command_is_failed_then_resumed_from_its_checkpoint(runner, tmp_path):
    out = tmp_path / "a"
    job = runner.submit(fake(out, "--steps", "40", "--save", "2", "--step-s", "0.05"))
    until(lambda: (out / "checkpoint").is_file() and int((out / "checkpoint").read_text()) >= 4)
    os.kill(runner.get(job.id).status.child, signal.SIGKILL)
    job = runner.wait(job.id, timeout=30)
    assert job.state is JobState.FAILED and job.status.message == "killed by signal 9"
    saved = int((out / "checkpoint").read_text())
    again = runner.wait(runner.resume(job.id).id, timeout=60)
    assert again.state is JobState.DONE and again.resumes == job.id
    assert f"resumed from step {saved}" in again.log_tail()
    assert (again.progress.done, again.progress.total) == (40, 40)
    assert [j.id for j in runner.jobs(key=job.spec.key)] == [again.id, job.id]
    assert runner.latest(job.spec.key).id == again.id


def test_a_killed_supervisor_reads_as_failed_and_takes_its_command_along(runner, tmp_path):
    """kill -9 of the job's own process (or a machine restart): nothing records the end, so the
    reader sees a dead process and says so; the command does not run on unsupervised, and the
    lock is free for the next job."""
    gate = tmp_path / "gate"
    job = runner.submit(fake(tmp_path / "a", "--gate", str(gate)))
    running = until(lambda: (j := runner.get(job.id)).status.child and j)
    os.kill(running.status.pid, signal.SIGKILL)
    job = until(lambda: (j := runner.get(job.id)).state is JobState.FAILED and j)
    assert "ended without recording the end" in job.status.message
    assert until(lambda: gone(running.status.child), timeout=5)
    assert runner.wait(runner.resume(job.id).id, timeout=30,
                       until=(JobState.RUNNING,)).state is JobState.RUNNING
    gate.touch()


def test_resuming_needs_a_stopped_resumable_job(runner, tmp_path):
    from common.jobs import JobError

    done = runner.wait(runner.submit(fake(tmp_path / "a")).id, timeout=30)
    with pytest.raises(JobError, match="it is done"):
        runner.resume(done.id)
    failed = runner.wait(runner.submit(fake(tmp_path / "b", "--fail-at", "1",
                                            resumable=False)).id, timeout=30)
    with pytest.raises(JobError, match="its command cannot resume"):
        runner.resume(failed.id)


def test_progress_file_rate_counts_only_this_process(tmp_path):
    """A resumed run starts at its checkpoint's step: the time left comes from the steps made
    since, not from the ones read back; reports closer than a second apart are skipped."""
    clock = iter([100.0, 100.5, 110.0])
    report = ProgressFile(tmp_path / "p.json", clock=lambda: next(clock))
    report(150, 200, unit="steps", phase="training")
    report(151, 200, unit="steps", phase="training")  # half a second later: not written
    assert read_progress(tmp_path / "p.json").done == 150
    report(160, 200, unit="steps", phase="training")
    p = read_progress(tmp_path / "p.json")
    assert (p.done, p.total, p.fraction, p.at) == (160, 200, 0.8, 110.0)
    assert p.eta_s == pytest.approx(40.0)  # 10 steps in 10 s, 40 to go
    assert read_progress(tmp_path / "missing.json") is None


def test_a_recycled_pid_is_not_taken_for_the_job(tmp_path):
    """A dead supervisor's pid given to another process (here: this one) does not make the job
    look alive: its start time differs."""
    from common.jobs.records import (
        JobStatus,
        observed_status,
        process_ticks,
        write_spec,
        write_status,
    )

    me = os.getpid()
    write_spec(tmp_path, "x", fake(tmp_path / "a"), time.time(), None)
    write_status(tmp_path, JobStatus(JobState.RUNNING, pid=me, pgid=me,
                                     ticks=process_ticks(me) + 1))
    assert observed_status(tmp_path).state is JobState.FAILED
    write_status(tmp_path, JobStatus(JobState.RUNNING, pid=me, pgid=me, ticks=process_ticks(me)))
    assert observed_status(tmp_path).state is JobState.RUNNING
    (tmp_path / "cancel").touch()
    write_status(tmp_path, JobStatus(JobState.RUNNING, pid=me, pgid=me, ticks=1))
    assert observed_status(tmp_path).state is JobState.CANCELLED  # dead, and a cancel was asked
