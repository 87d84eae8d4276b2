"""Pretraining: BERT's 80/10/10 masking token by token, fill-mask, next-sentence prediction."""

import pandas as pd
import streamlit as st
from appkit.config import AppConfig
from appkit.guard import call_or_stop
from appkit.heads import models_with_heads, stop_without_heads
from appkit.limits import within_limit
from appkit.model_picker import pick_model
from appkit.presets import PRETRAINING_PRESETS
from appkit.resources import get_encoder
from appkit.startup import load_libraries
from charts.pretraining import mask_draw_figure, nsp_figure, topk_figure

VIEWS = ("80/10/10 draw", "Fill in [MASK]", "Next sentence")
NSP_TEXT = """
**What NSP was for.** BERT's second objective: given `[CLS] A [SEP] B [SEP]`, is B the sentence
that follows A (IsNext), or a random sentence from another document (NotNext)? Half of the
pairs are each. The seed article lists its defects: the negatives are too easy (a topic jump —
我爱吃火锅。 / 最近美国大选的民调显示特朗普领先。 — gives them away), it overlaps with what MLM
already teaches `[CLS]`, and RoBERTa found that dropping it matches or slightly improves
downstream scores. The NSP head here is BERTScope's, trained on a frozen encoder or with
`python -m training mlm --nsp`; `training/README.md` measures what it gives.
"""
DRAW_TEXT = """
BERT selects **15 %** of the tokens (never `[CLS]`, `[SEP]`, padding or other special tokens)
and asks the model to predict the original token at each. Of the selected, **80 %** become
`[MASK]`, **10 %** a random token, **10 %** stay as they are — so the model cannot rely on
seeing `[MASK]`, which never appears after pretraining. The loss counts only the selected
positions. The draw below is transformers' own masking code; change the seed to redraw.
"""

st.set_page_config(page_title="Pretraining · BERTScope", layout="wide")
st.title("Pretraining: how BERT learns")
load_libraries()
from encoder import heads_status  # noqa: E402  (see appkit/startup.py)
from training.mlm.views import draw_view, fill_view, nsp_view  # noqa: E402

config = AppConfig.from_env()
preset_name = st.sidebar.selectbox("Example", list(PRETRAINING_PRESETS), key="pre-preset")
preset = PRETRAINING_PRESETS[preset_name]
model_key = pick_model(config, default=preset.model, key=f"pre-model-{preset_name}")
encoder = get_encoder(model_key, inspect_only=True)
others = models_with_heads(config, exclude=model_key)
compare_label = st.sidebar.selectbox("Compare with", ["(none)", *others], key="pre-compare",
                                     help="Another model with MLM heads: a trained run folder.")
compare = (get_encoder(others[compare_label], inspect_only=True) if compare_label in others
           else None)
heads = heads_status(encoder)
view = st.radio("View", VIEWS, horizontal=True, key="pre-view")

if view == VIEWS[0]:
    st.markdown(DRAW_TEXT)
    text = within_limit(st.text_area("Sentence", preset.sentence, key=f"pre-text-{preset_name}"),
                        2000, "The sentence")
    c1, c2, c3 = st.columns(3)
    share = c1.slider("Share selected", 0.05, 0.5, 0.15, 0.05, key="pre-share")
    seed = int(c2.number_input("Seed", 0, 10**6, 0, key="pre-seed"))
    whole = c3.toggle("Whole words", key="pre-whole",
                      help="Select words, not tokens: ## pieces together, Chinese words by jieba.")
    if not text.strip():
        st.info("Type a sentence to draw its masks.")
        st.stop()
    drawn = call_or_stop(draw_view, encoder, text, share=share, seed=seed, whole_word=whole)
    draw = drawn.draw
    st.plotly_chart(mask_draw_figure(draw.tokens, draw.shown, draw.status), key="draw")
    st.caption(drawn.summary)
    if not draw.selected:
        st.info("No token was selected this time: raise the share or change the seed.")
        st.stop()
    if drawn.score is None:
        stop_without_heads(encoder, drawn.heads)
    m1, m2 = st.columns(2)
    m1.metric("MLM loss on this draw", f"{drawn.score.loss:.2f}",
              help="Mean cross-entropy of the original token at the selected positions.")
    m2.metric("top-1 right", drawn.right)
    st.dataframe(pd.DataFrame(drawn.rows()), width="stretch", hide_index=True)

elif view == VIEWS[1]:
    text = st.text_area("Text with [MASK] (whatever the model's own mask token is)",
                        preset.masked, key=f"pre-mask-{preset_name}")
    text = within_limit(text, 2000, "The text")
    k = st.slider("Top k", 1, 10, 5, key="pre-k")
    if "[MASK]" not in text:
        st.info("Write [MASK] where a word should be predicted.")
        st.stop()
    if not heads.ready:
        stop_without_heads(encoder, heads)
    fills = call_or_stop(fill_view, encoder, text, top_k=k, compare=compare)
    # how often these heads are right, as their training measured it, beside each prediction
    for i, fill in enumerate(fills.fills):
        chart, measured = st.columns([3, 2])
        chart.plotly_chart(topk_figure(fill.candidates, f"[MASK] #{i + 1}",
                                       compare=fills.other_candidates(i), names=fills.names),
                           key=f"fill-{i}")
        for name, sentence in fills.quality:
            measured.caption(f"**{name}** · {sentence}")

else:
    st.markdown(NSP_TEXT)
    a = within_limit(st.text_input("Sentence A", preset.nsp_a, key=f"pre-a-{preset_name}"), 1000,
                     "Sentence A")
    b = within_limit(st.text_input("Sentence B", preset.nsp_b, key=f"pre-b-{preset_name}"), 1000,
                     "Sentence B")
    if not a.strip() or not b.strip():
        st.info("Type two sentences.")
        st.stop()
    if not heads.ready:
        stop_without_heads(encoder, heads)
    nsp = call_or_stop(nsp_view, encoder, a, b, compare=compare)
    st.plotly_chart(nsp_figure(nsp.is_next), key="nsp")
    if nsp.other_summary:
        st.caption(nsp.other_summary)
