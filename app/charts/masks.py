"""The seed's comparison: BERT's bidirectional attention mask vs GPT's causal (triangular) one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import ticks


def bidirectional_mask(t: int) -> np.ndarray:
    """BERT: every token may attend to every token (an all-ones T x T matrix)."""
    return np.ones((t, t))


def causal_mask(t: int) -> np.ndarray:
    """GPT: token i may attend only to tokens 0..i (lower triangle)."""
    return np.tril(np.ones((t, t)))


def right_context_share(attentions: np.ndarray) -> np.ndarray:
    """(layers, heads, T, T) → (layers,): mean share of a token's attention that goes to tokens on
    its right, i.e. what a causal mask would forbid (0 for a causal model by construction)."""
    t = attentions.shape[-1]
    future = np.triu(np.ones((t, t)), k=1)  # j > i
    share = (attentions * future).sum(-1)  # (layers, heads, T)
    return share[..., : max(t - 1, 1)].mean(axis=(1, 2))  # the last token has no right context


def mask_figure(labels: Sequence[str]) -> go.Figure:
    """The two masks side by side for the same tokens (1 = may attend, 0 = hidden)."""
    t = len(labels)
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "BERT (encoder): bidirectional — all ones", "GPT (decoder): causal — lower triangle"))
    for col, mask in ((1, bidirectional_mask(t)), (2, causal_mask(t))):
        fig.add_trace(go.Heatmap(
            z=mask, x=list(range(t)), y=list(range(t)), zmin=0, zmax=1, showscale=False,
            colorscale=[[0, "#d9d9d9"], [1, "#1f77b4"]], xgap=1, ygap=1,
            hovertemplate="query %{y} → key %{x}: %{z:.0f}<extra></extra>",
        ), row=1, col=col)
    fig.update_xaxes(**ticks(labels), tickangle=-60, title_text="may attend to")
    fig.update_yaxes(**ticks(labels), autorange="reversed")
    fig.update_yaxes(title_text="token", row=1, col=1)
    fig.update_layout(height=max(340, 22 * t + 180), margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def right_context_figure(share: np.ndarray, model_name: str) -> go.Figure:
    """Per layer, how much attention this encoder puts on right context, which GPT cannot see."""
    layers = np.arange(1, len(share) + 1)
    fig = go.Figure([
        go.Bar(x=layers, y=share, name=f"{model_name} (bidirectional)"),
        go.Scatter(x=layers, y=np.zeros_like(share), mode="lines", name="causal mask (GPT): 0",
                   line={"dash": "dash"}),
    ])
    fig.update_layout(
        title="Share of attention on tokens to the right (hidden under a causal mask)",
        xaxis_title="layer", yaxis_title="share of attention", yaxis_range=[0, 1],
        height=340, margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig
