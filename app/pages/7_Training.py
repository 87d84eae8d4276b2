"""Training: fine-tune a model from the browser as a job (a recipe or a data file, a base model,
settings), watch its loss and dev curves, steps and time left, then re-index with it and compare."""

import appkit  # noqa: F401  (puts the repository root on sys.path)
import streamlit as st
from appkit.config import AppConfig
from appkit.startup import load_libraries
from appkit.training_run import latest_fit, show_fit
from appkit.training_setup import plan_and_start

st.set_page_config(page_title="Training · BERTScope", layout="wide")
st.title("Training: fine-tune, re-index, compare")
load_libraries()
from common.jobs import JobRunner  # noqa: E402  (after the title: see appkit/startup.py)

config = AppConfig.from_env()
runner = JobRunner()
job = latest_fit(runner)
if job is not None:
    st.subheader(job.spec.title)
    show_fit(runner, job, config)
    st.divider()
st.subheader("Start a run" if job is None else "Start another run")
plan_and_start(runner, config)
