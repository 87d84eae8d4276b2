"""Mistakes a user will make stop before any model loads, with one line and exit status 2."""

from __future__ import annotations

import pytest


@pytest.fixture
def _run(run_cli):
    """`_run(argv)` → the one error line of `python -m training ARGV` (exit status 2)."""

    def run(argv: list[str]) -> str:
        done = run_cli("training", *argv)
        assert done.code == 2, str(done)
        return done.error  # the one error line (argparse's comes after its usage lines)

    return run


def fit(*train, loss: str | list[str] | None = "cosine", out, extra=()) -> list[str]:
    """`fit --model minilm --train T... --loss L... --out O [extra]` as argv."""
    losses = [loss] if isinstance(loss, str) else loss or []
    return ["fit", "--model", "minilm", *(a for t in train for a in ("--train", str(t))),
            *(a for name in losses for a in ("--loss", name)), "--out", str(out), *extra]


def test_unknown_loss(_run, sts_file, tmp_path):
    line = _run(fit(sts_file, loss="huber", out=tmp_path / "o"))
    assert "Unknown loss 'huber'. Valid: cosine, cosent, mnrl, softmax, contrastive" in line


def test_missing_model_or_training_file(_run, tmp_path):
    line = _run(["fit", "--model", "minilm", "--out", str(tmp_path / "o")])
    assert "fit needs --model NAME and --train FILE (or --config RECIPE)" in line


def test_data_file_without_needed_columns(_run, tmp_path, jsonl):
    bad = jsonl(tmp_path / "q.jsonl", [{"question": "a", "answer": "b"}])
    line = _run(fit(bad, out=tmp_path / "o"))
    assert "needs a 'sentence1' column" in line and "found answer, question" in line


def test_loss_that_does_not_fit_the_data(_run, nli_file, tmp_path):
    line = _run(fit(nli_file, loss="cosent", out=tmp_path / "o"))
    assert "holds nli data" in line


def test_dev_set_in_the_wrong_format(_run, sts_file, nli_file, tmp_path):
    line = _run(fit(sts_file, out=tmp_path / "o", extra=["--dev", str(nli_file)]))
    assert "the dev set must hold scored or binary pairs" in line


def test_output_folder_that_holds_something_else(_run, sts_file, tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("keep me")
    line = _run(fit(sts_file, out=busy))
    assert "is not empty and is not a training run (thesis.tex)" in line
    assert (busy / "thesis.tex").read_text() == "keep me"


def test_resume_with_nothing_to_resume(_run, sts_file, tmp_path):
    line = _run(fit(sts_file, out=tmp_path / "new", extra=["--resume"]))
    assert "does not exist, so there is no run to continue" in line


def test_losses_per_stage_must_line_up(_run, sts_file, nli_file, tmp_path):
    line = _run(fit(nli_file, sts_file, loss=["mnrl", "cosine", "cosent"],
                            out=tmp_path / "o"))
    assert "once per --train (2); got 3" in line


def test_evaluate_needs_a_task_and_a_pairs_file(_run, nli_file):
    assert "needs --sts FILE or --beir" in _run(["evaluate", "minilm"])
    line = _run(["evaluate", "minilm", "--sts", str(nli_file)])
    assert "the --sts file must hold scored or binary pairs" in line


@pytest.mark.parametrize("flag", [["--pooling", "sum"], ["--batch-size", "0"]])
def test_bad_settings(_run, sts_file, tmp_path, flag):
    line = _run(fit(sts_file, out=tmp_path / "o", extra=flag))
    assert "Invalid pooling mode 'sum'" in line or "--batch-size: must be >= 1, got 0" in line
