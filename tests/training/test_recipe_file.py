"""Recipe files are checked before anything loads: unknown keys, missing files and bad values stop
with one line that says where in the file; a valid recipe resolves to a FitConfig."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.training.conftest import NLI_ROWS, STS_ROWS, write_jsonl
from tests.training.test_crossval import tiny_beir
from training import TrainingError
from training.cli import build_parser, main
from training.flags import given_flags, overrides
from training.recipe import load_recipe

BINARY_ROWS = [
    {"sentence1": f"question {i}", "sentence2": f"question {i} again", "score": i % 2}
    for i in range(40)
]


@pytest.fixture
def root(tmp_path) -> Path:
    """A data root like ../shared/data: sts/, nli/, qq/ (binary pairs); the dev file's bytes
    differ from the training file's (a copy would be refused: test_scored_apart.py)."""
    data = tmp_path / "data"
    for folder, name, rows in (("sts", "train.jsonl", STS_ROWS),
                               ("sts", "dev.jsonl", STS_ROWS[::-1]),
                               ("nli", "pairs.jsonl", NLI_ROWS), ("qq", "dev.jsonl", BINARY_ROWS)):
        (data / folder).mkdir(parents=True, exist_ok=True)
        write_jsonl(data / folder / name, rows)
    return data


def base_recipe(**changes) -> dict:
    recipe = {
        "recipe": "test",
        "model": "minilm",
        "batch_size": 4,
        "max_length": 32,
        "stages": [
            {"name": "nli", "train": ["nli/pairs.jsonl"], "loss": "mnrl", "batch_size": 2},
            {"name": "sts", "train": ["sts/train.jsonl"], "epochs": 2},
        ],
        "dev": ["sts/dev.jsonl"],
    }
    recipe.update(changes)
    return recipe


def load(tmp_path, root, recipe: dict, suffix: str = ".json"):
    path = tmp_path / f"recipe{suffix}"
    path.write_text(json.dumps(recipe))
    return load_recipe(path, out=str(tmp_path / "out"), data=root, cache=tmp_path / "cache")


def error(tmp_path, root, recipe: dict) -> str:
    with pytest.raises(TrainingError) as info:
        load(tmp_path, root, recipe)
    return str(info.value)


def test_valid_recipe_resolves_every_setting(tmp_path, root):
    r = load(tmp_path, root, base_recipe(lr=3e-5, warmup=0.2, early_stopping_patience=2))
    c = r.config
    assert r.name == "test" and c.model == "minilm" and c.out == str(tmp_path / "out")
    assert (c.batch_size, c.max_seq_length, c.learning_rate, c.warmup_ratio) == (4, 32, 3e-5, 0.2)
    assert c.early_stopping_patience == 2
    assert [s.name for s in c.stages] == ["nli", "sts"]
    assert c.stages[0].train == (str(root / "nli" / "pairs.jsonl"),)
    assert (c.stages[0].loss, c.stages[0].batch_size) == ("mnrl", 2)
    assert (c.stages[1].loss, c.stages[1].epochs) == (None, 2.0)  # None: the kind's default
    assert c.dev_sets == (str(root / "sts" / "dev.jsonl"),)


def test_yaml_recipe(tmp_path, root):
    import yaml

    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(base_recipe()))
    assert load_recipe(path, out="o", data=root).config.stages[1].epochs == 2.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"batchsize": 8}, "recipe.json: batchsize: unknown key 'batchsize'. Valid: about, "),
        ({"stages": [{"train": ["sts/train.jsonl"], "los": "cosine"}]},
         "stages[0]: unknown key 'los'. Valid: about, batch_size, epochs, loss, lr, max_rows, "
         "name, tasks, train"),
        ({"stages": [{"train": ["sts/missing.jsonl"]}]},
         "stages[0].train[0]: sts/missing.jsonl: file not found under"),
        ({"dev": ["sts/nope.jsonl"]}, "dev[0]: sts/nope.jsonl: file not found"),
        ({"stages": [{"train": ["sts/train.jsonl"], "loss": "huber"}]},
         "stages[0].loss: Unknown loss 'huber'. Valid: cosine, cosent, mnrl, softmax, contrastive"),
        ({"stages": [{"train": ["sts/train.jsonl"], "epochs": 0}]},
         "stages[0].epochs: must be > 0 and <= 1000, got 0"),
        ({"batch_size": "16"}, "batch_size: must be int, got '16'"),
        ({"lr": -1}, "lr: must be > 0, got -1"),
        ({"warmup": 1.5}, "warmup: must be in [0, 1), got 1.5"),
        ({"pooling": "sum"}, "pooling: Invalid pooling mode 'sum'. Valid: mean, cls, max"),
        ({"freeze_embeddings": 1}, "freeze_embeddings: must be bool, got 1"),
        ({"stages": []}, "stages: needs at least one stage"),
        ({"stages": [{"loss": "cosine"}]}, "stages[0]: give either `train` (one task) or `tasks`"),
        ({"stages": [{"tasks": [{"train": []}]}]}, "stages[0].tasks[0].train: lists no file"),
        ({"model": None}, "model: must be str, got None"),
    ],
)
def test_mistakes_name_where_they_are(tmp_path, root, change, message):
    recipe = base_recipe(**change)
    assert message in error(tmp_path, root, recipe)


