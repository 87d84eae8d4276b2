"""The Search page's result cards: a hit (title, score, the chunk marked in its document,
metadata, the whole document), optionally its rank movement against another index and its
"Why this match" explanation. Text is escaped HTML throughout."""

from __future__ import annotations

import html
from collections.abc import Callable

import streamlit as st

from .explaining import explain_hit
from .guard import EXPECTED, sentence
from .render import excerpt, highlighted_html
from .shading import shaded_html

# translucent backgrounds in the text's own colour: readable in the light and the dark theme
BADGE_COLOURS = {"new": "30, 136, 229", "up": "46, 160, 67", "down": "229, 83, 60",
                 "same": "128, 128, 128", "gone": "128, 128, 128"}


def movement_badge(movement) -> str:
    """An `indexer.Movement` as a small coloured mark (escaped HTML for `st.html`)."""
    colour = BADGE_COLOURS[movement.kind]
    return (f'<span class="rank-move rank-{movement.kind}" title="rank against the other index" '
            f'style="background-color: rgba({colour}, 0.25); border-radius: 0.4em; '
            f'padding: 0 0.4em">{html.escape(movement.label)}</span>')


def gone_html(gone, titles: dict[str, str], k: int) -> str:
    """The results the other index dropped from its top `k`: badge, title, document id."""
    rows = [f"{movement_badge(m)} {html.escape(titles.get(m.doc_id) or m.doc_id)} · doc "
            f"{html.escape(m.doc_id)}" for m in gone]
    return f"<div class='rank-gone-list'><b>Gone from the top {k}:</b><br>" + \
        "<br>".join(rows) + "</div>"


def hit_card(hit, document, *, badge: str = "",
             why: Callable[[object], None] | None = None, key: str = "") -> None:
    """One hit in a bordered box; `why(hit)` draws its explanation behind a checkbox keyed
    `why-{key}{chunk_id}`."""
    mark = badge + " " if badge else ""
    with st.container(border=True):
        st.html(f"<div>{mark}<b>{hit.rank}. {html.escape(hit.title or hit.doc_id)}</b> "
                f"<span style='opacity:0.7'>· score {hit.score:.4f} · doc "
                f"{html.escape(str(hit.doc_id))} · chunk {html.escape(str(hit.chunk_id))}</span>"
                "</div>")
        st.html(highlighted_html(*excerpt(document.text, hit.start, hit.end)))
        if hit.metadata:
            st.html("<div style='opacity:0.75'>" + " · ".join(
                f"{html.escape(str(k))}: {html.escape(str(v))}"
                for k, v in hit.metadata.items()) + "</div>")
        with st.expander("Whole document (matching chunk marked)"):
            st.html(highlighted_html(document.text, (hit.start, hit.end)))
        if why is not None:
            with st.expander("Why this match"):
                if st.checkbox("Explain this hit (takes seconds on a CPU)",
                               key=f"why-{key}{hit.chunk_id}"):
                    why(hit)


def why_this_match(index, index_key: str, query: str, steps: int) -> Callable[[object], None]:
    """`why(hit)` for `hit_card`: the word × word heatmap, the chunk's words shaded, the error."""
    from charts.explanation import attribution_heatmap

    def why(hit) -> None:
        try:
            with st.spinner("Explaining (integrated Jacobians on the torch model)…"):
                ex = explain_hit(index_key, query, hit.chunk_id, steps, index, hit)
        except EXPECTED as exc:
            st.error(f"Cannot explain this match: {sentence(exc)}")
            return
        st.caption(f"cosine {ex.score:.4f} · the attributions sum to {ex.word_matrix.sum():.4f},"
                   f" promised {ex.target:.4f} (the rest is the [PAD] reference's own "
                   f"similarity) · completeness error {ex.error:+.5f} "
                   f"({100 * ex.relative_error:.2f} %) · {ex.steps} steps")
        if ex.score_note():
            st.caption(ex.score_note())
        st.plotly_chart(attribution_heatmap(ex.word_matrix, ex.word_strings_a,
                                            ex.word_strings_b,
                                            "Query word × chunk word: share of the similarity"),
                        key=f"why-figure-{index_key}-{hit.chunk_id}")
        st.html(shaded_html(ex.text_b, [(g.start, g.end) for g in ex.words_b],
                            ex.word_scores_b))

    return why
