"""A widget's remembered choice that its options no longer hold."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st


def forget_choice_not_offered(key: str, options: Iterable[object]) -> None:
    """Before the widget `key` is drawn: forget the value the session remembers for it when its options no longer
    hold it (a place past a new, shorter sentence; a word of another sentence; a head of another model or of
    another knock-out), which the widget would refuse. It then starts on its default."""
    if st.session_state.get(key) not in (None, *options):
        del st.session_state[key]