def test_missing_required_keys_and_data_root(tmp_path, root):
    recipe = base_recipe()
    del recipe["stages"]
    assert "stages: is required" in error(tmp_path, root, recipe)
    with pytest.raises(TrainingError, match="data root .* not found; pass --data"):
        load(tmp_path, tmp_path / "nowhere", base_recipe())
    with pytest.raises(TrainingError, match="no such recipe file"):
        load_recipe(tmp_path / "none.json", out="o", data=root)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(TrainingError, match="broken.json: not valid JSON"):
        load_recipe(tmp_path / "broken.json", out="o", data=root)


def test_held_out_parts_are_named_and_guarded(tmp_path, root):
    holdout = {"qq/dev.jsonl": {"seed": 1, "select": 4, "heldout": 10}}
    stages = [{"train": ["qq/dev.jsonl#train"]}]
    r = load(tmp_path, root, base_recipe(holdout=holdout, stages=stages,
                                         dev=["qq/dev.jsonl#select"],
                                         report=["qq/dev.jsonl#heldout"]))
    parts = r.splits["qq/dev.jsonl"]
    assert r.config.stages[0].train == (parts["train"],)
    assert r.config.dev_sets == (parts["select"],) and r.config.report == (parts["heldout"],)
    # a split file only through its parts, so held-out pairs cannot slip into training
    msg = error(tmp_path, root, base_recipe(holdout=holdout,
                                            stages=[{"train": ["qq/dev.jsonl"]}]))
    assert "qq/dev.jsonl is split in `holdout`: use qq/dev.jsonl#train" in msg
    msg = error(tmp_path, root, base_recipe(stages=[{"train": ["sts/train.jsonl#train"]}]))
    assert "sts/train.jsonl is not split in `holdout`" in msg
    msg = error(tmp_path, root, base_recipe(holdout=holdout, dev=["qq/dev.jsonl#test"]))
    assert "unknown part 'test'. Valid: train, select, heldout" in msg
    msg = error(tmp_path, root, base_recipe(holdout={"qq/dev.jsonl": {"heldout": 400}}))
    assert "holdout['qq/dev.jsonl']: held-out parts ask for 400 pairs but the file has 40" in msg
    msg = error(tmp_path, root, base_recipe(holdout={"qq/dev.jsonl": {"test": 4}}))
    assert "unknown key 'test'. Valid: heldout, seed, select" in msg


def test_flags_override_the_recipe(tmp_path, root):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(base_recipe()))
    argv = ["fit", "--config", str(path), "--out", "o", "--batch-size", "16", "--prompt", "none",
            "--epochs", "3"]
    flags = given_flags(build_parser().parse_args(argv))
    assert flags == {"config": str(path), "out": "o", "batch_size": 16, "prompt": "none",
                     "epochs": [3.0]}
    config = load_recipe(path, out="o", data=root).config
    changed = overrides(flags, config)
    assert changed["batch_size"] == 16 and changed["prompt"] is None
    assert [s.epochs for s in changed["stages"]] == [3.0, 3.0]
    assert [s.loss for s in changed["stages"]] == ["mnrl", None]  # untouched
    flags = given_flags(build_parser().parse_args(["fit", "--config", str(path), "--out", "o",
                                                   "--train", "x.jsonl", "--loss", "cosine"]))
    assert overrides(flags, config)["stages"][0].train == ("x.jsonl",)


def test_cli_reports_a_bad_recipe_in_one_line(tmp_path, root, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(base_recipe(epochz=1)))
    code = main(["fit", "--config", str(path), "--data", str(root), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("error: ") and "unknown key 'epochz'" in err[0]
    assert not (tmp_path / "o").exists()


def test_shipped_recipes_are_valid(shared_data, tmp_path):
    for path in sorted(Path(__file__).resolve().parents[2].glob("recipes/*.json")):
        recipe = load_recipe(path, out=str(tmp_path / path.stem), data=shared_data,
                             cache=tmp_path / "cache")
        assert recipe.name == path.stem
        assert recipe.config.stages


@pytest.mark.parametrize(
    ("cv", "message"),
    [
        ({"folds": 1}, "cross_validation.folds: must be >= 2, got 1"),
        ({"negatives": {"depth": 2, "skip": 2}},
         "cross_validation.negatives: needs per_query >= 1 and 0 <= skip < depth"),
        ({"search_max_length": 4}, "cross_validation.search_max_length: must be >= 8 tokens"),
        ({"search_max_length": "256"},
         "cross_validation.search_max_length: must be int, got '256'"),
        ({"split": "test"}, "cross_validation.split: "),
        ({"fold": 3}, "cross_validation: unknown key 'fold'. Valid: beir, final, folds, "),
        # more folds than judged queries: a fold would hold out nothing (issue 26, item 2)
        ({"folds": 1000}, "cross_validation.folds: 1000 folds need at least 1000 judged queries"),
        ({"folds": 7}, "at most 6 folds"),
    ],
)
def test_cross_validation_mistakes_name_where_they_are(tmp_path, root, cv, message):
    tiny_beir(root / "beir")  # 6 judged queries
    stages = [{"train": ["cv:train"], "loss": "mnrl"}]
    good = load(tmp_path, root, base_recipe(stages=stages, dev=[],
                                            cross_validation={"beir": "beir",
                                                              "search_max_length": 256}))
    assert good.cross_validation.search_max_length == 256
    recipe = base_recipe(stages=stages, dev=[], cross_validation={"beir": "beir", **cv})
    assert message in error(tmp_path, root, recipe)
