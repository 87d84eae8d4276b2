"""Training results: the dev-score curve and base-vs-fine-tuned scores, from plain data."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def training_curve(
    loss: Sequence[tuple[int, float]], dev: Sequence[tuple[int, float]],
    dev_before: float | None = None,
) -> go.Figure:
    """Training loss and dev Spearman x100 against the optimizer step (step 0 = the base model);
    a run without a dev set (an adaptation, a file with no scores) draws the loss alone. Points
    are marked while there are few (one logged step is a dot, not an empty chart)."""
    points = ([(0, dev_before)] if dev_before is not None else []) + list(dev)
    rows = 2 if points else 1
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("training loss", "dev Spearman × 100")[:rows])
    if loss:
        x, y = zip(*loss, strict=True)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers" if len(x) < 30 else "lines",
                                 name="loss"), row=1, col=1)
    if points:
        x, y = zip(*points, strict=True)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name="dev Spearman"), row=2, col=1)
    fig.update_xaxes(title_text="optimizer step (all stages)", row=rows, col=1)
    fig.update_layout(height=460 if rows == 2 else 280, showlegend=False,
                      margin={"l": 10, "r": 10, "t": 40})
    return fig


def before_after(
    before: dict, after: dict, title: str, keys: Sequence[str] = ("spearman", "pearson")
) -> go.Figure:
    """Grouped bars: each score (x 100) of the base model beside the fine-tuned one."""
    keys = [k for k in keys if isinstance(before.get(k), int | float)
            and isinstance(after.get(k), int | float)]
    fig = go.Figure([
        go.Bar(x=keys, y=[before[k] for k in keys], name="base model", text=[
            f"{before[k]:.2f}" for k in keys], textposition="outside"),
        go.Bar(x=keys, y=[after[k] for k in keys], name="fine-tuned", text=[
            f"{after[k]:.2f}" for k in keys], textposition="outside"),
    ])
    fig.update_layout(title=title, barmode="group", height=360, yaxis_title="score × 100",
                      margin={"l": 10, "r": 10, "t": 50})
    return fig
