"""A run killed while it writes a checkpoint is never stuck (issue 26, item 4). Checkpoints are
written aside and renamed into place, so a kill mid-write leaves no `checkpoint-N` that lacks
files; `--resume` takes the last complete checkpoint and removes partial ones (hidden staging
folders, or a `checkpoint-N` with config files only, as runs before this fix left), saying so;
a run whose only checkpoint is partial never trained and restarts without `--resume`."""

from __future__ import annotations

import json
import logging
import os

import pytest
from transformers import Trainer

from tests.training.test_fit_resume import StopAfter, _config
from training import TrainingError, fit
from training.checkpoints import complete_checkpoint, resume_point


def _partial(folder, step: int):
    """What a kill while writing checkpoint-`step` left before: a folder with config files."""
    path = folder / f"checkpoint-{step}"
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    (path / "config_sentence_transformers.json").write_text("{}")
    return path


class KilledWhileSaving(Exception):
    """Stands for kill -9 in the middle of a checkpoint write."""


def test_a_checkpoint_is_published_whole_or_not_at_all(tiny_model_dir, sts_file, tmp_path,
                                                       monkeypatch, caplog):
    out = tmp_path / "run"
    real = Trainer._save_rng_state

    def dies_at_step_4(self, output_dir):
        if self.state.global_step == 4:
            raise KilledWhileSaving
        return real(self, output_dir)

    monkeypatch.setattr(Trainer, "_save_rng_state", dies_at_step_4)
    with pytest.raises(KilledWhileSaving):
        fit(_config(tiny_model_dir, sts_file, out))
    monkeypatch.undo()
    stage = out / "checkpoints" / "stage-0"
    visible = sorted(p.name for p in stage.iterdir() if not p.name.startswith("."))
    assert visible == ["checkpoint-2"]  # checkpoint-4 was being written: never published
    assert complete_checkpoint(stage / "checkpoint-2")

    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        resumed = fit(_config(tiny_model_dir, sts_file, out), resume=True)
    assert resumed.metrics["stages"][0]["resumed_from"] == "checkpoint-2"
    assert "interrupted while it was written" in caplog.text


def test_resume_skips_and_removes_a_partial_checkpoint(tiny_model_dir, sts_file, tmp_path,
                                                       caplog):
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        fit(_config(tiny_model_dir, sts_file, out), callbacks=[StopAfter(5)])
    stage = out / "checkpoints" / "stage-0"
    partial = _partial(stage, 6)
    assert not complete_checkpoint(partial)
    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        resumed = fit(_config(tiny_model_dir, sts_file, out), resume=True)
    assert resumed.metrics["stages"][0]["resumed_from"] == "checkpoint-4"
    assert "checkpoint-6" in caplog.text and "incomplete" in caplog.text


def test_a_run_whose_only_checkpoint_is_partial_starts_again(tiny_model_dir, sts_file,
                                                            tmp_path):
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        fit(_config(tiny_model_dir, sts_file, out), callbacks=[StopAfter(1)])
    _partial(out / "checkpoints" / "stage-0", 2)
    result = fit(_config(tiny_model_dir, sts_file, out))  # no "pass --resume": nothing to resume
    assert result.metrics["stages"][0]["resumed_from"] is None


def test_resume_point_orders_by_step_and_cleans(tmp_path, caplog):
    folder = tmp_path / "stage-0"
    for step in (2, 10):
        done = folder / f"checkpoint-{step}"
        done.mkdir(parents=True)
        (done / "model.safetensors").write_bytes(b"x")
        (done / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    _partial(folder, 12)
    (folder / ".saving-checkpoint-14").mkdir()
    broken = folder / "checkpoint-11"
    broken.mkdir()
    (broken / "model.safetensors").write_bytes(b"x")
    (broken / "trainer_state.json").write_text('{"global_st')  # cut short
    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        assert resume_point(folder) == str(folder / "checkpoint-10")
    assert sorted(os.listdir(folder)) == ["checkpoint-10", "checkpoint-2"]
    assert resume_point(tmp_path / "none") is None


def test_mlm_resume_skips_a_partial_checkpoint(run_cli, tiny_model_dir, tmp_path):
    from training.cli import build_parser
    from training.mlm.cli import mlm_config
    from training.mlm.pretrain import pretrain

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n\n".join(f"Document {i} talks about cells and mice at some length."
                                  for i in range(8)))
    out = tmp_path / "m"
    argv = ["mlm", "--model", str(tiny_model_dir), "--corpus", str(corpus), "--out", str(out),
            "--batch-size", "2", "--max-length", "32", "--save-steps", "1", "--max-steps", "4",
            "--no-progress"]
    with pytest.raises(KeyboardInterrupt):
        pretrain(mlm_config(build_parser().parse_args(argv)), callbacks=[StopAfter(2)])
    # stopped at step 2 before its save: checkpoint-1 is whole; as if killed writing checkpoint-2
    _partial(out / "checkpoints" / "stage-0", 2)
    done = run_cli("training", *argv, "--resume")
    assert done.code == 0, done
    assert json.loads((out / "metrics.json").read_text())["resumed_from"] == "checkpoint-1"


def test_fit_refuses_nothing_new(tiny_model_dir, sts_file, tmp_path):
    """A finished run still is not overwritten (the check this fix must not loosen)."""
    out = tmp_path / "run"
    fit(_config(tiny_model_dir, sts_file, out))
    with pytest.raises(TrainingError, match="already holds a training run"):
        fit(_config(tiny_model_dir, sts_file, out))
