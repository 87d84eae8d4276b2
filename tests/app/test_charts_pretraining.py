"""Pretraining charts from plain data: the draw wraps into rows of cells coloured by status;
top-k bars keep the order; the NSP bar splits 100 %."""

from __future__ import annotations

from charts.pretraining import STATUS, mask_draw_figure, nsp_figure, topk_figure


def test_draw_cells_wrap_and_follow_the_status():
    tokens = [f"t{i}" for i in range(14)]
    status = ["", "mask", "random", "kept"] + [""] * 10
    shown = ["t0", "[MASK]", "zebra", "t3"] + tokens[4:]
    heat = mask_draw_figure(tokens, shown, status, per_row=12).data[0]
    assert len(heat.z) == 4  # two lines of 12, each an "original" and a "model sees" row
    assert list(heat.z[0][:4]) == [STATUS[s][1] for s in status[:4]]
    assert list(heat.text[1][:4]) == ["·", "[MASK]", "zebra", "t3"]  # unselected shown as ·
    assert list(heat.text[2][:2]) == ["t12", "t13"] and heat.z[2][2] is None  # padding cells


def test_topk_bars_with_and_without_comparison():
    cands = [("paris", 0.6), ("lyon", 0.2), ("<s>", 0.1)]
    one = topk_figure(cands, "[MASK] #1")
    assert len(one.data) == 1 and list(one.data[0].x) == [0.6, 0.2, 0.1]
    assert one.data[0].y[2] == "3. <\u200bs>"  # plotly would read <s> as a tag
    two = topk_figure(cands, "[MASK] #1", compare=[("rome", 0.5)], names=("a", "b"))
    assert [t.name for t in two.data] == ["a", "b"]


def test_nsp_bar_splits_one():
    fig = nsp_figure(0.73)
    assert fig.data[0].x[0] + fig.data[1].x[0] == 1
