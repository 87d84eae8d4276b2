"""A two-stage recipe end to end on the tiny random BERT: NLI, then a multi-task stage (scored and
binary pairs, each its own loss) on held-out splits, early stopping on the mean of two dev sets,
a report set scored before and after every stage."""

from __future__ import annotations

import json

import pytest

from tests.training.conftest import NLI_ROWS, STS_ROWS, write_jsonl
from training.cli import main
from training.report import MEAN_DEV_METRIC

BINARY_ROWS = [
    {"sentence1": f"how do I do thing {i}", "sentence2": f"thing {i}: how is it done",
     "score": (i // 2) % 2}
    for i in range(60)
]


@pytest.mark.slow
def test_two_stage_recipe_end_to_end(tiny_model_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))  # held-out parts land there
    root = tmp_path / "data"
    for folder, name, rows in (("sts", "train.jsonl", STS_ROWS * 3), ("sts", "dev.jsonl", STS_ROWS),
                               ("nli", "pairs.jsonl", NLI_ROWS), ("qq", "dev.jsonl", BINARY_ROWS)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        write_jsonl(root / folder / name, rows)
    recipe = {
        "recipe": "tiny",
        "model": str(tiny_model_dir),
        "max_length": 32,
        "batch_size": 4,
        "lr": 1e-4,
        "eval_steps": 2,
        "logging_steps": 1,
        "early_stopping_patience": 1,
        "holdout": {"qq/dev.jsonl": {"seed": 15, "select": 10, "heldout": 16}},
        "stages": [
            {"name": "nli", "train": ["nli/pairs.jsonl"], "batch_size": 2},
            {"name": "multi", "epochs": 3, "tasks": [
                {"train": ["sts/train.jsonl"], "loss": "cosine"},
                {"train": ["qq/dev.jsonl#train"], "max_rows": 20},
            ]},
        ],
        "dev": ["sts/dev.jsonl", "qq/dev.jsonl#select"],
        "report": ["qq/dev.jsonl#heldout"],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(recipe))
    out = tmp_path / "run"
    code = main(["fit", "--config", str(path), "--data", str(root), "--out", str(out),
                 "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "model saved to" in printed and "report " in printed

    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["recipe"]["name"] == "tiny"
    nli, multi = metrics["stages"]
    assert nli["loss"] == "mnrl" and nli["tasks"][0]["default_loss"]  # picked from the kind
    assert [t["loss"] for t in multi["tasks"]] == ["cosine", "cosent"]  # binary: default cosent
    assert multi["tasks"][1]["rows"] == 20  # the task's row budget
    assert multi["rows"] == 18 + 20
    # early stopping on the mean of the two dev sets: fewer steps than 3 epochs would take
    assert multi["steps"] < multi["max_steps"]
    for key in ("dev_before", "dev_after"):
        sets = metrics[key]["sets"]
        assert len(sets) == 2
        assert abs(metrics[key]["spearman"] - sum(s["spearman"] for s in sets) / 2) < 1e-9
    assert len(metrics["report_before"]["sets"]) == len(metrics["report_after"]["sets"]) == 1
    assert all(s["report_after"]["sets"][0]["pairs"] >= 16 for s in (nli, multi))
    log = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    assert any(MEAN_DEV_METRIC in e for e in log)
    card = (out / "README.md").read_text()
    assert "Report sets (never used to pick anything)" in card and "| mean |" in card

    from encoder import load_encoder

    assert load_encoder(out).encode(["a test"]).shape == (1, 32)
