"""Disambiguation: one word in several contexts — how its vectors split by sense, layer by layer;
then the word's uses in an index, as the reader may see them (`appkit.reader`)."""

import html

import streamlit as st
from appkit.config import AppConfig
from appkit.default_zh import usages_index
from appkit.discovery import default_position, find_indexes, label
from appkit.guard import call_or_stop
from appkit.inspect_cache import word_trajectory
from appkit.limits import within_limit
from appkit.model_picker import model_label, pick_model, pick_second_model
from appkit.presets import DISAMBIGUATION_PRESETS
from appkit.reader import page_reader
from appkit.render import highlighted_html
from appkit.resources import get_encoder, get_index
from appkit.startup import load_libraries
from charts.senses import sense_cosine_figure, separation_figure
from charts.trajectory import cut, pca_figure, similarity_by_layer

st.set_page_config(page_title="Disambiguation · BERTScope", layout="wide")
st.title("One word, several senses")
load_libraries()
from encoder import compare_senses, pca_2d, split_labelled  # noqa: E402  (see appkit/startup)
from indexer.usages import word_usages  # noqa: E402

st.caption("The seed's example: 苹果 in 苹果好吃 vs 苹果发布会 starts as one vector; does it split "
           "by sense as the layers mix in context? Label each context `sense | text` and the page "
           "measures it, layer by layer, for the model chosen.")
config = AppConfig.from_env()

preset_name = st.sidebar.selectbox("Example", list(DISAMBIGUATION_PRESETS), key="dis-preset")
preset = DISAMBIGUATION_PRESETS[preset_name]
model_key = pick_model(config, default=preset.model, key=f"dis-model-{preset_name}")
other_key = pick_second_model(config, key="dis-compare", first=model_key)
word = within_limit(st.text_input("Word", preset.word, key=f"dis-word-{preset_name}"), 100,
                    "The word")
raw = st.text_area(
    "Contexts, one per line, each as `sense | text` to measure how the senses separate (two or "
    "more; edit or add lines)", "\n".join(preset.contexts),
    key=f"dis-contexts-{preset_name}", height=200)
raw = within_limit(raw, 8000, "The contexts")
lines = [line.strip() for line in raw.splitlines() if line.strip()]
contexts, senses = call_or_stop(split_labelled, lines)
contexts = tuple(contexts)

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

models = {model_key: traj}
if other_key:
    get_encoder(other_key, inspect_only=True)
    models[other_key] = call_or_stop(word_trajectory, other_key, contexts, word.strip(),
                                     what=f"Second model {model_label(other_key)}")
compared = call_or_stop(compare_senses, models, senses)
named = len(models) > 1
if senses is None:
    figure = None
    for i, (key, t) in enumerate(compared.trajectories.items()):
        figure = similarity_by_layer(t.cosine, t.baseline, t.contexts, t.word, fig=figure,
                                     model=model_label(key) if named else None, second=i > 0)
    st.plotly_chart(figure, key="similarity")
    st.info("Write each context as `sense | text` (e.g. `fruit | I ate an apple.`) to measure how "
            "well each layer separates the senses.")
else:
    cos_fig = sep_fig = None
    for i, (key, m) in enumerate(compared.measured.items()):
        who = model_label(key) if named else None
        cos_fig = sense_cosine_figure(m.within, m.between, models[key].baseline, traj.word,
                                      model=who, fig=cos_fig, second=i > 0)
        sep_fig = separation_figure(m.accuracy, m.silhouette, m.chance, traj.word,
                                    best_layer=m.best_layer, model=who, fig=sep_fig,
                                    second=i > 0)
    st.plotly_chart(sep_fig, key="separation")
    for key, m in compared.measured.items():
        st.caption(m.summary(model_label(key)), help="Each layer's mean over these contexts is "
                   "removed first (the direction all contextual vectors share), so chance is "
                   "what shuffled labels give, not zero. The verdict: label shuffles as accurate "
                   "at their own best layer in under 5 % of tries.")
        if note := m.misplaced_note(model_label(key)):
            st.caption(note)
    st.plotly_chart(cos_fig, key="similarity")
st.caption("Raw cosines: only the distance above the dashed baseline means anything, since "
           "contextual vectors share a common direction and even unrelated tokens score well "
           "above zero.")

best = compared.map_layer
layer = st.slider("Layer for the 2-D map", 0, traj.layers - 1, best, key=f"dis-layer-{best}",
                  help="Opens on the layer that separates the senses best (the verdict's).")
fits = ["this layer", "all layers"] if senses is not None else ["all layers", "this layer"]
fit = st.radio("Fit the projection on", fits, horizontal=True, key=f"dis-fit-{fits[0]}",
               help="This layer: the directions in which the contexts differ at this depth, "
               "its common direction removed, as the verdict measures. All layers: one map for "
               "every depth (paths comparable; the main axis then follows depth).")
points = pca_2d(traj.vectors, None if fit == "all layers" else layer)
fitted = "all layers" if fit == "all layers" else f"layer {layer}"
st.plotly_chart(pca_figure(points, layer, traj.contexts, traj.word, fitted, senses), key="pca")
if senses is None:
    with st.expander(f"The {len(traj.contexts)} contexts by number"):
        st.markdown("\n".join(f"{i + 1}. {html.escape(c)}" for i, c in enumerate(traj.contexts)))

st.subheader("Where else is the word used like this?")
indexes = {label(p, config.index_root): p for p in find_indexes(config.index_root)}
if not indexes:
    st.info(f"No index under {config.index_root}: build one to look up other uses of the word.")
    st.stop()
left, right = st.columns(2)
first = usages_index(list(indexes), traj.word, config)  # 苹果: the Chinese reviews, if built
index_name = left.selectbox("Index", list(indexes), key=f"dis-index-{first}",
                            index=default_position(list(indexes), first))
anchor = right.selectbox("Context to compare with", range(len(traj.contexts)), key="dis-anchor",
                         format_func=lambda i: f"#{i + 1} {cut(traj.contexts[i], 60)}")
reader = page_reader(config)  # the uses below are in documents this reader may see
index = get_index(indexes[index_name])
found = call_or_stop(word_usages, index, traj.word, traj.contexts[anchor], layer=layer,
                     trajectory=lambda texts, w: word_trajectory(model_key, tuple(texts), w),
                     readers=reader.readers)
if found.found:
    st.caption(found.caption(index_name, f"context #{anchor + 1}") + f" Layer: the slider "
               f"above; baseline at this layer {traj.baseline[layer]:.2f}.")
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
