"""The Training page over a jobs folder holding damaged job records (state.json not JSON, a
list, a folder): the page draws, the newest fit job shows as failed with its damaged record
named, and the healthy jobs beside it are still read (one damaged job made the page show only
an exception)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_helpers import texts
from training_flow import training_folders

from common.jobs import JobRunner, JobSpec, JobState
from common.jobs.records import JobStatus, write_spec

APP = Path(__file__).resolve().parents[2] / "app"


def training_page():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(APP / "Home.py"), default_timeout=240).switch_page(
        "pages/7_Training.py").run()


@pytest.fixture(scope="module")
def folders(tmp_path_factory, tiny_model_dir):
    return training_folders(tmp_path_factory.mktemp("damaged-jobs"), tiny_model_dir)


def plant(root, name: str, state: str | None, created: float, run) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    write_spec(folder, name, JobSpec("fit", f"fit:{run}", f"Fine-tune into {name}", ("true",),
                                     outputs={"run": str(run)}), created, None)
    if state is None:
        (folder / "state.json").mkdir()
    else:
        (folder / "state.json").write_text(state, encoding="utf-8")


def test_damaged_jobs_are_flagged_beside_healthy_ones(folders, monkeypatch, tmp_path):
    for name, folder in folders.items():
        monkeypatch.setenv(name, str(folder))
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))  # its jobs apart
    root = tmp_path / "home" / "jobs"
    runs = folders["BERTSCOPE_RUNS_ROOT"]
    done = json.dumps(JobStatus(JobState.DONE, started=1.0, ended=3.0).to_json())
    plant(root, "healthy", done, 1.0, runs / "healthy")
    plant(root, "a-list", '["done"]', 2.0, runs / "a-list")
    plant(root, "a-folder", None, 3.0, runs / "a-folder")
    plant(root, "not-json", "{state: done", 4.0, runs / "not-json")
    at = training_page()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(texts(at.error))
    assert f"{root / 'not-json' / 'state.json'} is damaged (not JSON" in said, said
    assert "Runs on this machine (4)" in texts(at.subheader)  # the damaged and the healthy
    states = {j.id: j.state for j in JobRunner(root).jobs()}
    assert states == {"healthy": JobState.DONE, "a-list": JobState.FAILED,
                      "a-folder": JobState.FAILED, "not-json": JobState.FAILED}
