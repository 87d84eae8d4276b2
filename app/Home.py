"""BERTScope's entry page: what each page shows, what is installed, and a model warmed up."""

import streamlit as st
from appkit.config import AppConfig
from appkit.discovery import find_indexes, find_trained_models, label
from appkit.heads import heads_hint
from appkit.resources import get_encoder
from appkit.startup import load_libraries

st.set_page_config(page_title="BERTScope", page_icon=":material/search:", layout="wide")
st.title("BERTScope — semantic search you can look inside")
st.markdown(
    "A BERT encoder, fine-tuned as a Siamese Sentence-BERT, indexes a corpus; this app runs "
    "queries against it and shows what the encoder does, layer by layer."
)
config = AppConfig.from_env()

left, right = st.columns(2)
with left:
    st.page_link("pages/1_Search.py", label="Search", icon=":material/search:")
    st.caption("Query an index: dense, lexical (BM25) or hybrid, with metadata filters.")
    st.page_link("pages/2_Attention.py", label="Attention", icon=":material/grid_on:")
    st.caption("Every layer and head, a head view, [CLS], BERT's mask vs GPT's causal mask.")
    st.page_link("pages/3_Disambiguation.py", label="Disambiguation", icon=":material/call_split:")
    st.caption("苹果好吃 vs 苹果发布会: one word's vectors layer by layer, and how well its "
               "senses separate there, measured.")
    st.page_link("pages/6_Pretraining.py", label="Pretraining", icon=":material/quiz:")
    st.caption("BERT's 80/10/10 masking token by token, fill-mask, next-sentence prediction.")
with right:
    st.page_link("pages/4_Index.py", label="Index", icon=":material/database:")
    st.caption("Index statistics; build a new index from a file.")
    st.page_link("pages/7_Training.py", label="Training", icon=":material/fitness_center:")
    st.caption("Fine-tune a model from the browser as a job, watch its curves, re-index, compare.")
    st.page_link("pages/5_Models.py", label="Models", icon=":material/model_training:")
    st.caption("Bundled and trained encoders, their encoding backends, training metrics and "
               "curves.")

indexes = find_indexes(config.index_root)
trained = find_trained_models(config.runs_root)
st.subheader("On this machine")
st.markdown(
    f"- **{len(indexes)}** index(es) under `{config.index_root}`"
    + (": " + ", ".join(f"`{label(p, config.index_root)}`" for p in indexes) if indexes else "")
    + f"\n- **{len(trained)}** trained model folder(s) under `{config.runs_root}`"
)

# Load the libraries and the default encoder now, behind spinners, so the other pages answer
# at once.
load_libraries()
encoder = get_encoder("minilm")
st.success(f"Encoder ready: {encoder.name} ({encoder.info.layers} layers × "
           f"{encoder.info.heads} heads, {encoder.dim}-d), encoding on {encoder.backend}.")
if hint := heads_hint(encoder.name):
    st.info(hint)
