"""Search: a query against an index (dense, lexical or hybrid), hits with their text as text,
each hit of a user's file where it stands (its page drawn with the passage marked, or its
section with the passage marked in place), and for each hit "Why this match": its words'
shares of the cosine (integrated Jacobians).
"Compare with" runs the query on a second index beside the first, rank by rank, each result
marked with its rank movement (new, up, down, same; gone below).
Every read passes the reader's `readers` (`appkit.reader`: a keys file, a principal or a key):
a document hidden from them is no hit, no filter value and no count."""

from itertools import zip_longest

import streamlit as st
from appkit.config import AppConfig
from appkit.default_zh import offer_a_reader
from appkit.discovery import default_position, find_indexes, index_stamp, label
from appkit.filters import build_filter, describe_filter
from appkit.guard import call_or_stop
from appkit.hits import gone_html, hit_card, movement_badge, why_this_match
from appkit.limits import within_limit
from appkit.model_picker import NONE
from appkit.pages import where_it_stands
from appkit.reader import page_reader
from appkit.resources import get_index
from appkit.startup import load_libraries
from appkit.sticky import sticky_selectbox

st.set_page_config(page_title="Search · BERTScope", layout="wide")
st.title("Search")
load_libraries()
from encoder.reading import read_text, unreadable_note  # noqa: E402
from indexer import compare, search_run  # noqa: E402  (after the title: see appkit/startup.py)
from indexer.fusion import DEFAULT_FUSION, FUSIONS, score_scale  # noqa: E402

QUERY_MAX_CHARS = 2000
config = AppConfig.from_env()
reader = page_reader(config)  # who reads: every read below passes reader.readers
readers = reader.readers

indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
if not indexes:
    st.info(f"No index found under {config.index_root}. Run `make default-index`, or build one "
            "on the Index page.")
    st.stop()
name = st.sidebar.selectbox("Index", list(indexes), key="search-index",
                            index=default_position(list(indexes), config.default_index))
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
others = [n for n in indexes if n != name]
other = sticky_selectbox(
    "Compare with", [NONE, *others], key="search-compare",
    help="Another index (e.g. the same documents rebuilt with a fine-tuned model: `python -m "
         "indexer rebuild`): the query runs on both, side by side, and each of its results is "
         "marked new, up, down or same against this index's; what drops out is listed as gone.")
other = None if other == NONE else other
steps = st.sidebar.slider("Explanation steps", 2, 64, 16, key="search-explain-steps",
                          help="Integration points of 'Why this match': more are slower and "
                               "closer to exact (see the completeness error it reports).")

index = get_index(indexes[name])
index_key = f"{indexes[name]}@{index_stamp(indexes[name])}"
stats = call_or_stop(index.stats, readers=readers, what="Cannot read the index")
fields = dict(stats.metadata_fields or {})
typed: dict[str, str | list] = {}
if fields:
    with st.sidebar.expander("Filters", expanded=False):
        for field, kind in fields.items():
            key = f"search-filter-{field}"
            choices = (index.field_values(field, readers=readers)
                       if kind in ("str", "bool") else None)
            if choices is not None:  # a short list of values: pick them
                typed[field] = st.multiselect(field, choices, key=key,
                                              help="Any of the chosen values; none: no filter.")
            else:
                typed[field] = st.text_input(f"{field} ({kind})", key=key,
                                             help="One value, or several separated by commas.")
# No max_chars on the widget: the browser silently drops a paste longer than it. The page cuts
# the query itself and says so.
query = st.text_input("Query", key="search-query",
                      placeholder="e.g. rising oil prices · 油价上涨")
query = within_limit(query, QUERY_MAX_CHARS, "The query",
                     "a query is a question or a passage, not a document")

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
    unreadable = unreadable_note(read_text(encoder.tokenizer, query), encoder.name,
                                 encoder.tokenizer.unk_token, "this query")
    if unreadable:
        st.warning(unreadable)
        offer_a_reader(config, query, name, index)
options = {"k": k, "mode": mode, "fusion": fusion, "filter": where, "readers": readers}
if other is None:
    with st.spinner("Searching…"):
        run = call_or_stop(search_run, index, query, **options)
    comparison = None
else:  # the same query on the other index too, its results marked against this one's
    other_index = get_index(indexes[other])
    other_key = f"{indexes[other]}@{index_stamp(indexes[other])}"
    with st.spinner(f"Searching {name} and {other}…"):
        comparison = call_or_stop(compare, index, other_index, query, **options,
                                  what=f"Cannot compare {name} with {other}")
    run = comparison.first
hits = run.hits
shown = f"hybrid ({fusion})" if mode == "hybrid" else mode
st.caption(f"{len(hits)} results in {run.seconds * 1000:.0f} ms · {shown} · k = {k}"
           + (f" · only where {describe_filter(where)}" if where else ""))
st.caption(score_scale(mode, fusion))
if not hits:
    st.warning("No document matches this query" + (" and these filters." if where else "."))
    st.stop()

why = why_this_match(index, index_key, query, steps, readers)


def where(hit, document, key: str) -> None:
    where_it_stands(index, index_key, hit, document, key, readers)


if comparison is None:
    for hit in hits:
        hit_card(hit, run.documents[hit.doc_id], why=why, where=where)
    st.stop()

if comparison.difference:
    st.warning(comparison.difference)
theirs_run, moves = comparison.second, comparison.moves
st.caption(f"{other} against {name}: "
           + " · ".join(f"{n} {kind}" for kind, n in comparison.counts.items())
           + f" · {name} {run.seconds * 1000:.0f} ms, {other} {theirs_run.seconds * 1000:.0f} ms")
# One row per rank, so rank i of each list starts at the same height whatever the cards hold.
left, right = st.columns(2)
left.subheader(f"{name} · {comparison.first_stats.model}")
right.subheader(f"{other} · {comparison.second_stats.model}")
other_why = why_this_match(other_index, other_key, query, steps, readers)
for mine, theirs, move in zip_longest(hits, theirs_run.hits, moves[:len(theirs_run.hits)]):
    left, right = st.columns(2)  # moves: the other's hits in order, then the gone ones
    if mine is not None:
        with left:
            hit_card(mine, run.documents[mine.doc_id], why=why, key="a-")
    if theirs is not None:
        with right:
            hit_card(theirs, theirs_run.documents[theirs.doc_id], badge=movement_badge(move),
                     why=other_why, key="b-")
if comparison.gone:
    st.columns(2)[1].html(gone_html(comparison.gone, comparison.titles, k))
