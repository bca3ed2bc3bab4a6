"""Models shared by every session, loaded once per server (st.cache_resource): read-only, never mutated."""

from __future__ import annotations

import streamlit as st

from attention_core.corpora import CREDITS
from attention_core.inference import TrainedModel, load_model

MODEL_CREDIT = (
    "The Arabic model was trained here on the Qurʾān's text: " + CREDITS["quran"] + " Every tenth āyah was held out."
)


@st.cache_resource(show_spinner="Loading the trained Arabic model…")
def shipped_model() -> TrainedModel:
    return load_model()
