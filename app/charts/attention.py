"""Attention figures: layer x head grid, one head enlarged, a bertviz-style head view, [CLS]."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import safe, ticks

COLORSCALE = "Viridis"  # perceptually uniform, readable on light and dark backgrounds


def attention_heatmap(matrix: np.ndarray, labels: Sequence[str], title: str) -> go.Figure:
    """One (T, T) attention map; rows attend (query), columns are attended to (key)."""
    t = len(labels)
    assert matrix.shape == (t, t), (matrix.shape, t)
    labels = safe(labels)
    hover = [[f"{labels[i]} → {labels[j]}: {matrix[i, j]:.3f}" for j in range(t)] for i in range(t)]
    fig = go.Figure(
        go.Heatmap(
            z=matrix, x=list(range(t)), y=list(range(t)), colorscale=COLORSCALE, zmin=0,
            zmax=float(max(matrix.max(), 1e-6)), text=hover, hoverinfo="text",
            colorbar={"title": "weight"},
        )
    )
    size = max(360, min(900, 28 * t + 160))
    fig.update_layout(
        title=title, height=size, xaxis_title="attended to (key)", yaxis_title="attending (query)",
        xaxis={**ticks(labels), "tickangle": -60},
        yaxis={**ticks(labels), "autorange": "reversed"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def attention_grid(
    attentions: np.ndarray, title: str = "Attention, every layer and head"
) -> go.Figure:
    """(layers, heads, T, T) → a grid of small heatmaps, one row per layer, one column per head."""
    layers, heads = attentions.shape[:2]
    fig = make_subplots(
        rows=layers, cols=heads, horizontal_spacing=0.004, vertical_spacing=0.006,
        row_titles=[f"L{i + 1}" for i in range(layers)],
        column_titles=[f"H{j + 1}" for j in range(heads)],
    )
    for i in range(layers):
        for j in range(heads):
            fig.add_trace(
                go.Heatmap(
                    z=attentions[i, j], coloraxis="coloraxis",
                    hovertemplate=f"layer {i + 1} head {j + 1}<br>query %{{y}} → key %{{x}}: "
                    "%{z:.3f}<extra></extra>",
                ),
                row=i + 1, col=j + 1,
            )
    fig.update_xaxes(showticklabels=False, ticks="")
    fig.update_yaxes(showticklabels=False, ticks="", autorange="reversed")
    fig.update_layout(
        title=title, height=max(300, 70 * layers + 80), coloraxis={"colorscale": COLORSCALE},
        margin={"l": 10, "r": 30, "t": 60, "b": 10},
    )
    return fig


def head_view(
    matrix: np.ndarray, labels: Sequence[str], title: str, *, min_weight: float = 0.05
) -> go.Figure:
    """Lines from each token (left) to the tokens it attends to (right), as in bertviz's head view.

    Line opacity follows the weight; weights below `min_weight` are not drawn. Lines are
    bucketed by weight into a few traces so a long input stays fast to draw.
    """
    t = len(labels)
    assert matrix.shape == (t, t), (matrix.shape, t)
    labels = safe(labels)
    fig = go.Figure()
    buckets = np.linspace(min_weight, 1.0, 6)
    for lo, hi in zip(buckets[:-1], buckets[1:], strict=True):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for i, j in zip(*np.nonzero((matrix >= lo) & (matrix < hi if hi < 1 else matrix <= hi)),
                        strict=True):
            xs += [0.0, 1.0, None]
            ys += [float(i), float(j), None]
        if xs:
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                line={"width": 1 + 4 * hi, "color": f"rgba(31, 119, 180, {0.15 + 0.85 * hi:.2f})"},
            ))
    for x, anchor in ((0.0, "left"), (1.0, "right")):
        fig.add_trace(go.Scatter(
            x=[x] * t, y=list(range(t)), mode="markers+text", text=list(labels),
            textposition="middle left" if anchor == "left" else "middle right",
            marker={"size": 6, "color": "#ff7f0e"}, showlegend=False,
            hovertext=[
                f"{labels[i]} attends most to {labels[int(matrix[i].argmax())]}"
                if anchor == "left" else f"{labels[i]} receives {matrix[:, i].sum():.2f} in total"
                for i in range(t)
            ],
            hoverinfo="text",
        ))
    fig.update_layout(
        title=title, height=max(320, 24 * t + 100), showlegend=False,
        xaxis={"visible": False, "range": [-0.6, 1.6]},
        yaxis={"visible": False, "autorange": "reversed"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def cls_profile(attentions: np.ndarray) -> np.ndarray:
    """(layers, heads, T, T) → (layers, T): what position 0 ([CLS]) attends to, mean over heads."""
    return attentions[:, :, 0, :].mean(axis=1)


def cls_by_layer(attentions: np.ndarray, labels: Sequence[str]) -> go.Figure:
    """Heatmap of [CLS]'s attention over the tokens, one row per layer."""
    profile = cls_profile(attentions)
    layers = profile.shape[0]
    labels = safe(labels)
    fig = go.Figure(go.Heatmap(
        z=profile, x=list(range(len(labels))), y=[f"layer {i + 1}" for i in range(layers)],
        colorscale=COLORSCALE, zmin=0, colorbar={"title": "weight"},
        customdata=[list(labels)] * layers,
        hovertemplate="%{y}: [CLS] → %{customdata}: %{z:.3f}<extra></extra>",
    ))
    fig.update_layout(
        title=f"What {labels[0]} attends to, layer by layer (mean over heads)",
        height=max(300, 30 * layers + 140), xaxis={**ticks(labels), "tickangle": -60},
        yaxis={"autorange": "reversed"}, margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig
