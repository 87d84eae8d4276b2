"""BERT's pretraining, from plain data: the 80/10/10 draw token by token, top-k predictions per
mask, the NSP probability, and a base-vs-trained comparison."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .labels import safe

# status -> (legend, colour index); "" is a token that was not selected
STATUS = {"": ("not selected", 0), "mask": ("selected → [MASK] (80 %)", 1),
          "random": ("selected → random token (10 %)", 2),
          "kept": ("selected → kept as it is (10 %)", 3)}
COLOURS = ["#eeeeee", "#4c78a8", "#f58518", "#54a24b"]


def mask_draw_figure(tokens: Sequence[str], shown: Sequence[str], status: Sequence[str],
                     *, per_row: int = 12) -> go.Figure:
    """Each token as a cell: the original above, what the model sees below, coloured by what
    the draw did to it. Long inputs wrap every `per_row` tokens."""
    n = len(tokens)
    rows = max(1, -(-n // per_row))
    z, text, hover = [], [], []
    for r in range(rows):
        part = range(r * per_row, min(n, (r + 1) * per_row))
        pad = per_row - len(part)
        codes = [STATUS[status[i]][1] for i in part] + [None] * pad
        z += [codes, codes]
        text += [safe([tokens[i] for i in part]) + [""] * pad,
                 safe([shown[i] if status[i] else "·" for i in part]) + [""] * pad]
        labels = [f"#{i}: {STATUS[status[i]][0]}" for i in part] + [""] * pad
        hover += [labels, labels]
    scale = [[k / 3, COLOURS[k]] for k in range(4)]
    fig = go.Figure(go.Heatmap(
        z=z, text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
        colorscale=scale, zmin=0, zmax=3, showscale=False, xgap=2, ygap=2,
    ))
    ticks = [label for r in range(rows) for label in (f"{r * per_row}: original", "model sees")]
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(range(2 * rows)),
                     ticktext=ticks)
    fig.update_xaxes(visible=False)
    for code, (legend, _) in enumerate(STATUS.values()):  # a legend entry per status
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=legend,
                                 marker={"size": 12, "color": COLOURS[code], "symbol": "square"}))
    fig.update_layout(height=90 + 70 * rows, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "y": 1.15}, plot_bgcolor="rgba(0,0,0,0)")
    return fig


def topk_figure(candidates: Sequence[tuple[str, float]], title: str,
                *, compare: Sequence[tuple[str, float]] | None = None,
                names: tuple[str, str] = ("base", "trained")) -> go.Figure:
    """Horizontal bars of the top-k (token, probability), most likely on top; with `compare`,
    a second model's top-k beside it."""
    fig = go.Figure()
    series = [(names[0], candidates)] + ([(names[1], compare)] if compare is not None else [])
    for name, cands in series:
        tokens = safe([t for t, _ in cands])
        fig.add_trace(go.Bar(
            x=[p for _, p in cands], y=[f"{i + 1}. {t}" for i, t in enumerate(tokens)],
            orientation="h", name=name, text=[f"{p:.1%}" for _, p in cands],
            textposition="auto",
            xaxis="x" if name == names[0] else "x2", yaxis="y" if name == names[0] else "y2",
        ))
    layout: dict = {"title": title, "height": 80 + 34 * max(len(c) for _, c in series),
                    "margin": {"l": 10, "r": 10, "t": 50, "b": 10}, "showlegend": False,
                    "yaxis": {"autorange": "reversed"},
                    "xaxis": {"tickformat": ".0%", "range": [0, 1]}}
    if compare is not None:
        layout.update({
            "xaxis": {"domain": [0, 0.46], "tickformat": ".0%", "range": [0, 1],
                      "title": names[0]},
            "xaxis2": {"domain": [0.54, 1], "tickformat": ".0%", "range": [0, 1],
                       "title": names[1]},
            "yaxis2": {"anchor": "x2", "autorange": "reversed"},
        })
    fig.update_layout(**layout)
    return fig


def nsp_figure(probability: float) -> go.Figure:
    """P(IsNext) against P(NotNext) as one stacked bar."""
    fig = go.Figure([
        go.Bar(x=[probability], y=["B after A"], orientation="h", name="IsNext",
               text=[f"IsNext {probability:.1%}"], textposition="inside",
               marker_color=COLOURS[3]),
        go.Bar(x=[1 - probability], y=["B after A"], orientation="h", name="NotNext",
               text=[f"NotNext {1 - probability:.1%}"], textposition="inside",
               marker_color=COLOURS[2]),
    ])
    fig.update_layout(barmode="stack", height=140, showlegend=False,
                      xaxis={"range": [0, 1], "tickformat": ".0%"},
                      margin={"l": 10, "r": 10, "t": 10, "b": 10})
    return fig
