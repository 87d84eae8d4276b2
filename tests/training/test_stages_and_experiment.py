"""Multi-stage runs with every loss, and the pooling experiment, on the tiny random BERT."""

from __future__ import annotations

import inspect
import json

import pytest

import training
from training import FitConfig, Stage, fit
from training.experiment import PoolingRow, pooling_experiment, pooling_table

BINARY = [
    {"sentence1": "how do I repay", "sentence2": "how to pay back", "score": 1},
    {"sentence1": "open an account", "sentence2": "the weather today", "score": 0},
    {"sentence1": "reset my password", "sentence2": "change my password", "score": 1},
    {"sentence1": "card was lost", "sentence2": "a recipe for cake", "score": 0},
]


@pytest.mark.slow
def test_stages_run_in_order_with_each_loss(tiny_model_dir, sts_file, nli_file, tmp_path, jsonl):
    binary = jsonl(tmp_path / "binary.jsonl", BINARY)
    stages = (
        Stage((str(nli_file),), "softmax"),  # SBERT: NLI first ...
        Stage((str(nli_file),), "mnrl"),
        Stage((str(binary),), "contrastive"),
        Stage((str(sts_file), str(binary)), "cosent"),  # two files in one stage
        Stage((str(sts_file),), "cosine"),  # ... then STS-B
    )
    config = FitConfig(
        model=str(tiny_model_dir),
        stages=stages,
        out=str(tmp_path / "out"),
        dev=str(sts_file),
        batch_size=4,
        eval_steps=50,
        logging_steps=1,
        max_seq_length=32,
        show_progress=False,
    )
    result = fit(config)
    done = result.metrics["stages"]
    assert [s["loss"] for s in done] == ["softmax", "mnrl", "contrastive", "cosent", "cosine"]
    assert [s["rows"] for s in done] == [6, 2, 4, 10, 6]
    log = [json.loads(x) for x in (result.out / "training_log.jsonl").read_text().splitlines()]
    assert sorted({e["stage"] for e in log}) == [0, 1, 2, 3, 4]
    assert all(s["best_dev_spearman"] is not None for s in done)
    card = (result.out / "README.md").read_text()
    assert card.count("| cosine |") == 1 and "| softmax |" in card


@pytest.mark.slow
def test_pooling_experiment_trains_one_model_per_mode(tiny_model_dir, sts_file, tmp_path):
    from encoder import load_encoder

    base = FitConfig(
        model=str(tiny_model_dir),
        stages=(Stage((str(sts_file),), "cosine"),),
        out="unused",
        dev=str(sts_file),
        batch_size=3,
        eval_steps=50,
        max_seq_length=32,
        show_progress=False,
    )
    rows = pooling_experiment(base, tmp_path / "exp", modes=("cls", "max"))
    assert [r.pooling for r in rows] == ["cls", "max"]
    for row in rows:
        assert load_encoder(row.out).info.pooling == row.pooling
    assert rows[0].dev_before != rows[1].dev_before  # different poolings, different scores


def test_pooling_table_sits_beside_the_papers_figures():
    table = pooling_table(
        [PoolingRow("max", 50.0, 60.0, 12.0, "x"), PoolingRow("mean", 80.0, 85.5, 10.0, "y")]
    )
    lines = table.splitlines()
    assert lines[2].startswith("| MEAN | 80.00 | 85.50 | 87.44 |")
    assert lines[3].startswith("| MAX | 50.00 | 60.00 | 69.92 |")


def test_public_api_is_pinned():
    assert sorted(training.__all__) == sorted(
        [
            "KINDS",
            "LOSSES",
            "NLI_LABELS",
            "POOLING_MODES",
            "BadRow",
            "FitConfig",
            "FitResult",
            "LoadedData",
            "LossSpec",
            "Stage",
            "StsResult",
            "TrainingError",
            "build_siamese",
            "evaluate_sts",
            "fit",
            "get_loss",
            "load_pairs",
            "load_sts",
            "nli_classes",
            "nli_triplets",
            "pooling_mode",
            "sts_evaluator",
        ]
    )
    # each name is what it claims to be: constants are filled tables, the rest classes or functions
    for name in training.__all__:
        value = getattr(training, name)
        if name.isupper():
            assert isinstance(value, (tuple, dict)) and value, name
        else:
            assert inspect.isclass(value) or inspect.isfunction(value), name
