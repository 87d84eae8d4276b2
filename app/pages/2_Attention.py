"""Attention: every layer and head, one enlarged, a head view, [CLS]'s focus, BERT vs GPT masks."""

import pandas as pd
import streamlit as st
from appkit.config import AppConfig
from appkit.guard import call_or_stop
from appkit.inspect_cache import inspect_text
from appkit.limits import within_limit
from appkit.model_picker import model_label, pick_model, pick_second_model
from appkit.presets import ATTENTION_PRESETS
from appkit.resources import get_encoder
from appkit.startup import load_libraries
from charts.attention import attention_grid, attention_heatmap, cls_by_layer, head_view
from charts.masks import mask_figure, right_context_figure, right_context_share

GRID_MAX_TOKENS = 96  # the layer x head grid becomes unreadable (and slow) beyond this
VIEWS = ("Layer × head grid", "One head", "Head view", "[CLS] by layer", "BERT vs GPT mask")

st.set_page_config(page_title="Attention · BERTScope", layout="wide")
st.title("Attention, layer by layer")
load_libraries()
from encoder import merge_subwords  # noqa: E402  (after the title: see appkit/startup.py)
from encoder.reading import read_tokens, unreadable_note  # noqa: E402

TEXT_MAX_CHARS = 4000  # far past any model's window: the figures show what it reads

config = AppConfig.from_env()

preset_name = st.sidebar.selectbox("Example", list(ATTENTION_PRESETS), key="attn-preset")
preset = ATTENTION_PRESETS[preset_name]
model_key = pick_model(config, default=preset.model, key=f"attn-model-{preset_name}")
other_key = pick_second_model(config, key="attn-compare", first=model_key)
merge = st.sidebar.toggle(
    "Merge subword tokens into words", key="attn-merge",
    help="Rows average the word's tokens, columns sum them. Chinese words come from jieba; "
         "where one token spans two of them (了一个), they are shown as one word.")
text = within_limit(st.text_area("Sentence A", preset.text, key=f"attn-a-{preset_name}"),
                    TEXT_MAX_CHARS, "Sentence A")
pair = st.text_area(
    "Sentence B (optional — makes a pair: [CLS] A [SEP] B [SEP])", preset.text_pair or "",
    key=f"attn-b-{preset_name}")
pair = within_limit(pair, TEXT_MAX_CHARS, "Sentence B")

if not text.strip():
    st.info("Type a sentence (or pick an example in the sidebar) to see its attention.")
    st.stop()

encoder = get_encoder(model_key, inspect_only=True)
ins = call_or_stop(inspect_text, model_key, text, pair if pair.strip() else None)
if ins.truncated:
    st.warning(f"The input is longer than {encoder.max_length} tokens and was truncated; "
               f"the figures show its first {len(ins.tokens)} tokens.")

reading = read_tokens(ins.tokens, ins.special_mask, encoder.tokenizer.unk_token)
note = unreadable_note(reading, encoder.name, encoder.tokenizer.unk_token,
                       fix="Pick e5-multilingual as the model in the sidebar: it reads Chinese "
                           "and about 100 other languages.")
if reading.reads_nothing:
    st.info(note)
    st.stop()
if note:
    st.warning(note)

attn = merge_subwords(ins.attentions, ins.word_groups) if merge else ins.attentions
labels = ins.words if merge else ins.tokens
layers, heads = attn.shape[:2]
if reading.word_starts and not merge:
    st.caption(f"“▁” is SentencePiece's word-start mark: {encoder.name} reads it as a token of "
               f"its own here ({reading.word_starts}×), before the word it opens. Merging "
               "subwords folds it into that word.")

with st.expander(f"{len(ins.tokens)} tokens, {len(ins.word_groups)} words — segments and ids"):
    st.dataframe(pd.DataFrame({
        "token": ins.tokens, "id": ins.token_ids, "segment": ins.segment_ids,
        "special": ins.special_mask,
    }), width="stretch")

layer = st.sidebar.slider("Layer", 1, layers, layers, key="attn-layer")
head_choice = st.sidebar.selectbox(
    "Head", ["mean of all heads", *[f"head {h + 1}" for h in range(heads)]], key="attn-head")
head = None if head_choice.startswith("mean") else int(head_choice.split()[1]) - 1
matrix = attn[layer - 1].mean(axis=0) if head is None else attn[layer - 1, head]
where = f"layer {layer}, {head_choice}"

# One view at a time: a plotly figure drawn inside a hidden tab gets squashed on re-runs.
view = st.radio("View", VIEWS, horizontal=True, key="attn-view")
if view == "Layer × head grid":
    if len(labels) > GRID_MAX_TOKENS:
        st.info(f"The grid is drawn for up to {GRID_MAX_TOKENS} tokens; this input has "
                f"{len(labels)}. The other views show it in full.")
    elif other_key is None:
        st.plotly_chart(attention_grid(attn), key="grid")
    else:  # two models side by side, each with its own tokens and depth
        get_encoder(other_key, inspect_only=True)
        other = call_or_stop(inspect_text, other_key, text, pair if pair.strip() else None,
                             what=f"Second model {model_label(other_key)}")
        other_attn = merge_subwords(other.attentions, other.word_groups) if merge \
            else other.attentions
        for column, key, grid in zip(st.columns(2), (model_key, other_key), (attn, other_attn),
                                     strict=True):
            column.plotly_chart(attention_grid(grid, f"{model_label(key)}: every layer and head"),
                                key=f"grid-{key}")
elif view == "One head":
    st.plotly_chart(attention_heatmap(matrix, labels, f"Attention, {where}"), key="single")
elif view == "Head view":
    threshold = st.slider("Hide weights below", 0.0, 0.5, 0.05, 0.01, key="attn-threshold")
    st.plotly_chart(head_view(matrix, labels, f"Head view, {where}", min_weight=threshold),
                    key="headview")
elif view == "[CLS] by layer":
    st.plotly_chart(cls_by_layer(attn, labels), key="cls")
else:
    st.markdown("BERT's encoder lets every token see every other token; GPT's decoder hides "
                "the tokens to the right. The bars show how much this encoder actually looks "
                "right — attention a causal mask would forbid.")
    st.plotly_chart(mask_figure(labels), key="masks")
    st.plotly_chart(right_context_figure(right_context_share(attn), encoder.name), key="right")
