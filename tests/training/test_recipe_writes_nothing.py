"""Loading a recipe writes nothing: its held-out parts (holdout.py) are worked out and checked at
load, and written only when a run starts, so checking a recipe, a refused run or a read-only
cache leaves no file behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.training.conftest import STS_ROWS, write_jsonl
from training.cli import main
from training.holdout import HoldoutSpec, materialise
from training.recipe import load_recipe

PAIRS = [{"sentence1": f"question {i}", "sentence2": f"question {i} again", "score": i % 2}
         for i in range(40)]
HOLDOUT = {"qq/dev.jsonl": {"seed": 1, "select": 4, "heldout": 10}}


@pytest.fixture
def recipe(tmp_path) -> Path:
    root = tmp_path / "data"
    for folder, name, rows in (("qq", "dev.jsonl", PAIRS), ("sts", "train.jsonl", STS_ROWS)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        write_jsonl(root / folder / name, rows)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({
        "recipe": "r", "model": "minilm", "holdout": HOLDOUT,
        "stages": [{"train": ["qq/dev.jsonl#train"]}, {"train": ["sts/train.jsonl"]}],
        "dev": ["qq/dev.jsonl#select"], "report": ["qq/dev.jsonl#heldout"]}))
    return path


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


def test_loading_writes_nothing_and_a_run_start_writes_the_parts(tmp_path, recipe):
    cache = tmp_path / "read-only"
    cache.mkdir()
    before = _files(tmp_path)
    os.chmod(cache, 0o555)
    try:
        loaded = load_recipe(recipe, out="o", data=tmp_path / "data", cache=cache / "recipe-data")
    finally:
        os.chmod(cache, 0o755)
    assert _files(tmp_path) == before
    parts = loaded.splits["qq/dev.jsonl"]
    assert loaded.config.dev_sets == (parts["select"],)
    assert not any(Path(p).exists() for p in parts.values())

    loaded.write_splits()  # what `fit --config` does when the run starts
    source = tmp_path / "data" / "qq" / "dev.jsonl"
    spec = HoldoutSpec(1, {"select": 4, "heldout": 10})
    assert materialise(source, spec, cache / "recipe-data") == {p: Path(f)
                                                                for p, f in parts.items()}
    lines = sum(len(Path(f).read_text().splitlines()) for f in parts.values())
    assert lines == len(PAIRS)
    again = load_recipe(recipe, out="o", data=tmp_path / "data", cache=cache / "recipe-data")
    assert again.splits == loaded.splits  # the written parts are found, not split again


def test_a_refused_run_writes_no_split(tmp_path, recipe, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("BERTSCOPE_HOME", str(home))
    train = tmp_path / "data" / "sts" / "train.jsonl"
    code = main(["fit", "--config", str(recipe), "--data", str(tmp_path / "data"),
                 "--out", str(tmp_path / "o"), "--dev", str(train)])
    assert code == 2 and "is the same file as" in capsys.readouterr().err
    assert not (home / "recipe-data").exists() and not (tmp_path / "o").exists()
