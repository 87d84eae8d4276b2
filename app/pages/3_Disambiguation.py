"""Disambiguation: one word in several contexts — how its vectors split by sense, layer by layer."""

import html

import streamlit as st
from appkit.config import AppConfig
from appkit.discovery import default_position, find_indexes, label
from appkit.guard import call_or_stop
from appkit.inspect_cache import word_trajectory
from appkit.limits import within_limit
from appkit.model_picker import model_label, pick_model, pick_second_model
from appkit.presets import DISAMBIGUATION_PRESETS
from appkit.render import highlighted_html
from appkit.resources import get_encoder, get_index
from appkit.startup import load_libraries
from charts.trajectory import cut, pca_figure, similarity_by_layer

st.set_page_config(page_title="Disambiguation · BERTScope", layout="wide")
st.title("One word, several senses")
load_libraries()
from encoder import pca_2d  # noqa: E402  (after the title: see appkit/startup.py)
from indexer.usages import word_usages  # noqa: E402

st.caption("The seed's example: 苹果 in 苹果好吃 vs 苹果发布会 starts as one vector and splits "
           "by sense as the layers mix in context.")
config = AppConfig.from_env()

preset_name = st.sidebar.selectbox("Example", list(DISAMBIGUATION_PRESETS), key="dis-preset")
preset = DISAMBIGUATION_PRESETS[preset_name]
model_key = pick_model(config, default=preset.model, key=f"dis-model-{preset_name}")
other_key = pick_second_model(config, key="dis-compare", first=model_key)
word = within_limit(st.text_input("Word", preset.word, key=f"dis-word-{preset_name}"), 100,
                    "The word")
raw = st.text_area(
    "Contexts, one per line (two or more; edit or add lines)", "\n".join(preset.contexts),
    key=f"dis-contexts-{preset_name}", height=150)
raw = within_limit(raw, 8000, "The contexts")
contexts = tuple(line.strip() for line in raw.splitlines() if line.strip())

if not word.strip():
    st.info("Type the word to follow through the layers.")
    st.stop()
if len(contexts) < 2:
    st.info("Give at least two contexts, one per line, to compare the word across.")
    st.stop()

encoder = get_encoder(model_key, inspect_only=True)
traj = call_or_stop(word_trajectory, model_key, contexts, word.strip())
lengths = encoder.token_lengths(list(contexts))
over = [i + 1 for i, n in enumerate(lengths) if n > encoder.max_length]
if over:
    st.warning(f"Truncated at {encoder.max_length} tokens: context "
               f"{', '.join(f'#{i}' for i in over)}. The word is followed only where it lies "
               "before the cut.")

figure = similarity_by_layer(traj.cosine, traj.baseline, traj.contexts, traj.word,
                             model=model_label(model_key) if other_key else None)
if other_key:
    get_encoder(other_key, inspect_only=True)
    other = call_or_stop(word_trajectory, other_key, contexts, word.strip(),
                         what=f"Second model {model_label(other_key)}")
    similarity_by_layer(other.cosine, other.baseline, other.contexts, other.word,
                        model=model_label(other_key), fig=figure, second=True)
st.plotly_chart(figure, key="similarity")
st.caption("Only the distance above the dashed baseline means anything: contextual vectors "
           "share a common direction, so even unrelated tokens score well above zero.")

layer = st.slider("Layer for the 2-D map", 0, traj.layers - 1, traj.layers - 1, key="dis-layer")
fit = st.radio("Fit the projection on", ["all layers", "this layer"], horizontal=True,
               key="dis-fit", help="All layers: one map for every depth (paths comparable). "
               "This layer: the directions in which the contexts differ at this depth.")
points = pca_2d(traj.vectors, None if fit == "all layers" else layer)
fitted = "all layers" if fit == "all layers" else f"layer {layer}"
st.plotly_chart(pca_figure(points, layer, traj.contexts, traj.word, fitted), key="pca")

st.subheader("Where else is the word used like this?")
indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
if not indexes:
    st.info(f"No index under {config.index_root}: build one to look up other uses of the word.")
    st.stop()
left, right = st.columns(2)
index_name = left.selectbox("Index", list(indexes), key="dis-index",
                             index=default_position(list(indexes), config.default_index))
anchor = right.selectbox("Context to compare with", range(len(traj.contexts)), key="dis-anchor",
                         format_func=lambda i: f"#{i + 1} {cut(traj.contexts[i], 60)}")
index = get_index(indexes[index_name])
found = call_or_stop(word_usages, index, traj.word, traj.contexts[anchor], layer=layer,
                     trajectory=lambda texts, w: word_trajectory(model_key, tuple(texts), w))
if found.found:
    st.caption(f"The {found.candidates} chunks of {index_name} that contain “{traj.word}”, "
               f"ranked by the cosine of its layer-{layer} vector with context #{anchor + 1}'s "
               f"(the layer slider above); baseline at this layer {traj.baseline[layer]:.2f}.")
    for usage in found.found:
        hit = usage.hit
        st.html(f"<div><b>{usage.similarity:.3f}</b> · {html.escape(hit.title or hit.doc_id)}"
                "</div>" + highlighted_html(usage.text, usage.span))
else:
    st.info(f"No chunk of {index_name} contains “{traj.word}”, and the index stores sentence "
            f"vectors, not token vectors: these are the nearest chunks to context "
            f"#{anchor + 1} as a whole.")
    for hit in found.nearest:
        st.html(f"<div><b>{hit.score:.3f}</b> · {html.escape(hit.title or hit.doc_id)}</div>"
                + highlighted_html(hit.text))
