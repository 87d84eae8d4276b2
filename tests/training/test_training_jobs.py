"""Training commands as jobs (`training.jobs`), for real on a tiny random BERT: `python -m
training mlm` killed with `kill -9` mid-run reads as failed, and resuming the job continues from
its last checkpoint, which its metrics record; the steps arrive in the job's progress file."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from common.jobs import JobRunner, JobState
from training.jobs import fit_job, heads_key, mlm_heads_job, mlm_job, saved_step

TEXTS = ["The cat sat on the mat. The dog ran in the park. Birds sing in the morning.",
         "Stocks fell sharply today. Investors worried about rates. Banks lost the most.",
         "The team won the final. Fans filled the streets. The coach thanked everyone."] * 8


@pytest.mark.slow  # real `python -m training` processes: seconds of imports each
def test_killed_mlm_job_fails_then_resumes_from_its_checkpoint(tiny_model_dir, tmp_path,
                                                              monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    out = tmp_path / "run"
    spec = mlm_job(out, ["--model", str(tiny_model_dir), "--corpus", str(corpus), "--head-only",
                         "--max-steps", "300", "--batch-size", "2", "--max-length", "16",
                         "--save-steps", "10", "--no-progress"], threads=1)
    runner = JobRunner()
    job = runner.submit(spec)
    deadline = time.monotonic() + 600
    while not saved_step(out):
        assert time.monotonic() < deadline and runner.get(job.id).active, \
            runner.get(job.id).log_tail()
        time.sleep(0.1)
    running = runner.get(job.id)
    os.kill(running.status.child, signal.SIGKILL)
    failed = runner.wait(job.id, timeout=60)
    assert failed.state is JobState.FAILED and failed.status.message == "killed by signal 9"
    assert failed.progress.unit == "steps" and failed.progress.total == 300
    step = saved_step(out)
    assert step and step % 10 == 0 and failed.can_resume

    resumed = runner.wait(runner.resume(job.id).id, timeout=900)
    assert resumed.state is JobState.DONE, resumed.log_tail()
    assert resumed.spec.argv[-1] == "--resume"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["resumed_from"] == f"checkpoint-{step}" and metrics["steps"] == 300
    assert (resumed.progress.done, resumed.progress.total) == (300, 300)


def test_job_specs_name_their_command_and_how_it_resumes(tmp_path):
    heads = mlm_heads_job("minilm", steps=5, fingerprint="abc")
    assert heads.argv[1:] == ("-m", "training", "mlm-heads", "minilm", "--steps", "5",
                              "--fingerprint", "abc")
    assert heads.resume_argv == heads.argv and heads.key == heads_key("minilm")
    fit = fit_job(tmp_path / "run", ["--config", "recipes/x.json"], threads=1)
    assert fit.argv[3:] == ("--threads", "1", "fit", "--config", "recipes/x.json", "--out",
                            str(tmp_path / "run"))
    assert fit.resume_argv == (*fit.argv, "--resume") and fit.outputs["run"] == str(tmp_path /
                                                                                     "run")
    assert saved_step(tmp_path / "nothing") is None


def test_mlm_heads_command_trains_for_the_fingerprint_given(run_cli, monkeypatch, tmp_path):
    """The page's job passes its model's fingerprint: heads cached for other weights are
    trained again instead of reported ready."""
    import training.mlm.bundled as bundled

    seen = []
    monkeypatch.setattr(bundled, "ensure_bundled_heads", lambda name, steps=None,
                        fingerprint=None: seen.append((name, steps, fingerprint)) or tmp_path)
    run = run_cli("training", "mlm-heads", "minilm", "--fingerprint", "abc")
    assert run.code == 0 and seen == [("minilm", None, "abc")]
    assert f"heads ready in {tmp_path}" in run.out


def test_trainer_steps_reach_the_job_progress_file(tmp_path, monkeypatch):
    """In a job, a trainer reports its steps (from a resumed run's checkpoint step on), then
    that what remains (held-out scores, saving) comes after the steps."""
    from types import SimpleNamespace

    from common.jobs import read_progress
    from training.callbacks import job_callbacks

    monkeypatch.delenv("BERTSCOPE_JOB_PROGRESS", raising=False)
    assert job_callbacks() == []  # not a job: nothing written
    monkeypatch.setenv("BERTSCOPE_JOB_PROGRESS", str(tmp_path / "progress.json"))
    (callback,) = job_callbacks()
    seen = []
    for event, step in (("on_train_begin", 150), ("on_step_end", 151), ("on_train_end", 200)):
        getattr(callback, event)(None, SimpleNamespace(global_step=step, max_steps=200), None)
        p = read_progress(tmp_path / "progress.json")
        seen.append((p.phase, p.done, p.total, p.unit))
    assert seen[0] == ("training", 150, 200, "steps")
    assert seen[2] == ("training finished, scoring and saving", 200, 200, "steps")
