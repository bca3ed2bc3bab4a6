"""Links a teacher hands out: the page and its controls as the server holds them for this run, and a lesson's links.

Every link carries each parameter once (a multiselect's choices are one parameter, repeated once per choice), and
none carries presentation mode: it is the projector's setting (ui/style.presentation_toggle), and a link copied from
the projector must open on a phone in a phone's type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

import streamlit as st

from ui.style import PRESENTATION_KEY

Query = Mapping[str, str | Sequence[str]]


def href(page: str, query: Query) -> str:
    """A relative link to `page` with `query` (a list value: the parameter once per value, each value once; never
    presentation mode)."""
    pairs = [
        (key, value)
        for key, values in query.items()
        if key != PRESENTATION_KEY
        for value in ([values] if isinstance(values, str) else dict.fromkeys(values))
    ]
    return f"{page}?{urlencode(pairs)}"


def link_to_this_view(page: str, also: dict[str, str] | None = None) -> str:
    """The page's path and its query as the server holds it for this run: every bound control, including a value
    set in code during the run (a click on the head picker), which the address bar shows only later. `also` adds
    or replaces parameters: a bound control left at its default is not in the query, and a link that must name it
    (a quiz's question) says it. A parameter the address bar holds twice (a link made before the page links were
    fixed) is named once."""
    query: dict[str, str | Sequence[str]] = {key: st.query_params.get_all(key) for key in st.query_params}
    return href(page, query | (also or {}))
