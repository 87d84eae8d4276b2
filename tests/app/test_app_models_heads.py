"""Models page after heads were trained (issue 25: it still said neither bundled model has an MLM
head): each model's row says whether it has one and what its training measured on held-out
text. A temporary $BERTSCOPE_HOME holds minilm's cached heads (those of a 2-step run on the tiny
BERT, where the heads code looks for minilm's); e5 has none; nothing is loaded."""

from __future__ import annotations

import json
import shutil

import pytest
from apptest_helpers import assert_clean, texts

TEXTS = ["The cat sat on the mat. The dog ran in the park. Birds sing in the morning.",
         "Stocks fell sharply today. Investors worried about rates. Banks lost the most."] * 8


@pytest.fixture(scope="module")
def head_run(tiny_model_dir, tmp_path_factory):
    from training.cli import main

    root = tmp_path_factory.mktemp("models-heads")
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    assert main(["--threads", "1", "mlm", "--model", str(tiny_model_dir), "--corpus",
                 str(corpus), "--out", str(root / "run"), "--max-steps", "2", "--batch-size",
                 "4", "--max-length", "32", "--head-only", "--no-progress"]) == 0
    return root / "run"


@pytest.fixture
def minilm_heads(head_run, tmp_path, monkeypatch):
    from encoder.heads import HEADS_FILE, HEADS_META, bundled_heads_dir

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    folder = bundled_heads_dir("minilm")
    folder.mkdir(parents=True)
    for name in (HEADS_FILE, HEADS_META, "metrics.json"):
        shutil.copy(head_run / name, folder / name)
    return json.loads((folder / "metrics.json").read_text())["after"]


def test_models_page_says_which_model_has_heads_and_how_good(page, minilm_heads, head_run):
    at = page("models")
    assert_clean(at)
    heads = at.table[0].value.set_index("name")["MLM head"]
    assert heads["minilm"] == (f"BERTScope's, head only: top-1 {minilm_heads['top1']:.1%}, "
                               f"top-5 {minilm_heads['top5']:.1%}, perplexity "
                               f"{minilm_heads['perplexity']:,.0f} on held-out text")
    assert heads["e5-multilingual"].startswith("none yet. Fill-mask and next-sentence "
                                               "prediction need an MLM head")  # and what it takes
    assert "it took 24 minutes" in heads["e5-multilingual"]
    caption = " ".join(texts(at.caption))
    assert "Neither bundled model has" not in caption  # said after minilm's were trained
    assert "Neither bundled model ships with a masked-language-model head" in caption


def test_trained_folders_with_heads_say_so(page, head_run, app_env, tmp_path, monkeypatch):
    root = tmp_path / "runs"
    shutil.copytree(head_run, root / "mlm-run")
    shutil.copytree(app_env["BERTSCOPE_RUNS_ROOT"] / "tiny-run", root / "sbert-run")
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(root))
    at = page("models")
    assert_clean(at)
    heads = at.table[1].value.set_index("folder")["MLM head"]
    assert heads["mlm-run"].startswith("BERTScope's, head only: top-1 ")
    assert heads["sbert-run"] == "none"
