"""A text with each word shaded by a score: escaped HTML, markdown inert (render with st.html)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from .render import BOX

POSITIVE = "255, 80, 60"  # adds to the similarity
NEGATIVE = "60, 120, 255"  # takes from it


def shaded_html(text: str, spans: Sequence[tuple[int, int]], scores: Sequence[float]) -> str:
    """`text` escaped, the word at each character span shaded by its score (the strongest at
    0.6 opacity, in the text's own colour so both themes read it); the score in a tooltip."""
    bound = max((abs(s) for s in scores), default=0.0) or 1.0
    out, last = [], 0
    for (start, end), score in sorted(zip(spans, scores, strict=True)):
        if start < last:  # overlapping spans: keep the first
            continue
        colour = POSITIVE if score >= 0 else NEGATIVE
        alpha = 0.6 * abs(score) / bound
        out.append(html.escape(text[last:start]))
        out.append(f'<span title="{score:+.4f}" style="background-color: rgba({colour}, '
                   f'{alpha:.2f}); color: inherit">{html.escape(text[start:end])}</span>')
        last = end
    out.append(html.escape(text[last:]))
    return BOX.format("".join(out))
