"""Minimal pairs: two sentences that differ in a word or two, every head's attention compared on their shared words."""

import streamlit as st

from attention_core.models.interface import AttentionModel
from ui.bidi import phrases_isolated
from ui.i18n import _, right_to_left
from ui.models import chosen_model
from ui.navigation import ensure_app_frame
from ui.pairs.view import (
    ComparedPair,
    compare_pair,
    pair_input,
    show_guesses,
    show_head_change,
    show_picked_head,
)
from ui.tokens import say_how_tokens_are_drawn, token_display

ensure_app_frame()

st.title(_("Minimal pairs: change a word, watch the heads"))
st.markdown(
    phrases_isolated(
        _(
            "Two sentences that differ in one or two words: *too tired* or *too wide*, السميع or سميع, عائشة or أنس. "
            "The same model reads both; every head's two attention maps are set side by side on the words the "
            "sentences share, and their difference B − A shows what the changed word changed elsewhere. Pick a "
            "built-in pair or type your own."
        ),
        right_to_left(),
    )
)
pair = pair_input("pairs")
if pair is None:
    st.stop()
model = chosen_model("pairs", pair.rtl, pair.a.tokens + pair.b.tokens)
display = token_display("pairs", model)
compared = compare_pair(model, pair, display)
if compared is None:
    st.stop()
if compared.drawn.alignment.is_identical:
    st.info(_("The two sentences are the same: every difference is 0. Change a word or two of sentence B."))
say_how_tokens_are_drawn(compared.a, display)
show_guesses(model, compared)

st.subheader(_("Which heads changed"))
show_head_change(compared, pair.rtl, "pairs_change")


# One head's A | B | B − A in a fragment: picking another head reruns only this part.
@st.fragment
def one_head(compared: ComparedPair, model: AttentionModel, rtl: bool) -> None:
    st.subheader(_("One head, both sentences"))
    show_picked_head(compared, model, rtl, "pairs")


one_head(compared, model, pair.rtl)
