"""Disambiguation: one word in several contexts — how its vectors split by sense, layer by layer."""

import appkit  # noqa: F401  (puts the repository root on sys.path)
import streamlit as st
from appkit.config import AppConfig
from appkit.guard import call_or_stop
from appkit.inspect_cache import word_trajectory
from appkit.model_picker import pick_model
from appkit.presets import DISAMBIGUATION_PRESETS
from appkit.resources import get_encoder
from charts.trajectory import pca_2d, pca_figure, similarity_by_layer

st.set_page_config(page_title="Disambiguation · BERTScope", layout="wide")
st.title("One word, several senses")
st.caption("The seed's example: 苹果 in 苹果好吃 vs 苹果发布会 starts as one vector and splits "
           "by sense as the layers mix in context.")
config = AppConfig.from_env()

preset_name = st.sidebar.selectbox("Example", list(DISAMBIGUATION_PRESETS), key="dis-preset")
preset = DISAMBIGUATION_PRESETS[preset_name]
model_key = pick_model(config, default=preset.model, key=f"dis-model-{preset_name}")
word = st.text_input("Word", preset.word, key=f"dis-word-{preset_name}", max_chars=100)
raw = st.text_area(
    "Contexts, one per line (two or more; edit or add lines)", "\n".join(preset.contexts),
    key=f"dis-contexts-{preset_name}", height=150, max_chars=8000)
contexts = tuple(line.strip() for line in raw.splitlines() if line.strip())

if not word.strip():
    st.info("Type the word to follow through the layers.")
    st.stop()
if len(contexts) < 2:
    st.info("Give at least two contexts, one per line, to compare the word across.")
    st.stop()

encoder = get_encoder(model_key)
traj = call_or_stop(word_trajectory, model_key, contexts, word.strip())
lengths = encoder.token_lengths(list(contexts))
over = [i + 1 for i, n in enumerate(lengths) if n > encoder.max_length]
if over:
    st.warning(f"Contexts {', '.join(map(str, over))} are longer than {encoder.max_length} tokens "
               "and were truncated.")

st.plotly_chart(similarity_by_layer(traj.cosine, traj.baseline, traj.contexts, traj.word),
                key="similarity")
st.caption("Only the distance above the dashed baseline means anything: contextual vectors "
           "share a common direction, so even unrelated tokens score well above zero.")

layer = st.slider("Layer for the 2-D map", 0, traj.layers - 1, traj.layers - 1, key="dis-layer")
st.plotly_chart(pca_figure(pca_2d(traj.vectors), layer, traj.contexts, traj.word), key="pca")
