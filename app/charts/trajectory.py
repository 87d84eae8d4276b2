"""A word across contexts: per-layer similarity against the anisotropy baseline; a 2-D PCA map
(the projection is `encoder.pca_2d`'s: this module only draws)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import plotly.graph_objects as go

from .labels import safe


def cut(text: str, width: int = 28) -> str:
    """`text` cut to `width` characters."""
    return text if len(text) <= width else text[: width - 1] + "…"


def short(text: str, width: int = 28) -> str:
    """A context cut for a legend, made plain for plotly (see `charts.attention.safe`)."""
    return safe([cut(text, width)])[0]


def similarity_by_layer(
    cosine: np.ndarray, baseline: np.ndarray, contexts: Sequence[str], word: str,
    *, model: str | None = None, fig: go.Figure | None = None, second: bool = False,
) -> go.Figure:
    """cosine (layers + 1, C, C), baseline (layers + 1,) → a line per context pair, baseline dashed.

    Layer 0 is the embedding layer (before any attention), so every pair starts near 1 there when
    the word is tokenised the same way in both contexts. To compare two models, draw the second
    into the first's figure (`fig`, `second=True`: dotted lines); `model` prefixes the names.
    """
    layers = np.arange(cosine.shape[0])
    fig = fig if fig is not None else go.Figure()
    who = f"{safe([model])[0]}: " if model else ""
    for i, j in combinations(range(len(contexts)), 2):
        fig.add_trace(go.Scatter(
            x=layers, y=cosine[:, i, j], mode="lines+markers",
            name=f"{who}#{i + 1} {short(contexts[i])} ↔ #{j + 1} {short(contexts[j])}",
            line={"dash": "dot"} if second else None,
        ))
    fig.add_trace(go.Scatter(
        x=layers, y=baseline, mode="lines", name=f"{who}anisotropy baseline (random token pairs)",
        line={"dash": "dashdot" if second else "dash", "color": "gray"},
    ))
    fig.update_layout(
        title=f"Cosine similarity of “{safe([word])[0]}” across contexts, "
        "layer by layer",
        xaxis_title="layer (0 = embeddings)", yaxis_title="cosine similarity",
        height=420, legend={"orientation": "h", "y": -0.25}, margin={"l": 10, "r": 10, "t": 50},
    )
    return fig


LABEL_SIDES = ("top center", "bottom center", "middle right", "middle left", "top right",
               "bottom left", "top left", "bottom right")


def pca_figure(
    points: np.ndarray, layer: int, contexts: Sequence[str], word: str, fitted: str = "all layers"
) -> go.Figure:
    """points (C, layers + 1, 2): faint paths through all layers, the chosen layer's points bold."""
    fig = go.Figure()
    for i, context in enumerate(contexts):
        name = f"#{i + 1} {short(context)}"
        fig.add_trace(go.Scatter(
            x=points[i, :, 0], y=points[i, :, 1], mode="lines", opacity=0.35,
            line={"width": 1}, legendgroup=str(i), showlegend=False, hoverinfo="skip",
        ))
        fig.add_trace(go.Scatter(
            x=[points[i, layer, 0]], y=[points[i, layer, 1]], mode="markers+text",
            marker={"size": 14}, text=[f"#{i + 1}"],
            textposition=LABEL_SIDES[i % len(LABEL_SIDES)],  # points that meet keep apart labels
            name=name, legendgroup=str(i), hovertext=safe([context]),
            hoverinfo="text",
        ))
    fig.update_layout(
        title=f"“{safe([word])[0]}” in 2-D (PCA fitted on {fitted}), layer {layer} highlighted",
        xaxis_title="PC 1", yaxis_title="PC 2", height=420,
        legend={"orientation": "h", "y": -0.2}, margin={"l": 10, "r": 10, "t": 50},
    )
    return fig
