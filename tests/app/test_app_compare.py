"""Two models side by side: both trajectories on one chart, both attention grids."""

from __future__ import annotations

import pytest
from apptest_helpers import assert_clean, figures, values

pytestmark = pytest.mark.slow


def test_disambiguation_draws_both_models_on_one_chart(page):
    at = page("disambiguation")
    at.sidebar.selectbox(key="dis-compare").set_value("tiny-run (trained)").run()
    assert_clean(at)
    sim = next(f for f in figures(at)
               if f["layout"]["title"]["text"].startswith("Cosine similarity of"))
    names = [t["name"] for t in sim["data"]]
    first = [n for n in names if n.startswith("minilm: ")]
    second = [n for n in names if n.startswith("tiny-run: ")]
    assert len(first) == len(second) == 3  # same sense, other sense, baseline: each model
    tiny_baseline = next(t for t in sim["data"] if t["name"].startswith("tiny-run: aniso"))
    assert len(values(tiny_baseline["y"])) == 3  # the tiny BERT: embeddings + 2 layers
    assert tiny_baseline["line"]["dash"] == "dashdot"


def test_attention_grids_side_by_side(page):
    at = page("attention")
    at.sidebar.selectbox(key="attn-compare").set_value("tiny-run (trained)").run()
    assert_clean(at)
    grids = [f for f in figures(at) if "every layer and head" in str(f["layout"].get("title"))]
    assert len(grids) == 2
    titles = [g["layout"]["title"]["text"] for g in grids]
    assert titles[0].startswith("minilm") and titles[1].startswith("tiny-run")


@pytest.mark.parametrize(("name", "compare"), [("attention", "attn-compare"),
                                                ("disambiguation", "dis-compare")])
def test_the_first_model_is_not_offered_as_its_own_comparison(page, name, compare):
    at = page(name)
    options = at.sidebar.selectbox(key=compare).options
    assert "minilm (bundled)" not in options  # the page's model
    assert "e5-multilingual (bundled)" in options and "tiny-run (trained)" in options
