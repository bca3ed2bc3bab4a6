"""Guesses under two conditions side by side (a head knocked out or not, sentence A or B, all words or only those
before): each word's two probabilities as bars, and the change."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention_core.models.knock_out_effects import GuessChange
from ui.i18n import _, reading_order


def guess_change_table(changes: list[GuessChange], before: str, after: str) -> None:
    """Guesses under two conditions side by side (`before` and `after` name the two columns, in the reader's
    language): each word's two probabilities as bars, and the change. The table's own columns keep their English
    names ("word", "change"), which tests look up; their headers are shown translated."""
    probability = {"min_value": 0.0, "max_value": 1.0, "format": "%.3f"}
    table = pd.DataFrame(
        {
            "word": [c.word for c in changes],
            before: [c.before for c in changes],
            after: [c.after for c in changes],
            "change": [c.change for c in changes],
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        column_order=reading_order(table.columns),
        column_config={
            "word": st.column_config.TextColumn(_("word")),
            before: st.column_config.ProgressColumn(before, **probability),  # type: ignore[arg-type]
            after: st.column_config.ProgressColumn(after, **probability),  # type: ignore[arg-type]
            "change": st.column_config.NumberColumn(_("change"), format="%+.3f"),
        },
    )
