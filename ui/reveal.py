"""Whether a page's quiz is asked (its Guess first switch, read before the switch is drawn), and Reveal and Hide for
a page's own quiz of one pick (the Abstraction page's pair, Fill the blank's first guess): the
question is `asked` (what makes it: another sentence, text or model asks again), the pick is one widget's value, and
the answer shows from Reveal until Hide or another question. Both act in callbacks, before the page draws again, so
the same run shows the answer or hides it."""

from __future__ import annotations

import streamlit as st

from ui.i18n import _


def quiz_asked(page: str) -> bool:
    """Whether the page's Guess first switch is on, before the switch is drawn (from the session, or on a link's
    first run from the URL): the lesson line above it must not give the answer away."""
    key = f"{page}_quiz"
    return bool(st.session_state[key]) if key in st.session_state else st.query_params.get(key) == "true"


def revealed(page: str, asked: tuple[object, ...], pick_key: str, hidden: str) -> bool:
    """Whether this question is revealed; if not, Reveal (a press without a pick says what is missing, once) and
    `hidden`, the line on what stays hidden until then."""
    if st.session_state.get(f"{page}_quiz_revealed") == asked:
        return True
    st.button(_("Reveal"), type="primary", key=f"{page}_quiz_reveal", on_click=_reveal, args=(page, asked, pick_key))
    if st.session_state.pop(f"{page}_quiz_unguessed", False):
        st.warning(_("Pick your guess above, then press Reveal."))
    st.caption(hidden)
    return False


def hide_again(page: str) -> None:
    """Hide it again: the answer goes, the question stays."""
    st.button(
        _("Hide it again"), key=f"{page}_quiz_hide", on_click=st.session_state.pop, args=(f"{page}_quiz_revealed", None)
    )


def _reveal(page: str, asked: tuple[object, ...], pick_key: str) -> None:
    if st.session_state.get(pick_key) is None:
        st.session_state[f"{page}_quiz_unguessed"] = True  # said once, under the button
    else:
        st.session_state[f"{page}_quiz_revealed"] = asked
