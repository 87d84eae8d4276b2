"""Pretraining page, "Fill in [MASK]": beside every prediction, how often the heads are right
as their training measured it on held-out text (top-1 / top-5, perplexity), for each model shown;
heads that carry no measurement say so."""

from __future__ import annotations

import json
import shutil

import pytest
from apptest_helpers import assert_clean

pytestmark = pytest.mark.slow  # the page opens on minilm
TEXTS = ["The cat sat on the mat. The dog ran in the park. Birds sing in the morning.",
         "Stocks fell sharply today. Investors worried about rates. Banks lost the most."] * 8


@pytest.fixture
def measured_runs(tiny_model_dir, tmp_path, monkeypatch):
    """`tiny-measured`: heads trained by the real command (2 steps, head only), with the
    metrics it saves; `tiny-unmeasured`: heads saved without any scores."""
    from encoder import load_encoder
    from encoder.heads import new_heads, save_heads
    from training.cli import main

    root = tmp_path / "runs"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    assert main(["--threads", "1", "mlm", "--model", str(tiny_model_dir), "--corpus",
                 str(corpus), "--out", str(root / "tiny-measured"), "--max-steps", "2",
                 "--batch-size", "4", "--max-length", "32", "--head-only",
                 "--no-progress"]) == 0
    shutil.copytree(tiny_model_dir, root / "tiny-unmeasured")
    enc = load_encoder(root / "tiny-unmeasured")
    save_heads(root / "tiny-unmeasured", new_heads(enc.transformer), {"mlm": True, "nsp": True})
    monkeypatch.setenv("BERTSCOPE_RUNS_ROOT", str(root))
    (tmp_path / "home" / "models").mkdir(parents=True)
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    return root


def rows_of_predictions(at) -> list[tuple[int, list[str]]]:
    """(charts, captions) of each row of two columns holding a prediction chart."""
    out = []
    for block in at.main.children.values():
        columns = list(getattr(block, "children", {}).values())
        if len(columns) == 2 and columns[0].get("plotly_chart"):
            out.append((len(columns[0].get("plotly_chart")),
                        [str(c.value) for c in columns[1].get("caption")]))
    return out


def test_every_prediction_shows_the_heads_measured_quality(page, measured_runs):
    after = json.loads((measured_runs / "tiny-measured" / "metrics.json").read_text())["after"]
    at = page("pretraining")
    at.sidebar.selectbox[1].set_value("tiny-measured (trained)").run()
    at.radio[0].set_value("Fill in [MASK]").run()
    at.text_area[0].set_value("The [MASK] sat on the [MASK].").run()
    assert_clean(at)
    rows = rows_of_predictions(at)
    assert [charts for charts, _ in rows] == [1, 1]  # one row per [MASK]
    for _, captions in rows:
        assert len(captions) == 1
        assert captions[0].startswith("**tiny-measured** · These heads on held-out text")
        assert (f"top-1 {after['top1']:.1%}, top-5 {after['top5']:.1%}, "
                f"perplexity {after['perplexity']:,.0f}") in captions[0]

    at.sidebar.selectbox[2].set_value("tiny-unmeasured (trained)").run()
    assert_clean(at)
    for _, captions in rows_of_predictions(at):
        assert len(captions) == 2  # each model shown: its own measurement
        assert captions[1].startswith("**tiny-unmeasured** · No held-out measurement")
