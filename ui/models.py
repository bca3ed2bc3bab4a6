"""Which trained model a page uses: the shipped one, shared by every session and loaded once per server
(st.cache_resource, read-only, never mutated), or the user's own, trained on the Train page and kept in that
user's session only (st.session_state)."""

from __future__ import annotations

import streamlit as st

from attention_core.corpora import CREDITS
from attention_core.inference import TrainedModel, load_model
from attention_core.live_training import TrainingRun
from ui.show import plain

MODEL_CREDIT = (
    "The Arabic model was trained here on the Qurʾān's text: " + CREDITS["quran"] + " Every tenth āyah was held out."
)
SHIPPED, MINE = "Qurʾān model (shipped)", "my model (Train page)"
RUN_KEY = "training_run"  # session key of the user's TrainingRun
UPLOADED_KEY = "uploaded_model"  # session key of a model the user loaded from a downloaded zip
_MINE_FROM = "my_model_from"  # "run" or "upload": the latest of the two is "my model"
_PREFERENCE = "model_preference"  # kept under a plain key: a page's widget state goes when the page does


@st.cache_resource(show_spinner="Loading the trained Arabic model…")
def shipped_model() -> TrainedModel:
    return load_model()


def my_run() -> TrainingRun | None:
    return st.session_state.get(RUN_KEY)


def prefer_my_model(source: str = "run") -> None:
    """From now on "my model" is the latest run's (source "run") or the uploaded one ("upload"), chosen by default."""
    st.session_state[_MINE_FROM] = source
    st.session_state[_PREFERENCE] = MINE


def my_model() -> TrainedModel | None:
    if st.session_state.get(_MINE_FROM) == "upload":
        return st.session_state.get(UPLOADED_KEY)
    run = my_run()
    return run.model() if run is not None else None


def describe_my_model(mine: TrainedModel) -> str:
    run = my_run()
    if st.session_state.get(_MINE_FROM) == "upload" or run is None:
        return f"Your model: {plain(mine.name)} (loaded from your file), step {mine.step:,}."
    return f"Your model: {run.preset_name} preset on {plain(run.corpus.name)}, step {mine.step:,}."


def _keep_preference(widget_key: str) -> None:
    st.session_state[_PREFERENCE] = st.session_state[widget_key]


def chosen_model(page: str) -> TrainedModel:
    """The model this page uses. Once the user has trained one, a sidebar switch picks shipped or mine."""
    mine = my_model()
    if mine is None:
        return shipped_model()
    widget_key = f"{page}_model"
    if widget_key not in st.session_state:
        st.session_state[widget_key] = st.session_state.get(_PREFERENCE, SHIPPED)
    choice = st.sidebar.radio("Model", [SHIPPED, MINE], key=widget_key, on_change=_keep_preference,
                              args=(widget_key,), help="Your model is the latest weights of your run on the "
                              "Train page (it keeps learning while the run goes on).")  # fmt: skip
    if choice == MINE:
        st.sidebar.caption(describe_my_model(mine))
        return mine
    return shipped_model()
