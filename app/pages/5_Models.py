"""Models: the bundled registry and trained model folders, with metrics and dev-score curves, and
the backend each model encodes with and its measured fidelity (for one not loaded yet: what
`auto` would pick from the exports on disk)."""

import pandas as pd
import streamlit as st
from appkit.backends import CAPTION, fidelity_text
from appkit.config import AppConfig
from appkit.discovery import find_trained_models, label
from appkit.heads import heads_cell
from appkit.links import page_link
from appkit.resources import backend_cells, get_encoder
from appkit.startup import load_libraries
from appkit.tables import field_table
from appkit.training_runs import unfinished_runs
from charts.training import before_after, training_curve

st.set_page_config(page_title="Models · BERTScope", layout="wide")
st.title("Models")
load_libraries()
from common.jobs import JobRunner  # noqa: E402
from encoder import BUNDLED, FIDELITY_GATE  # noqa: E402  (after the title: see appkit/startup.py)
from encoder.heads_quality import heads_summary  # noqa: E402
from training.report import (  # noqa: E402
    METRICS_FILE,
    read_metrics,
    result_summary,
    run_curves,
)

config = AppConfig.from_env()

st.subheader("Bundled (offline, from pip packages)")
st.table(pd.DataFrame([  # a table wraps its cells: no column is cut off on the right
    {"name": m.name, "languages": ", ".join(m.languages), "package": m.package,
     **backend_cells(m.name), "MLM head": heads_cell(m.name),
     "description": m.description}
    for m in BUNDLED.values()
]), hide_index=True)
st.caption("Neither bundled model ships with a masked-language-model head: they are sentence "
           "encoders (Sentence-BERT style), not raw MLM-pretrained BERTs. An MLM head listed as "
           "BERTScope's was trained here on the frozen encoder (the Pretraining page, or "
           "`python -m training mlm-heads NAME`); its scores are what that training measured on "
           "held-out text. " + CAPTION.format(
               gate=FIDELITY_GATE) + " Fidelity: the lowest cosine of the backend's vectors to "
           "torch's, measured when its export was made. For a model this server has not loaded: "
           "what `auto` would pick from the exports on disk.")

trained = find_trained_models(config.runs_root)
st.subheader(f"Trained (under {config.runs_root})")
if not trained:
    st.info(f"No trained model folders under {config.runs_root}. Adapt one to an index, or "
            "fine-tune one, on the Training page (or `python -m training adapt …` / `fit …` in "
            "a terminal); BERTSCOPE_RUNS_ROOT sets where they go.")
    page_link("pages/7_Training.py", "Open the Training page", ":material/fitness_center:")
unfinished_runs(JobRunner())
runs = {label(p, config.runs_root): (p, read_metrics(p)) for p in trained}
if runs:
    st.table(pd.DataFrame([
        {"folder": name, "base model": (m or {}).get("model", "?"),
         "pooling": (m or {}).get("pooling", "?"),
         "result": result_summary(m),  # an adapted model's check, a fine-tune's dev scores
         "finished": (m or {}).get("finished_at", "not finished"),
         "MLM head": heads_summary(folder),
         **backend_cells(str(folder))}
        for name, (folder, m) in runs.items()
    ]), hide_index=True)

st.divider()
choices = [*BUNDLED, *runs]
choice = st.selectbox("Details for", choices, key="models-choice")
if choice in runs:
    folder, metrics = runs[choice]
    if metrics is None:
        st.info(f"This folder has no {METRICS_FILE} (training unfinished or not a BERTScope "
                "run).")
    else:
        if metrics.get("dev_before") and metrics.get("dev_after"):
            st.plotly_chart(before_after(metrics["dev_before"], metrics["dev_after"],
                                         "Dev STS: base vs fine-tuned"), key="before-after")
        loss, dev = run_curves(folder)
        before = (metrics.get("dev_before") or {}).get("spearman")
        if loss or dev:
            st.plotly_chart(training_curve(loss, dev, before), key="curve")
        with st.expander(f"Everything the run recorded ({METRICS_FILE})"):
            st.dataframe(field_table(metrics), width="stretch", hide_index=True)
    key = str(folder)
else:
    key = choice

if st.toggle("Load the model and show its configuration", key="models-load",
             help="Loading e5-multilingual converts it once (about a minute)."):
    enc = get_encoder(key)
    cols = st.columns(2)
    cols[0].metric("Backend", enc.backend, help="What encodes this model's texts.")
    cols[1].metric("Fidelity", fidelity_text(enc.backend, enc.fidelity),
                   help=f"Lowest cosine to torch fp32 on calibration texts, measured when the "
                   f"export was made; the gate is {FIDELITY_GATE}.")
    if enc.backend_note:
        st.info(enc.backend_note)
    st.dataframe(field_table(enc.info.to_dict()), width="stretch", hide_index=True)
