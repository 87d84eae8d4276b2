"""The Search page's result cards: a hit (title, score, the chunk marked in its document,
metadata, the whole document), optionally its rank movement against another index and its
"Why this match" explanation. Text is escaped HTML throughout."""

from __future__ import annotations

import html
from collections.abc import Callable

import streamlit as st

from common.documents import citation, page_starts

from .explaining import explain_hit
from .guard import EXPECTED, sentence
from .progress import ProgressBar
from .render import excerpt, highlighted_html
from .shading import shaded_html

# shown as the citation line (source, page, section) or of no use to a reader (the hash)
CITED = frozenset({"source", "page", "section", "sha256"})
# what the explanations took on quiet cores (bench/results/explain-timing.md; the first load:
# issue #42): said where no estimate for this hit can be made
OCCLUSION_TIMES = ("Occlusion took 0.5 s for a query and a ~55-token chunk with minilm and 1.1 s "
                   "with e5-multilingual, measured on 2 quiet AMD EPYC cores "
                   "(bench/results/explain-timing.md); a busy machine takes longer.")
FIRST_LOAD = ("The first explanation of a session also loads the model's torch weights: 12–14 s "
              "in a browser on a busy 2-core machine.")
HEATMAP_WORDS = 40  # chunk words a heatmap can label readably side by side

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
             why: Callable[[object], None] | None = None, key: str = "",
             where: Callable[[object, object, str], None] | None = None) -> None:
    """One hit in a bordered box; `why(hit)` draws its explanation behind a checkbox keyed
    `why-{key}{chunk_id}`; `where(hit, document, key)` draws where it stands (its page or its
    section, `appkit.pages`)."""
    mark = badge + " " if badge else ""
    with st.container(border=True):
        st.html(f"<div>{mark}<b>{hit.rank}. {html.escape(hit.title or hit.doc_id)}</b> "
                f"<span style='opacity:0.7'>· score {hit.score:.4f} · doc "
                f"{html.escape(str(hit.doc_id))} · chunk {html.escape(str(hit.chunk_id))}</span>"
                "</div>")
        from_file = "source" in hit.metadata and "sha256" in hit.metadata
        if from_file:  # a chunk of a user's file: where a reader finds it
            st.html(f"<div class='citation' style='opacity:0.85'>📄 "
                    f"{html.escape(citation(hit.metadata))}</div>")
        st.html(highlighted_html(*excerpt(document.text, hit.start, hit.end,
                                          page_starts=page_starts(document.metadata))))
        if from_file and where is not None:
            where(hit, document, key)
        shown = {k: v for k, v in hit.metadata.items() if not (from_file and k in CITED)}
        if shown:
            st.html("<div style='opacity:0.75'>" + " · ".join(
                f"{html.escape(str(k))}: {html.escape(str(v))}"
                for k, v in shown.items()) + "</div>")
        with st.expander("Whole document (matching chunk marked)"):
            st.html(highlighted_html(document.text, (hit.start, hit.end)))
        if why is not None:
            with st.expander("Why this match"):
                before = getattr(why, "before", None)
                st.caption(before(hit) if before is not None else OCCLUSION_TIMES)
                if st.checkbox("Explain this hit (occlusion first)",
                               key=f"why-{key}{hit.chunk_id}"):
                    why(hit)


