"""A set that is scored (a dev set, a report set, MLM's held-out texts) is never the data the
model trains on: the same file once resolved, or a copy with the same bytes, is refused before
anything loads (issue 26, item 6: a recipe whose dev set was its training file reported 100.00).
The library's `fit` only warns: tests and notebooks use one small file for both on purpose."""

from __future__ import annotations

import logging
import shutil

import pytest

from tests.training.conftest import load_sts_recipe
from training import FitConfig, Stage, TrainingError


@pytest.fixture
def root(sts_root):
    shutil.copy(sts_root / "sts" / "train.jsonl", sts_root / "sts" / "copy.jsonl")
    return sts_root


_load = load_sts_recipe


@pytest.mark.parametrize(("changes", "said"), [
    ({"dev": ["sts/train.jsonl"]},
     "dev[0]: sts/train.jsonl is the same file as stages[0].train[0]"),
    ({"dev": ["sts/./train.jsonl"]}, "is the same file as stages[0].train[0]"),
    ({"dev": ["sts/copy.jsonl"]}, "has the same content as stages[0].train[0]"),
    ({"report": ["sts/train.jsonl"]}, "report[0]: sts/train.jsonl is the same file as"),
    ({"stages": [{"tasks": [{"train": "sts/dev.jsonl"}, {"train": ["sts/train.jsonl"]}]}],
      "dev": ["sts/copy.jsonl"]}, "has the same content as stages[0].tasks[1].train[0]"),
])
def test_a_recipe_never_scores_its_training_data(tmp_path, root, changes, said):
    assert _load(tmp_path, root).config.dev_sets  # a real dev set: accepted
    with pytest.raises(TrainingError) as info:
        _load(tmp_path, root, **changes)
    assert said in str(info.value)
    assert "held-out" in str(info.value)


def test_fit_flags_never_score_the_training_file(run_cli, tmp_path, root):
    train = root / "sts" / "train.jsonl"
    for dev in (train, root / "sts" / ".." / "sts" / "train.jsonl", root / "sts" / "copy.jsonl"):
        for command in (["fit"], ["experiment", "pooling", "--modes", "cls"]):
            done = run_cli("training", *command, "--model", "minilm", "--train", str(train),
                           "--loss", "cosine", "--dev", str(dev), "--out", str(tmp_path / "o"))
            assert done.code == 2, done
            assert f"--dev {dev}" in done.error and "--train" in done.error
            assert not (tmp_path / "o").exists()


def test_the_library_only_warns(tiny_model_dir, tmp_path, root, caplog):
    from training import fit

    train = str(root / "sts" / "train.jsonl")
    config = FitConfig(model=str(tiny_model_dir), stages=(Stage((train,), "cosine"),),
                       out=str(tmp_path / "o"), dev=train, batch_size=3, eval_steps=50,
                       max_seq_length=32, show_progress=False)
    with caplog.at_level(logging.WARNING, logger="bertscope.training"):
        fit(config)
    assert "is the same file as" in caplog.text


def test_mlm_held_out_texts_are_not_the_corpus(run_cli, tiny_model_dir, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("One document here.\n\nAnother document there.\n\nA third one.\n")
    shutil.copy(corpus, tmp_path / "same.txt")
    for held in (corpus, tmp_path / "same.txt"):
        done = run_cli("training", "mlm", "--model", str(tiny_model_dir), "--corpus",
                       str(corpus), "--eval", str(held), "--out", str(tmp_path / "m"),
                       "--no-progress")
        assert done.code == 2, done
        assert f"--eval {held}" in done.error and "--corpus" in done.error
        assert not (tmp_path / "m").exists()
