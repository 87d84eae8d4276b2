"""Inputs to training that said nothing of their cause: recipes in UTF-16 or Latin-1 (a
UnicodeDecodeError traceback), integers of hundreds of digits in a recipe (an OverflowError
traceback), 1e9 epochs (taken: the run would never end), and data files that are a JSON array,
UTF-16, gzip, a CSV with only its header or not UTF-8 ("needs a 'sentence1' column; found none"
or datasets' "corresponds to no data"). Each is now one sentence naming the cause."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import STS_ROWS, load_sts_recipe

from training import FitConfig, Stage, TrainingError, fit, load_pairs
from training.settings import MAX_EPOCHS

LINES = "".join(json.dumps(r) + "\n" for r in STS_ROWS)


@pytest.mark.parametrize("changes,said", [
    ({"stages": [{"train": ["sts/train.jsonl"], "epochs": 10**400}]},
     "stages[0].epochs: must be a finite number > 0 and <= 1000, got an integer of 401 digits"),
    ({"stages": [{"train": ["sts/train.jsonl"], "epochs": 1e9}]},
     "stages[0].epochs: must be > 0 and <= 1000, got 1000000000.0"),
    ({"seed": 10**400}, "seed: must be an integer in [0, 2**32), got an integer of 401 digits"),
    ({"lr": -(10**400)}, "lr: must be a finite number > 0, got an integer of 401 digits"),
    ({"batch_size": 10**400}, "batch_size: must be an integer >= 1, got an integer of 401"),
])
def test_absurd_numbers_in_a_recipe_are_refused_with_the_bound(tmp_path, sts_root, changes,
                                                                said):
    with pytest.raises(TrainingError) as info:
        load_sts_recipe(tmp_path, sts_root, **changes)
    assert said in str(info.value)


def test_epochs_are_bounded_on_the_command_line_and_in_the_library(run_cli, sts_file,
                                                                    tmp_path):
    got = run_cli("training", "fit", "--train", str(sts_file), "--epochs", "1e9",
                  "--out", str(tmp_path / "o"))
    assert got.code == 2 and f"--epochs: must be <= {MAX_EPOCHS}, got 1e+09" in got.error
    with pytest.raises(TrainingError, match="--epochs: must be > 0 and <= 1000, got 1000000000"):
        fit(FitConfig("minilm", (Stage((str(sts_file),), "cosine", 1e9),), str(tmp_path / "o")))


@pytest.mark.parametrize("encoding,said", [
    ("utf-16", "is UTF-16 text (it starts with the byte-order mark FF FE"),
    ("latin-1", "is not UTF-8 (byte 0xe9 on line 1"),
])
def test_a_recipe_not_in_utf8_says_so(run_cli, tmp_path, sts_root, encoding, said):
    recipe = tmp_path / "r.json"
    recipe.write_bytes(json.dumps({"recipe": "café", "model": "minilm", "stages": [
        {"train": ["sts/train.jsonl"]}]}, ensure_ascii=False).encode(encoding))
    got = run_cli("training", "fit", "--config", str(recipe), "--data", str(sts_root),
                  "--out", str(tmp_path / "o"))
    assert got.code == 2 and f"{recipe} {said}" in got.error and "save it as UTF-8" in got.error
    assert "Traceback" not in str(got)


@pytest.mark.parametrize("name,content,said", [
    ("array.json", json.dumps(STS_ROWS, indent=1).encode(), "holds a JSON array; a pairs file "
                                                             "is JSON Lines"),
    ("wide.jsonl", LINES.encode("utf-16"), "is UTF-16 text"),
    ("packed.jsonl", gzip.compress(LINES.encode()), "is gzip-compressed: decompress it first"),
    ("header.csv", b"sentence1,sentence2,score\n", "holds only its header row "
                                                   "(sentence1,sentence2,score)"),
    ("latin.csv", b"sentence1,sentence2,score\ncaf\xe9,b,1\n", "is not UTF-8 (byte 0xe9 on "
                                                              "line 2"),
])
def test_a_data_file_that_is_no_pairs_text_says_why(tmp_path, name, content, said):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(TrainingError) as info:
        load_pairs(path)
    assert str(info.value) == f"{path} {said}" or str(info.value).startswith(f"{path} {said}")
