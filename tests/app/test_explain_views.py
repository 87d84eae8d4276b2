"""Explanation views take plain data: the heatmap's shape and symmetric scale, shading escapes."""

from __future__ import annotations

import numpy as np
from appkit.shading import shaded_html
from charts.explanation import attribution_heatmap


def test_heatmap_is_centred_on_zero_and_labels_both_texts():
    m = np.array([[0.2, -0.05], [0.0, 0.1], [0.01, 0.02]])
    fig = attribution_heatmap(m, ["a", "<s>", "c"], ["x", "y"], "t")
    heat = fig.data[0]
    assert heat.zmin == -0.2 and heat.zmax == 0.2 and heat.zmid == 0
    assert list(fig.layout.yaxis.ticktext) == ["a", "<\u200bs>", "c"]
    assert list(fig.layout.xaxis.ticktext) == ["x", "y"]


def test_shading_escapes_and_scales_by_the_strongest_word():
    out = shaded_html("<b>cat</b> & dog", [(3, 6), (13, 16)], [0.5, -0.25])
    assert "<b>" not in out and "&lt;b&gt;" in out and "&amp;" in out
    assert 'title="+0.5000"' in out and "rgba(255, 80, 60, 0.60)" in out
    assert 'title="-0.2500"' in out and "rgba(60, 120, 255, 0.30)" in out
