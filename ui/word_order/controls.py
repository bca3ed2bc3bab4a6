"""How Word order reorders the sentence: a random shuffle (a button draws a new one), or two words the student
picks to swap (dog ↔ man), bound to the URL so a teacher can share "swap dog and man"."""

from __future__ import annotations

import streamlit as st

from attention_core.story.word_order import shuffled_order, swapped_order
from ui.i18n import N_, _
from ui.linked_options import translated_options
from ui.tokens import place_names

# The options, in English as links and lessons name them (?word_order_how=swapping two words), shown translated.
RANDOM, SWAP = N_("a random shuffle"), N_("swapping two words")


def _new_shuffle() -> None:
    st.session_state["word_order_shuffle_seed"] = st.session_state.get("word_order_shuffle_seed", 1) + 1


def reorder_controls(labels: list[str]) -> tuple[list[int], str]:
    """The new order (reordered word i = typed word order[i]) and a few words saying how it was made (in this
    session's language)."""
    n = len(labels)
    shown = translated_options("word_order_how", [RANDOM, SWAP])
    how = st.radio(
        _("Reorder by"), [RANDOM, SWAP], format_func=shown, key="word_order_how", bind="query-params", horizontal=True
    )
    if how == RANDOM or n < 2:
        st.session_state.setdefault("word_order_shuffle_seed", 1)
        st.button(_("Shuffle the words"), key="word_order_shuffle", on_click=_new_shuffle)
        return shuffled_order(n, st.session_state["word_order_shuffle_seed"]), _(RANDOM)
    names = place_names(labels)  # the options, as the URL keeps them (?word_order_swap_a=dog)
    left, right = st.columns(2)
    # A word of another sentence is not offered: Streamlit puts the box back on its default and shows it there.
    keys = ("word_order_swap_a", "word_order_swap_b")
    first = left.selectbox(_("Swap this word"), names, index=1 if n > 2 else 0, key=keys[0], bind="query-params")
    second = right.selectbox(_("with this one"), names, index=n - 1, key=keys[1], bind="query-params")
    a, b = names.index(first), names.index(second)
    return swapped_order(n, a, b), f"{first} ↔ {second}"
