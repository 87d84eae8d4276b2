"""`heads_quality`: the held-out masked-token scores that the heads' own training saved beside
them (before and after), read back for the Pretraining page; a real tiny `python -m training
mlm` run is the source of truth for the format, hand-edited copies for the odd cases."""

from __future__ import annotations

import json
import shutil

import pytest

from encoder import load_encoder
from encoder.heads import HEADS_META, new_heads, save_heads
from encoder.heads_quality import METRICS_FILE, heads_quality, quality_sentence

TEXTS = ["The cat sat on the mat. The dog ran in the park. Birds sing in the morning.",
         "Stocks fell sharply today. Investors worried about rates. Banks lost the most."] * 8


@pytest.fixture(scope="module")
def head_run(tiny_model_dir, tmp_path_factory):
    """Heads trained head-only for 2 steps by the real command."""
    from training.cli import main

    root = tmp_path_factory.mktemp("heads-quality")
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    out = root / "run"
    assert main(["--threads", "1", "mlm", "--model", str(tiny_model_dir), "--corpus",
                 str(corpus), "--out", str(out), "--max-steps", "2", "--batch-size", "4",
                 "--max-length", "32", "--head-only", "--no-progress"]) == 0
    return out


def test_reads_what_the_training_measured(head_run):
    metrics = json.loads((head_run / METRICS_FILE).read_text())
    q = heads_quality(head_run)
    assert q is not None
    assert (q.after.top1, q.after.top5, q.after.perplexity, q.after.masked_tokens) == (
        metrics["after"]["top1"], metrics["after"]["top5"], metrics["after"]["perplexity"],
        metrics["after"]["masked_tokens"])
    assert q.before is not None and q.before.perplexity == metrics["before"]["perplexity"]
    assert q.mode == "head-only" and q.steps == 2
    # a model folder as the start: metrics.json names it (heads or not), so no claim of fresh
    assert not q.started_fresh and metrics["heads_from"] != "fresh"
    assert q.held_out == "5% of the documents" and q.corpus.endswith("corpus.jsonl")
    text = q.sentence()
    for part in (f"top-1 {metrics['after']['top1']:.1%}", f"top-5 {metrics['after']['top5']:.1%}",
                 f"perplexity {metrics['after']['perplexity']:,.0f}", "; before training: top-1",
                 "held-out text (5% of the documents, never trained on",
                 "head only, the encoder frozen", "2 steps"):
        assert part in text, (part, text)


def test_heads_trained_from_scratch_say_so(head_run, tmp_path):
    """As the bundled heads are (`python -m training mlm-heads`: heads_from "fresh")."""
    folder = tmp_path / "copy"
    shutil.copytree(head_run, folder)
    metrics = json.loads((folder / METRICS_FILE).read_text())
    (folder / METRICS_FILE).write_text(json.dumps({**metrics, "heads_from": "fresh"}))
    q = heads_quality(folder)
    assert q is not None and q.started_fresh
    assert f"; an untrained head: top-1 {metrics['before']['top1']:.1%}" in q.sentence()


def test_without_metrics_the_heads_own_after_scores(head_run, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(head_run, folder)
    (folder / METRICS_FILE).unlink()
    q = heads_quality(folder)
    assert q is not None and q.before is None and q.steps is None
    meta = json.loads((folder / HEADS_META).read_text())
    assert q.after.top1 == meta["after"]["top1"]


def test_metrics_of_another_run_are_not_taken_for_these_heads(head_run, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(head_run, folder)
    metrics = json.loads((folder / METRICS_FILE).read_text())
    metrics["after"]["top1"] = 0.99  # heads retrained, metrics.json from before
    (folder / METRICS_FILE).write_text(json.dumps(metrics))
    q = heads_quality(folder)
    assert q is not None and q.after.top1 != 0.99 and q.before is None


def test_heads_without_scores_and_no_heads_say_nothing_was_measured(tiny_model_dir, tmp_path):
    assert heads_quality(tmp_path) is None  # no heads at all
    folder = tmp_path / "bare"
    shutil.copytree(tiny_model_dir, folder)
    save_heads(folder, new_heads(load_encoder(folder).transformer), {"mlm": True})
    assert heads_quality(folder) is None
    assert quality_sentence(folder).startswith("No held-out measurement was saved")
