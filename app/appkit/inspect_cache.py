"""Encoder results cached per (model, input): reruns for a slider or toggle cost nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from .resources import inspection_encoder

if TYPE_CHECKING:
    from encoder import Inspection, WordTrajectory


@st.cache_data(show_spinner="Running the encoder…", max_entries=32)
def inspect_text(model_key: str, text: str, text_pair: str | None) -> Inspection:
    return inspection_encoder(model_key).inspect(text, text_pair)


@st.cache_data(show_spinner="Running the encoder on every context…", max_entries=32)
def word_trajectory(model_key: str, contexts: tuple[str, ...], word: str) -> WordTrajectory:
    return inspection_encoder(model_key).word_trajectory(list(contexts), word)
