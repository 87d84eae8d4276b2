"""Index builds as jobs (`indexer.jobs`): the rebuild command runs in its own process and its
stages arrive in the job's progress file, as a Training page reads them."""

from __future__ import annotations

import pytest

from common.jobs import JobRunner, JobState, read_progress
from indexer.build import BuildProgress
from indexer.cli_progress import StageBar
from indexer.jobs import rebuild_job


def test_stage_bar_writes_the_job_progress_file_in_a_job(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_JOB_PROGRESS", str(tmp_path / "progress.json"))
    bar = StageBar()
    bar(BuildProgress("encode", 40, 60, 0.0, 12.0, 0, 80, 120))
    p = read_progress(tmp_path / "progress.json")
    assert (p.phase, p.done, p.total, p.unit, p.eta_s) == ("encode", 40, 60, "documents", 12.0)


def test_stage_bar_writes_nothing_outside_a_job(tmp_path, monkeypatch):
    monkeypatch.delenv("BERTSCOPE_JOB_PROGRESS", raising=False)
    monkeypatch.chdir(tmp_path)
    StageBar()(BuildProgress("encode", 1, 2, 0.0, None, 0, 1, 2))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # a real `python -m indexer` process: torch's import takes seconds
def test_a_rebuild_job_publishes_the_index(flat_index, other_model_dir, tmp_path, monkeypatch):
    from indexer import SemanticIndex

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    runner = JobRunner()
    out = tmp_path / "rebuilt"
    spec = rebuild_job(flat_index, out, str(other_model_dir), ("--threads", "1"))
    job = runner.wait(runner.submit(spec).id, timeout=600)
    assert job.state is JobState.DONE, job.log_tail()
    assert f"rebuilt {flat_index} into {out}: 60 documents" in job.log_tail()
    assert (job.progress.phase, job.progress.done) == ("done", 60)
    assert SemanticIndex.open(job.spec.outputs["index"]).stats().documents == 60
    assert spec.resume_argv == spec.argv  # the command resumes from its shards by itself


def test_the_default_job_builds_that_language_into_the_folder_it_names(tmp_path):
    from indexer.jobs import default_job

    spec = default_job("zh", tmp_path / "reviews-zh")
    assert spec.argv[1:] == ("-m", "indexer", "default", "--lang", "zh", "--out",
                             str(tmp_path / "reviews-zh"))
    assert spec.kind == "default" and spec.key == f"index:{(tmp_path / 'reviews-zh').resolve()}"
    assert spec.resume_argv == spec.argv and spec.outputs == {"index": str(tmp_path / "reviews-zh")}
    assert "e5-multilingual" in spec.title
    with pytest.raises(ValueError, match="Invalid default corpus language 'fr'. Valid: en, zh"):
        default_job("fr", tmp_path / "x")
