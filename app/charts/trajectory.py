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


SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")


def pca_figure(
    points: np.ndarray, layer: int, contexts: Sequence[str], word: str, fitted: str = "all layers",
    senses: Sequence[str] | None = None,
) -> go.Figure:
    """points (C, layers + 1, 2): faint paths through all layers, the chosen layer's points bold,
    each labelled `#i` (its context on hover). With `senses`, colour and marker shape are the
    sense's and the legend lists the senses (a few entries); without, each context has its own
    colour and no legend (22 contexts' legend squashed the plot): the page lists the contexts."""
    fig = go.Figure()
    groups = list(dict.fromkeys(senses)) if senses is not None else None
    for i in range(len(contexts)):
        group = groups.index(senses[i]) if groups is not None else i
        colour = COLOURS[group % len(COLOURS)]
        fig.add_trace(go.Scatter(
            x=points[i, :, 0], y=points[i, :, 1], mode="lines", opacity=0.35,
            line={"width": 1, "color": colour}, legendgroup=str(group), showlegend=False,
            hoverinfo="skip",
        ))
    for group in range(len(groups) if groups is not None else len(contexts)):
        members = [i for i in range(len(contexts))
                   if (groups.index(senses[i]) if groups is not None else i) == group]
        name = (f"{safe([groups[group]])[0]} ({len(members)})" if groups is not None
                else f"#{group + 1} {short(contexts[group])}")
        fig.add_trace(go.Scatter(
            x=points[members, layer, 0], y=points[members, layer, 1], mode="markers+text",
            marker={"size": 14, "color": COLOURS[group % len(COLOURS)],
                    "symbol": SYMBOLS[group % len(SYMBOLS)] if groups is not None else "circle"},
            text=[f"#{i + 1}" for i in members],
            textposition=[LABEL_SIDES[i % len(LABEL_SIDES)] for i in members],
            name=name, legendgroup=str(group), showlegend=groups is not None,
            hovertext=safe([f"#{i + 1} {contexts[i]}" for i in members]), hoverinfo="text",
        ))
    by = "coloured by sense" if groups is not None else "one colour per context"
    fig.update_layout(
        title=f"“{safe([word])[0]}” in 2-D (PCA fitted on {fitted}), layer {layer}, {by}",
        xaxis_title="PC 1", yaxis_title="PC 2", height=460,
        legend={"orientation": "h", "y": -0.18, "title": {"text": "sense"}},
        margin={"l": 10, "r": 10, "t": 50},
    )
    return fig


COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
