"""Which trained model a page uses: the shipped one, shared by every session and loaded once per server
(st.cache_resource, read-only, never mutated), or the user's own, trained on the Train page and kept in that
user's session only (st.session_state)."""

from __future__ import annotations

import streamlit as st

from attention_core.corpora import CREDITS
from attention_core.inference import TrainedModel, load_model
from attention_core.live_training import TrainingRun

MODEL_CREDIT = (
    "The Arabic model was trained here on the Qurʾān's text: " + CREDITS["quran"] + " Every tenth āyah was held out."
)
SHIPPED, MINE = "Qurʾān model (shipped)", "my model (Train page)"
RUN_KEY = "training_run"  # session key of the user's TrainingRun
_PREFERENCE = "model_preference"  # kept under a plain key: a page's widget state goes when the page does


@st.cache_resource(show_spinner="Loading the trained Arabic model…")
def shipped_model() -> TrainedModel:
    return load_model()


def my_run() -> TrainingRun | None:
    return st.session_state.get(RUN_KEY)


def prefer_my_model() -> None:
    st.session_state[_PREFERENCE] = MINE


def _keep_preference(widget_key: str) -> None:
    st.session_state[_PREFERENCE] = st.session_state[widget_key]


def chosen_model(page: str) -> TrainedModel:
    """The model this page uses. Once the user has trained one, a sidebar switch picks shipped or mine."""
    run = my_run()
    mine = run.model() if run is not None else None
    if mine is None:
        return shipped_model()
    widget_key = f"{page}_model"
    if widget_key not in st.session_state:
        st.session_state[widget_key] = st.session_state.get(_PREFERENCE, SHIPPED)
    choice = st.sidebar.radio("Model", [SHIPPED, MINE], key=widget_key, on_change=_keep_preference,
                              args=(widget_key,), help="Your model is the latest weights of your run on the "
                              "Train page (it keeps learning while the run goes on).")  # fmt: skip
    if choice == MINE:
        st.sidebar.caption(f"Your model: {run.preset_name} preset on {run.corpus.name}, step {mine.step:,}.")
        return mine
    return shipped_model()