def why_this_match(index, index_key: str, query: str, steps: int,
                   readers: frozenset[str] | None = None) -> Callable[[object], None]:
    """`why(hit)` for `hit_card`: occlusion at once (each word's cosine drop when deleted;
    `OCCLUSION_TIMES` says what it took), then, on request, the exact attribution (integrated
    Jacobians: the word × word heatmap and its completeness error) with a progress bar, a time
    estimate from the rate in token passes, and a way out. Every read passes `readers` (a hit
    hidden from them is not explained), and the cache keys on them."""
    from charts.explanation import attribution_heatmap

    from encoder.explain.estimate import (
        exact_estimate_s,
        load_per_core,
        occlusion_estimate_s,
        said,
    )

    shown_to = None if readers is None else tuple(sorted(readers))  # hashed by explain_hit

    def before(hit) -> str:
        """The occlusion's time for this hit, before it runs: its work at the quiet pace times
        this machine's load per core now (a quiet figure alone was promised at load 12)."""
        try:
            units = index.explain_work(query, hit, method="occlusion", readers=readers)
            info = index.encoder.info
        except EXPECTED:
            return f"{OCCLUSION_TIMES} {FIRST_LOAD}"
        seconds = occlusion_estimate_s(units, info.layers, info.hidden_size)
        return (f"Occlusion re-encodes the query and this chunk once per word ({units:,} token "
                f"passes): {said(seconds)} at this machine's load now "
                f"({load_per_core():.1f} per core; 0.5 s for a ~55-token chunk with minilm on "
                f"2 quiet cores). {FIRST_LOAD}")

    def why(hit) -> None:
        try:
            with st.spinner("Deleting each word and re-encoding (occlusion, on the torch model)…"):
                quick = explain_hit(index_key, query, hit.chunk_id, "occlusion", 0, index, hit,
                                    readers=shown_to)
            work = index.explain_work(query, hit, steps, readers=readers)
        except EXPECTED as exc:
            st.error(f"Cannot explain this match: {sentence(exc)}")
            return
        st.caption(f"Occlusion: how much the cosine ({quick.score:.4f}) drops when one word of "
                   "the chunk is deleted. A fast baseline; nothing promises the drops add up. "
                   f"It took {quick.seconds:.1f} s here.")
        st.html(shaded_html(quick.text_b, [(g.start, g.end) for g in quick.words_b],
                            quick.word_scores_b))
        if quick.score_note():
            st.caption(quick.score_note())
        key = f"why-exact-{index_key}-{hit.chunk_id}-{steps}"
        if not st.session_state.get(key):
            estimate = exact_estimate_s(quick.seconds, quick.units, work)
            st.button(f"Exact attribution: integrated Jacobians, {steps} steps ({work:,} "
                      f"token passes): {said(estimate)} at this machine's pace now",
                      key=f"{key}-button", help="Estimated from the occlusion of this chunk, "
                      f"which took {quick.seconds:.1f} s just now: an exact token pass costs "
                      "about 2.5 of its passes. Time grows with steps × tokens².",
                      on_click=lambda: st.session_state.update({key: True}))
            return
        st.caption("Changing any control or leaving the page stops it.")
        try:
            ex = explain_hit(index_key, query, hit.chunk_id, "integrated-jacobians", steps, index,
                             hit, ProgressBar("Integrated Jacobians on the torch model",
                                              unit="token passes"), readers=shown_to)
        except EXPECTED as exc:
            st.error(f"Cannot explain this match: {sentence(exc)}")
            return
        st.caption(f"cosine {ex.score:.4f} · the attributions sum to {ex.word_matrix.sum():.4f},"
                   f" promised {ex.target:.4f} (the rest is the [PAD] reference's own "
                   f"similarity) · completeness error {ex.error:+.5f} "
                   f"({100 * ex.relative_error:.2f} %) · {ex.steps} steps")
        shown = ex.strongest_b(HEATMAP_WORDS)
        if len(shown) < len(ex.words_b):
            st.caption(f"The heatmap shows the {len(shown)} chunk words with the largest shares "
                       f"of {len(ex.words_b)}; the text below shades every word.")
        st.plotly_chart(attribution_heatmap(ex.word_matrix[:, shown], ex.word_strings_a,
                                            [ex.word_strings_b[i] for i in shown],
                                            "Query word × chunk word: share of the similarity"),
                        key=f"why-figure-{index_key}-{hit.chunk_id}")
        st.html(shaded_html(ex.text_b, [(g.start, g.end) for g in ex.words_b],
                            ex.word_scores_b))

    why.before = before  # hit_card's caption over the checkbox
    return why
