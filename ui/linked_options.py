"""Options shown in the reader's language on widgets bound to the URL, and links that still open in any language.

A widget bound to the URL (`bind="query-params"`) writes the label it shows into the link: ?similarity_metric=cosine
in English, the Arabic label in Arabic. A widget reads back only its own language's labels, so a link made in the
other language would lose its setting (Streamlit 1.67 drops a value it does not know). Lessons, tests and shared
links name options by their English labels. `follow_link` runs before such a widget is drawn: when the link names
an option by another language's label, it writes this language's label into the URL and runs the page again, so the
widget reads it (a bound widget's URL value can be set only before the widget is drawn in a run)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.i18n import LANGUAGES, in_language, keep_choice_across_languages, language


def follow_link(key: str, labels: Callable[[str], Sequence[str]]) -> None:
    """Before the widget `key` is drawn: a link's value given as another language's label (labels(language): the
    options' labels in that language, in their order) becomes this language's label, read on a run again."""
    linked = st.query_params.get(key)
    if linked is None:
        return
    here = list(labels(language()))
    if linked in here:
        return
    if key in st.session_state:
        # The widget was drawn before, and the language changed under it: the URL and the browser's widget hold the
        # other language's label, which the widget drawn in this language would not know (a radio then showed no
        # choice, and read a label as its value). Its value, read with the labels it was drawn with, is set again:
        # the widget shows it, and writes this language's label into the URL.
        if any(linked in labels(lang) for lang in LANGUAGES):
            st.session_state[key] = st.session_state[key]
        return
    for lang in LANGUAGES:
        there = list(labels(lang))
        if linked in there:
            try:
                st.query_params[key] = here[there.index(linked)]
            except StreamlitAPIException:  # the widget was drawn on the previous run: it no longer reads the URL
                return
            st.rerun()


def translated_options(key: str, options: Sequence[str]) -> Callable[[str], str]:
    """For a bound widget whose options are English words marked with N_ (their own labels in English, and so the
    values links, lessons and tests use): follows a link made in any language, and returns the format_func that
    shows each option in this session's language."""
    follow_link(key, lambda lang: [in_language(lang, option) for option in options])
    keep_choice_across_languages(key)  # a default value is not in the URL, so follow_link cannot redraw it
    return functools.partial(in_language, language())  # this run's language, not the one a later call would find
