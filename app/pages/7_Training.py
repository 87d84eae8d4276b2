"""Training: adapt an index's encoder to its own documents in one click, or fine-tune a model
(a recipe or a data file, a base model, settings) as a job; every run on this machine listed
with its curves, results, re-index and compare actions."""

import streamlit as st
from appkit.config import AppConfig
from appkit.startup import load_libraries
from appkit.training_adapt import adapt_panel
from appkit.training_runs import runs_list
from appkit.training_setup import plan_and_start

st.set_page_config(page_title="Training · BERTScope", layout="wide")
st.title("Training: fine-tune, re-index, compare")
load_libraries()
from common.jobs import JobRunner  # noqa: E402  (after the title: see appkit/startup.py)

config = AppConfig.from_env()
runner = JobRunner()
runs_list(runner, config)
adapt_panel(runner, config)
st.divider()
st.subheader("Fine-tune on labelled data")
plan_and_start(runner, config)
