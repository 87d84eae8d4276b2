"""Axis labels for plotly figures of tokens and words."""

from __future__ import annotations

from collections.abc import Sequence


def safe(labels: Sequence[str]) -> list[str]:
    """Labels for plotly, which reads `<s>` (XLM-R's [CLS]) as a strike-through tag and shows
    entities such as `&lt;` literally: a zero-width space after `<` keeps it plain text."""
    return [str(t).replace("<", "<\u200b") for t in labels]


def ticks(labels: Sequence[str]) -> dict:
    """Numeric positions with text ticks: repeated labels ([SEP], "the") stay separate rows."""
    return {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": safe(labels)}
