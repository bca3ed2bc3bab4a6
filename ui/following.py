"""A selectbox bound to the URL that follows a computed choice (the head that changed most) until the user picks.

Streamlit keeps a keyed widget's value from run to run, so a selectbox whose `index` is computed ("the head that
changed most") stayed on the last pair's head once the sentences changed; and a bound widget leaves its value out
of the URL while it equals the default, so a shared link reopened on the new pair's head, another view.

Here the choice has two states, and the URL says which:
- following: the widget is set to the computed option on every run, which is also its default, so the URL holds
  no value; a link without one opens on the computed option for the link's own settings: the same view.
- picked (the user chose an option, or a link named one): the widget keeps it whatever is computed, and its
  default is None, so the URL always holds it. Clearing the box (its ×) goes back to following.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st


def _picked_key(key: str) -> str:
    return f"{key}_picked"


def note_pick(key: str) -> None:
    """The selectbox's on_change: the user picked an option (or cleared the box, to follow again)."""
    st.session_state[_picked_key(key)] = st.session_state.get(key) is not None


def follow_until_picked(key: str, options: Sequence[str], computed: str) -> int | None:
    """Before the selectbox `key` is drawn: its `index` (None once the user has picked), with its value set to
    `computed` while it follows. Draw it with on_change=note_pick, args=(key,). A remembered value its options no
    longer hold (another model's heads) is dropped, and the box follows again."""
    picked_key = _picked_key(key)
    if st.session_state.get(key) not in (None, *options):
        del st.session_state[key]
        st.session_state[picked_key] = False
    if picked_key not in st.session_state:  # the session's first run here: a link that names an option picked it
        st.session_state[picked_key] = st.query_params.get(key) in options
    if st.session_state[picked_key] and st.session_state.get(key, options[0]) in options:
        return None  # the user's pick, or (on a link's first run) the link's, which the widget reads from the URL
    st.session_state[picked_key] = False
    if st.session_state.get(key) != computed:
        st.session_state[key] = computed
    return list(options).index(computed)


def follow_again(key: str) -> None:
    """Make the box `key` follow its computed option again (a new built-in pair, say: a new lesson)."""
    st.session_state[_picked_key(key)] = False


def following_selectbox(
    label: str,
    options: Sequence[str],
    key: str,
    computed: str,
    *,
    placeholder: str,
    help: str,
    format_func: Callable[[str], str] = str,
) -> str:
    """A selectbox bound to the URL that shows `computed` until the user picks an option (follow_until_picked);
    returns the option to draw: the pick, or `computed` while it follows (the box cleared by its × included)."""
    chosen = st.selectbox(
        label,
        options,
        index=follow_until_picked(key, options, computed),
        key=key,
        bind="query-params",
        on_change=note_pick,
        args=(key,),
        placeholder=placeholder,
        help=help,
        format_func=format_func,
    )
    return chosen or computed  # cleared (×): this run still draws the option it follows again
