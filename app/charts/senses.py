"""Sense separation by layer (`encoder.sense_separation`'s scores) and the raw cosine within
and between senses beside the anisotropy baseline; this module only draws plain arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import safe


def _prefix(model: str | None) -> str:
    return f"{safe([model])[0]}: " if model else ""


def separation_figure(
    accuracy: Sequence[float], silhouette: Sequence[float], chance: float, word: str, *,
    best_layer: int, model: str | None = None, fig: go.Figure | None = None,
    second: bool = False,
) -> go.Figure:
    """Per layer: nearest-neighbour sense accuracy (0..1), silhouette (-1..1) and the accuracy
    shuffled labels give (dashed); the best layer ringed. A second model draws into `fig`
    (`second=True`: dotted lines)."""
    accuracy, silhouette = np.asarray(accuracy, float), np.asarray(silhouette, float)
    layers = np.arange(len(accuracy))
    fig = fig if fig is not None else go.Figure()
    who, dash = _prefix(model), "dot" if second else None
    fig.add_trace(go.Scatter(x=layers, y=accuracy, mode="lines+markers", line={"dash": dash},
                             name=f"{who}nearest-neighbour sense accuracy"))
    fig.add_trace(go.Scatter(x=layers, y=silhouette, mode="lines+markers",
                             line={"dash": dash}, marker={"symbol": "square"},
                             name=f"{who}silhouette"))
    fig.add_trace(go.Scatter(x=layers, y=np.full(len(layers), chance), mode="lines",
                             line={"dash": "dashdot" if second else "dash", "color": "gray"},
                             name=f"{who}accuracy by chance (labels shuffled): {chance:.2f}"))
    fig.add_trace(go.Scatter(x=[best_layer], y=[accuracy[best_layer]], mode="markers",
                             marker={"size": 16, "symbol": "circle-open", "line": {"width": 2}},
                             name=f"{who}best layer ({best_layer})"))
    low = min(-0.1, float(silhouette.min()) - 0.05)
    fig.update_layout(
        title=f"Sense separation of “{safe([word])[0]}”, layer by layer "
        "(each layer's common direction removed)",
        xaxis_title="layer (0 = embeddings)", yaxis_title="score", yaxis_range=[low, 1.05],
        height=420, legend={"orientation": "h", "y": -0.25}, margin={"l": 10, "r": 10, "t": 50},
    )
    return fig


def sense_cosine_figure(
    within: Sequence[float], between: Sequence[float], baseline: Sequence[float], word: str, *,
    model: str | None = None, fig: go.Figure | None = None, second: bool = False,
) -> go.Figure:
    """Per layer: mean raw cosine of same-sense pairs, of different-sense pairs, and the
    anisotropy baseline (random token pairs, dashed)."""
    layers = np.arange(len(within))
    fig = fig if fig is not None else go.Figure()
    who, dash = _prefix(model), "dot" if second else None
    fig.add_trace(go.Scatter(x=layers, y=np.asarray(within, float), mode="lines+markers",
                             line={"dash": dash}, name=f"{who}same sense (mean of pairs)"))
    fig.add_trace(go.Scatter(x=layers, y=np.asarray(between, float), mode="lines+markers",
                             line={"dash": dash}, name=f"{who}different senses (mean of pairs)"))
    fig.add_trace(go.Scatter(
        x=layers, y=np.asarray(baseline, float), mode="lines",
        name=f"{who}anisotropy baseline (random token pairs)",
        line={"dash": "dashdot" if second else "dash", "color": "gray"}))
    fig.update_layout(
        title=f"Cosine similarity of “{safe([word])[0]}” within and between senses, "
        "layer by layer",
        xaxis_title="layer (0 = embeddings)", yaxis_title="cosine similarity", height=420,
        legend={"orientation": "h", "y": -0.25}, margin={"l": 10, "r": 10, "t": 50},
    )
    return fig
