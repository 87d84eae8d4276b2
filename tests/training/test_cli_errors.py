"""Mistakes a user will make stop before any model loads, with one line and exit status 2."""

from __future__ import annotations

import pytest

from training.cli import main


def _run(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err  # one line, no traceback
    assert lines[0].startswith("error: ")
    return lines[0]


def fit(*train, loss: str | list[str] | None = "cosine", out, extra=()) -> list[str]:
    """`fit --model minilm --train T... --loss L... --out O [extra]` as argv."""
    losses = [loss] if isinstance(loss, str) else loss or []
    return ["fit", "--model", "minilm", *(a for t in train for a in ("--train", str(t))),
            *(a for name in losses for a in ("--loss", name)), "--out", str(out), *extra]


def test_unknown_loss(capsys, sts_file, tmp_path):
    line = _run(capsys, fit(sts_file, loss="huber", out=tmp_path / "o"))
    assert "Unknown loss 'huber'. Valid: cosine, cosent, mnrl, softmax, contrastive" in line


def test_missing_model_or_training_file(capsys, tmp_path):
    line = _run(capsys, ["fit", "--model", "minilm", "--out", str(tmp_path / "o")])
    assert "fit needs --model NAME and --train FILE (or --config RECIPE)" in line


def test_data_file_without_needed_columns(capsys, tmp_path, jsonl):
    bad = jsonl(tmp_path / "q.jsonl", [{"question": "a", "answer": "b"}])
    line = _run(capsys, fit(bad, out=tmp_path / "o"))
    assert "needs a 'sentence1' column" in line and "found answer, question" in line


def test_loss_that_does_not_fit_the_data(capsys, nli_file, tmp_path):
    line = _run(capsys, fit(nli_file, loss="cosent", out=tmp_path / "o"))
    assert "holds nli data" in line


def test_dev_set_in_the_wrong_format(capsys, sts_file, nli_file, tmp_path):
    line = _run(capsys, fit(sts_file, out=tmp_path / "o", extra=["--dev", str(nli_file)]))
    assert "the dev set must hold scored or binary pairs" in line


def test_output_folder_that_holds_something_else(capsys, sts_file, tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("keep me")
    line = _run(capsys, fit(sts_file, out=busy))
    assert "is not empty and is not a training run (thesis.tex)" in line
    assert (busy / "thesis.tex").read_text() == "keep me"


def test_resume_with_nothing_to_resume(capsys, sts_file, tmp_path):
    line = _run(capsys, fit(sts_file, out=tmp_path / "new", extra=["--resume"]))
    assert "holds no training run" in line


def test_losses_per_stage_must_line_up(capsys, sts_file, nli_file, tmp_path):
    line = _run(capsys, fit(nli_file, sts_file, loss=["mnrl", "cosine", "cosent"],
                            out=tmp_path / "o"))
    assert "once per --train (2); got 3" in line


def test_evaluate_needs_a_task_and_a_pairs_file(capsys, nli_file):
    assert "needs --sts FILE or --beir" in _run(capsys, ["evaluate", "minilm"])
    line = _run(capsys, ["evaluate", "minilm", "--sts", str(nli_file)])
    assert "the --sts file must hold scored or binary pairs" in line


@pytest.mark.parametrize("flag", [["--pooling", "sum"], ["--batch-size", "0"]])
def test_bad_settings(capsys, sts_file, tmp_path, flag):
    line = _run(capsys, fit(sts_file, out=tmp_path / "o", extra=flag))
    assert "Invalid pooling mode 'sum'" in line or "--batch-size must be >= 1, got 0" in line
