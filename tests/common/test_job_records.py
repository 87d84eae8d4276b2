"""Damaged job records: a job whose `state.json` is not JSON, is empty, names an unknown state,
is a list, has a string time or is a folder is listed as failed, saying its record is damaged,
and every other job stays visible (one such job made `JobRunner.jobs()` raise, and the Training
page showed only the exception); a jobs folder that cannot be written is a `JobError` that says
so, not a raw OSError."""

from __future__ import annotations

import json
import sys

import pytest

from common.jobs import JobError, JobRunner, JobSpec, JobState
from common.jobs.records import JobStatus, write_spec
from tools.bad_input.small_disk import NoSmallDisk, read_only

DAMAGE = {"not-json": "{state: done", "empty": "", "unknown-state": '{"state": "paused"}',
          "a-list": '["done"]', "string-time": '{"state": "done", "started": "yesterday"}',
          "a-folder": None}


def plant(root, name: str, state: str | None, created: float = 1.0) -> None:
    """A job folder as a supervisor leaves it, its state.json replaced by `state` (None: a
    folder where the file should be)."""
    folder = root / name
    folder.mkdir(parents=True)
    write_spec(folder, name, JobSpec("fit", f"fit:{name}", f"run {name}", ("true",)),
               created, None)
    if state is None:
        (folder / "state.json").mkdir()
    else:
        (folder / "state.json").write_text(state, encoding="utf-8")


def test_a_damaged_record_is_flagged_and_the_others_stay_visible(tmp_path):
    root = tmp_path / "jobs"
    for i, (name, state) in enumerate(DAMAGE.items()):
        plant(root, name, state, created=10.0 + i)
    plant(root, "healthy", json.dumps(JobStatus(JobState.DONE, started=1.0, ended=5.0)
                                      .to_json()), created=99.0)
    runner = JobRunner(root)
    jobs = {j.id: j for j in runner.jobs()}
    assert set(jobs) == {*DAMAGE, "healthy"}
    assert jobs["healthy"].state is JobState.DONE and runner.describe(jobs["healthy"]) == \
        "Done after 4 s."
    for name in DAMAGE:
        job = jobs[name]
        assert job.state is JobState.FAILED and not job.active
        said = runner.describe(job)
        assert f"{root / name / 'state.json'} is damaged (" in said, said
    assert "(not JSON (" in runner.describe(jobs["not-json"])
    assert "(empty)" in runner.describe(jobs["empty"])
    assert "'paused' is none of queued, running" in runner.describe(jobs["unknown-state"])
    assert "a JSON list, not an object" in runner.describe(jobs["a-list"])
    assert "started is 'yesterday', not a number" in runner.describe(jobs["string-time"])
    assert "Is a directory" in runner.describe(jobs["a-folder"])
    assert runner.latest("fit:healthy").id == "healthy"


def test_a_read_only_jobs_root_is_a_job_error(tmp_path):
    root = tmp_path / "jobs"
    runner = JobRunner(root)
    try:
        with read_only(root):
            with pytest.raises(JobError) as info:
                runner.submit(JobSpec("fit", "k", "a run", (sys.executable, "-c", "pass")))
    except NoSmallDisk as exc:
        pytest.skip(str(exc))
    assert f"cannot keep jobs in {root}" in str(info.value)
    assert "Read-only file system" in str(info.value) or "Permission denied" in str(info.value)
    assert "BERTSCOPE_HOME" in str(info.value) and list(root.iterdir()) == []
