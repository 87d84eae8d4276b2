"""`training.mlm.views`: what the Pretraining page draws, as data, on a tiny random BERT with
(untrained) heads beside one without: the draw and its table, the fills beside a second model's,
P(IsNext) beside a second model's, and what a model without heads gets."""

from __future__ import annotations

import math
import shutil

import pytest

from encoder import MaskFill, NoHeadError, draw_mask
from training.mlm.views import draw_view, fill_view, nsp_view

SENTENCE = "the cat sat on the mat while the dog slept by the warm fire"


@pytest.fixture(scope="module")
def models(tiny_model_dir, tmp_path_factory):
    """(a tiny model with MLM + NSP heads, a second one with heads, one without)."""
    from encoder import load_encoder
    from encoder.heads import new_heads, save_heads

    root = tmp_path_factory.mktemp("views")
    loaded = []
    for name in ("with-heads", "with-heads-b", "plain"):
        shutil.copytree(tiny_model_dir, root / name)
        if name != "plain":
            enc = load_encoder(root / name, backend="torch")
            save_heads(root / name, new_heads(enc.transformer), {"mlm": True, "nsp": True})
        loaded.append(load_encoder(root / name, backend="torch"))
    return loaded


def test_the_draw_its_score_and_the_rows_of_its_table(models):
    model = models[0]
    view = draw_view(model, SENTENCE, share=0.4, seed=3)
    want = draw_mask(model.tokenizer, SENTENCE, probability=0.4, seed=3,
                     max_length=model.max_length)
    assert view.draw.status == want.status and view.heads.ready
    picked = view.draw.selected
    assert picked and view.score.positions == picked
    counts = want.counts()
    assert view.summary == (f"{len(picked)} of {len(want.tokens)} tokens selected: "
                            f"{counts['mask']} → [MASK], {counts['random']} → random, "
                            f"{counts['kept']} kept.")
    rows = view.rows()
    assert [r["position"] for r in rows] == picked
    assert list(rows[0]) == ["position", "original", "model sees", "draw", "top-1", "top-5",
                             "loss"]
    for row in rows:
        i = row["position"]
        assert (row["original"], row["model sees"], row["draw"]) == \
            (want.tokens[i], want.shown[i], want.status[i])
        assert row["top-1"] == row["top-5"].split(", ")[0] and len(row["top-5"].split(", ")) == 5
    assert math.isclose(view.score.loss, sum(r["loss"] for r in rows) / len(rows))
    assert view.right == f"{sum(view.score.correct)} of {len(picked)}"


def test_a_model_without_heads_draws_but_scores_nothing(models):
    view = draw_view(models[2], SENTENCE, share=0.4, seed=3)
    assert view.draw.selected and view.score is None and view.rows() == [] and view.right == ""
    assert not view.heads.ready and "mlm" in view.heads.reason.lower()
    none = draw_view(models[0], "cat", share=0.05, seed=0)  # nothing selected: nothing to score
    assert (none.score is None) == (not none.draw.selected)


def test_fills_beside_a_second_models_with_each_ones_quality(models):
    one, two = models[0], models[1]
    view = fill_view(one, "the [MASK] sat on the [MASK] .", top_k=3, compare=two)
    assert len(view.fills) == 2 and all(isinstance(f, MaskFill) for f in view.fills)
    assert all(len(f.candidates) == 3 for f in view.fills)
    assert view.other_candidates(1) == view.other[1].candidates and view.other_candidates(2) is None
    assert view.names == (one.name, two.name)
    assert [name for name, _ in view.quality] == [one.name, two.name]
    assert all("measurement" in sentence for _, sentence in view.quality)  # none was saved
    alone = fill_view(one, "the [MASK] sat .", top_k=2)
    assert alone.other is None and alone.other_candidates(0) is None and alone.names[1] == ""


def test_next_sentence_beside_a_second_model(models):
    one, two = models[0], models[1]
    view = nsp_view(one, "the cat sat.", "it purred.", compare=two)
    assert 0 <= view.is_next <= 1 and 0 <= view.other <= 1
    assert view.other_summary == f"{two.name}: P(IsNext) = {view.other:.1%}"
    assert nsp_view(one, "a.", "b.").other_summary == ""


def test_bad_input_names_the_fix(models):
    with pytest.raises(NoHeadError):
        fill_view(models[2], "the [MASK] sat .")
    with pytest.raises(NoHeadError):
        nsp_view(models[0], "a.", "b.", compare=models[2])
    with pytest.raises(ValueError):
        draw_view(models[0], "   ")
