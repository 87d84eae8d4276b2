"""exBERT-style "where else is this word used like this": candidate windows and their ranking.

The encoder computes the vectors (`word_trajectory`); this module only crops candidate text
around the word and orders the candidates by the similarities it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def window(text: str, word: str, width: int = 160) -> tuple[str, tuple[int, int]] | None:
    """`text` cropped to `width` characters either side of the word's first (case-insensitive)
    occurrence, and the word's span in the crop; None where the word does not occur."""
    start = text.lower().find(word.lower())
    if start < 0:
        return None
    a, b = max(0, start - width), min(len(text), start + len(word) + width)
    return text[a:b], (start - a, start - a + len(word))


def rank(similarities: Sequence[float], top: int) -> list[int]:
    """Indices of the `top` most similar candidates, most similar first (stable on ties)."""
    order = np.argsort(-np.asarray(similarities, dtype=float), kind="stable")
    return [int(i) for i in order[:top]]
