"""Search: a query against an index (dense, lexical or hybrid), hits with their text as text,
and for each hit "Why this match": its words' shares of the cosine (integrated Jacobians)."""

import html
import time

import streamlit as st
from appkit.config import AppConfig
from appkit.discovery import find_indexes, label
from appkit.explaining import explain_hit
from appkit.filters import build_filter
from appkit.guard import EXPECTED, call_or_stop, sentence
from appkit.render import excerpt, highlighted_html
from appkit.resources import get_index
from appkit.shading import shaded_html
from appkit.startup import load_libraries
from charts.explanation import attribution_heatmap

st.set_page_config(page_title="Search · BERTScope", layout="wide")
st.title("Search")
load_libraries()
from indexer.fusion import DEFAULT_FUSION, FUSIONS  # noqa: E402  (after the title: see appkit/startup.py)

config = AppConfig.from_env()

indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
if not indexes:
    st.info(f"No index found under {config.index_root}. Run `make default-index`, or build one "
            "on the Index page.")
    st.stop()
name = st.sidebar.selectbox("Index", list(indexes), key="search-index")
k = st.sidebar.slider("Results (k)", 1, 50, 10, key="search-k")
# hybrid first: on SciFact it beat both of its parts (bench/results/retrieval.md, fusion.md)
mode = st.sidebar.radio("Mode", ["hybrid", "dense", "lexical"], horizontal=True, key="search-mode",
                        help="hybrid: BM25 and embeddings fused (the best measured); dense: "
                        "embeddings; lexical: BM25.")
fusion = DEFAULT_FUSION
if mode == "hybrid":
    fusion = st.sidebar.selectbox(
        "Fusion", FUSIONS, index=FUSIONS.index(DEFAULT_FUSION), key="search-fusion",
        help="rrf: reciprocal ranks; minmax / zscore: a weighted sum of each list's scores, "
        "normalised per query. The default measured best (bench/results/fusion.md).")
steps = st.sidebar.slider("Explanation steps", 2, 64, 16, key="search-explain-steps",
                          help="Integration points of 'Why this match': more are slower and "
                               "closer to exact (see the completeness error it reports).")

index = get_index(indexes[name])
index_key = f"{indexes[name]}@{(indexes[name] / 'manifest.json').stat().st_mtime}"
stats = call_or_stop(index.stats, what="Cannot read the index")
fields = dict(stats.metadata_fields or {})
typed: dict[str, str | list] = {}
if fields:
    with st.sidebar.expander("Filters", expanded=False):
        for field, kind in fields.items():
            key = f"search-filter-{field}"
            choices = index.field_values(field) if kind in ("str", "bool") else None
            if choices is not None:  # a short list of values: pick them
                typed[field] = st.multiselect(field, choices, key=key,
                                              help="Any of the chosen values; none: no filter.")
            else:
                typed[field] = st.text_input(f"{field} ({kind})", key=key,
                                             help="One value, or several separated by commas.")
query = st.text_input("Query", key="search-query", max_chars=2000,
                      placeholder="e.g. rising oil prices · 油价上涨")

if not query.strip():
    st.info(f"Type a query to search {stats.documents:,} documents ({stats.chunks:,} chunks, "
            f"model {stats.model}).")
    st.stop()

where = call_or_stop(build_filter, fields, typed, what="Filter")
if mode != "lexical":
    with st.spinner("Loading the index's encoder…"):
        encoder = call_or_stop(lambda: index.encoder, what="Cannot load the index's encoder")
    if index.query_too_long(query):
        st.warning(f"The query is longer than {encoder.max_length} tokens; the dense search "
                   "uses its beginning only.")
started = time.perf_counter()
with st.spinner("Searching…"):
    hits = call_or_stop(index.search, query, k=k, mode=mode, fusion=fusion, filter=where)
elapsed = time.perf_counter() - started
shown = f"hybrid ({fusion})" if mode == "hybrid" else mode
st.caption(f"{len(hits)} results in {elapsed * 1000:.0f} ms · {shown} · k = {k}"
           + (f" · filter {where}" if where else ""))
if not hits:
    st.warning("No document matches this query" + (" and these filters." if where else "."))
    st.stop()



def why_this_match(hit) -> None:
    """The hit's explanation: word x word heatmap, the chunk's words shaded, the error."""
    try:
        with st.spinner("Explaining (integrated Jacobians on the torch model)…"):
            ex = explain_hit(index_key, query, hit.chunk_id, steps, index, hit)
    except EXPECTED as exc:
        st.error(f"Cannot explain this match: {sentence(exc)}")
        return
    st.caption(f"cosine {ex.score:.4f} · the attributions sum to {ex.word_matrix.sum():.4f}, "
               f"promised {ex.target:.4f} (the rest is the [PAD] reference's own similarity) · "
               f"completeness error {ex.error:+.5f} ({100 * ex.relative_error:.2f} %) · "
               f"{ex.steps} steps")
    st.plotly_chart(attribution_heatmap(ex.word_matrix, ex.word_strings_a, ex.word_strings_b,
                                        "Query word × chunk word: share of the similarity"),
                    key=f"why-figure-{hit.chunk_id}")
    st.html(shaded_html(ex.text_b, [(g.start, g.end) for g in ex.words_b], ex.word_scores_b))


documents = call_or_stop(index.documents, [hit.doc_id for hit in hits],
                         what="Cannot open the documents")
for hit in hits:
    document = documents[hit.doc_id]
    with st.container(border=True):
        st.html(f"<div><b>{hit.rank}. {html.escape(hit.title or hit.doc_id)}</b> "
                f"<span style='opacity:0.7'>· score {hit.score:.4f} · doc "
                f"{html.escape(str(hit.doc_id))} · chunk {html.escape(str(hit.chunk_id))}</span>"
                "</div>")
        st.html(highlighted_html(*excerpt(document.text, hit.start, hit.end)))
        if hit.metadata:
            st.html("<div style='opacity:0.75'>" + " · ".join(
                f"{html.escape(str(key))}: {html.escape(str(value))}"
                for key, value in hit.metadata.items()) + "</div>")
        with st.expander("Whole document (matching chunk marked)"):
            st.html(highlighted_html(document.text, (hit.start, hit.end)))
        with st.expander("Why this match"):
            if st.checkbox("Explain this hit (takes seconds on a CPU)", key=f"why-{hit.chunk_id}"):
                why_this_match(hit)
