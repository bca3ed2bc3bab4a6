"""Can words look ahead? The causal-mask switch's words, shared by Similarity and Trainable attention, and Fill the
blank's guesses reading only the words before the blank."""

from __future__ import annotations

import streamlit as st

from attention_core.figures.numbers import written_alone
from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.models.knock_out_effects import guess_changes
from attention_core.story.text import Token
from ui.bidi import isolate
from ui.guess_table import guess_change_table
from ui.i18n import N_, _
from ui.markdown import plain

CAUSAL_HELP = N_(
    "On: each word looks only at itself and the words before it. Scores above the diagonal become −∞ before the "
    "softmax, so their weights are exactly 0 (without softmax, they are set to 0). GPT-style text generators attend "
    "this way."
)
CAUSAL_NOTE = N_(
    "Only the words before: every weight above the diagonal is 0. A text generator writes one word at a time, so "
    "while it learns to guess the next word it must not see it; a masked-word model may read both sides of its blank, "
    "and so learns from the words after it too."
)


def show_words_before_only(page: str, model: MaskedWordModel, tokens: list[Token], analysis: Analysis, k: int) -> None:
    """Fill the blank's switch: the guesses reading both sides of the blank, and reading only the words before it
    (every layer causal, as a text generator reads), side by side."""
    if not st.toggle(
        _("Hide the words after the blank (as a text generator reads)"), key=f"{page}_causal", bind="query-params"
    ):
        return
    looking_back = model.analyze(tokens, causal=True)
    changes = guess_changes(model, analysis, looking_back, k)
    guess_change_table(changes, _("both sides"), _("only the words before"))
    first = max(changes, key=lambda c: c.after)
    st.caption(
        _(
            "Reading only the words before it (every layer causal), the blank's first guess is {word} "
            "({probability}). A text generator must read so: it learns to guess the next word and must not see "
            "it. Here every word reads only the words before it, in every layer: the words before the blank too, "
            "which this model never did in training (it learned reading both sides), so the guess can change even "
            "when the blank is the last word."
        ).format(word=isolate(plain(first.word)), probability=written_alone(first.after))
    )
