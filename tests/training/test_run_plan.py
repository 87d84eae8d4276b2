"""`training.run_plan`: what the Training page says of a data file and the `fit` flags it hands a
job; `settings.setting_flags`, the flags made from the one settings table, parse back to the
same settings."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.training.conftest import STS_ROWS, write_jsonl
from training import TrainingError
from training.cli import build_parser
from training.flags import fit_config
from training.run_plan import (
    check_data,
    check_recipe,
    fit_flags,
    hold_out_dev,
    setting_defaults,
    shipped_recipes,
    stage_rows,
)
from training.settings import setting_flags


def test_each_kind_is_said_with_the_loss_fit_gives_it(tmp_path, sts_file, nli_file):
    scored = check_data(sts_file)
    assert (scored.kind, scored.rows, scored.loss, scored.can_hold_out) == ("scored", 6,
                                                                            "cosent", True)
    assert scored.sentence().startswith("scored pairs (sentence1, sentence2, a similarity "
                                        "score): 6 rows, scores 0–5. Loss: **cosent**")
    binary = check_data(write_jsonl(tmp_path / "b.jsonl", [
        {"sentence1": "a", "sentence2": "b", "score": i % 2} for i in range(4)]))
    assert (binary.kind, binary.loss) == ("binary", "cosent")
    nli = check_data(nli_file)
    assert (nli.kind, nli.loss, nli.can_hold_out) == ("nli", "mnrl", False)
    triplets = check_data(write_jsonl(tmp_path / "t.jsonl", [
        {"anchor": "q", "positive": "p", "negative": "n"}, "{broken"]))
    assert (triplets.kind, triplets.loss, triplets.bad_rows) == ("triplet", "mnrl", 1)
    assert ", 1 bad rows skipped" in triplets.sentence()
    (tmp_path / "pairs.csv").write_text("sentence1,sentence2,score\na,b,3.5\n", encoding="utf-8")
    assert not check_data(tmp_path / "pairs.csv").can_hold_out  # holdout cuts JSONL only
    with pytest.raises(TrainingError, match="'sentence1'"):
        check_data(write_jsonl(tmp_path / "x.jsonl", [{"a": 1}]))


def test_flags_carry_only_the_changed_settings_and_parse_back(tmp_path, sts_file):
    defaults = setting_defaults()
    settings = {**defaults, "batch_size": 4, "learning_rate": 5e-5, "max_rows": 3,
                "freeze_embeddings": True}
    flags = fit_flags("minilm", train=sts_file, dev=tmp_path / "dev.jsonl", epochs=2.0,
                      settings=settings, defaults=defaults)
    assert flags == ["--train", str(sts_file), "--model", "minilm", "--dev",
                     str(tmp_path / "dev.jsonl"), "--epochs", "2.0", "--batch-size", "4",
                     "--lr", "5e-05", "--max-rows", "3", "--freeze-embeddings"]
    config = fit_config(build_parser().parse_args(["fit", *flags, "--out", "o"]))
    assert (config.batch_size, config.learning_rate, config.max_rows, config.freeze_embeddings,
            config.seed) == (4, 5e-5, 3, True, defaults["seed"])
    assert config.stages[0].epochs == 2.0
    with pytest.raises(ValueError, match="a recipe or a training file"):
        fit_flags("minilm", settings=settings)


def test_setting_flags_follow_the_table():
    assert setting_flags({"prompt": None, "pooling": "cls", "keep_checkpoints": False,
                          "show_progress": False, "early_stopping_patience": None}) == [
        "--pooling", "cls", "--prompt", "none"]


def test_a_recipe_gives_its_settings_and_names_what_is_missing(tmp_path, sts_root):
    assert {"en-sts", "zh-sts", "scifact"} <= set(shipped_recipes())
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"recipe": "r", "model": "minilm", "batch_size": 3,
                                "stages": [{"train": ["sts/train.jsonl"]}]}))
    config = check_recipe(path, sts_root).config
    assert setting_defaults(config)["batch_size"] == 3
    assert stage_rows(config) == [{"stage": "0", "files": "sts/train.jsonl",
                                   "loss": "the kind's default", "epochs": 1.0, "rows": "all"}]
    capped = check_recipe(path, sts_root).config
    assert stage_rows(dataclasses.replace(capped, max_rows=1200))[0]["rows"] == "1,200 at most"
    empty = tmp_path / "empty-root"
    empty.mkdir()
    with pytest.raises(TrainingError, match="sts/train.jsonl: file not found under"):
        check_recipe(path, empty)


def test_held_out_dev_part_shares_no_sentence_with_training(tmp_path):
    rows = [{"sentence1": f"s{i}", "sentence2": f"t{i}", "score": i % 5} for i in range(30)]
    rows += STS_ROWS
    source = write_jsonl(tmp_path / "pairs.jsonl", rows)
    train, dev = hold_out_dev(source, 8, cache=tmp_path / "cache")
    read = [[json.loads(x) for x in p.read_text().splitlines()] for p in (train, dev)]
    assert len(read[1]) >= 8 and len(read[0]) + len(read[1]) == len(rows)
    sentences = [{r[k] for r in part for k in ("sentence1", "sentence2")} for part in read]
    assert not sentences[0] & sentences[1]
