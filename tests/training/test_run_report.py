"""Reading what a run folder holds (`training.report`): the app's Models page asks these, so the
page itself opens no file."""

from __future__ import annotations

import json

import pytest

from training.report import METRICS_FILE, read_metrics, run_curves


def test_read_metrics_answers_the_dict_or_none(tmp_path):
    assert read_metrics(tmp_path) is None  # unfinished: no metrics.json
    (tmp_path / METRICS_FILE).write_text('{"model": "m", "dev_after": {"spearman": 63.25}}',
                                         encoding="utf-8")
    assert read_metrics(tmp_path) == {"model": "m", "dev_after": {"spearman": 63.25}}
    assert read_metrics(str(tmp_path))["model"] == "m"  # a path as text too
    (tmp_path / METRICS_FILE).write_text('{"model": ', encoding="utf-8")
    assert read_metrics(tmp_path) is None  # cut short while written by hand
    (tmp_path / METRICS_FILE).write_text("[1, 2]", encoding="utf-8")
    assert read_metrics(tmp_path) is None  # not a run's metrics
    assert read_metrics(tmp_path / "missing-folder") is None


def test_run_curves_reads_the_folder_log(tmp_path):
    assert run_curves(tmp_path) == ([], [])
    log = [{"stage": 0, "step": 10, "loss": 2.5},
           {"stage": 0, "step": 20, "loss": 1.9, "eval_dev_spearman_cosine": 0.55},
           {"stage": 1, "step": 5, "loss": 1.0}]
    (tmp_path / "training_log.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in log), encoding="utf-8")
    loss, dev = run_curves(tmp_path)
    assert loss == [(10, 2.5), (20, 1.9), (25, 1.0)]  # steps count across stages
    assert dev == [(20, pytest.approx(55.0))]
