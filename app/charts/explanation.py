"""Explanation figures: the word × word attribution heatmap of a pair (diverging, 0 in white)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import safe, ticks

COLORSCALE = "RdBu_r"  # red: adds to the similarity, blue: takes from it


def attribution_heatmap(matrix: np.ndarray, words_a: Sequence[str], words_b: Sequence[str],
                        title: str, names: tuple[str, str] = ("query", "chunk")) -> go.Figure:
    """(Wa, Wb) attributions: rows are the words of the first text, columns of the second."""
    assert matrix.shape == (len(words_a), len(words_b)), (matrix.shape, len(words_a),
                                                          len(words_b))
    a, b = safe(words_a), safe(words_b)
    bound = float(max(np.abs(matrix).max(), 1e-9))
    hover = [[f"{a[i]} × {b[j]}: {matrix[i, j]:+.4f}" for j in range(len(b))]
             for i in range(len(a))]
    fig = go.Figure(go.Heatmap(
        z=matrix, x=list(range(len(b))), y=list(range(len(a))), colorscale=COLORSCALE,
        zmin=-bound, zmax=bound, zmid=0, text=hover, hoverinfo="text",
        colorbar={"title": "share"}))
    fig.update_layout(
        title=title, height=max(260, min(700, 22 * len(a) + 180)),
        xaxis={**ticks(words_b), "tickangle": -60, "title": names[1]},
        yaxis={**ticks(words_a), "autorange": "reversed", "title": names[0]},
        margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig
