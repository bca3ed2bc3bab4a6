"""Links a teacher hands out: the page and its controls as the server holds them for this run."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st


def link_to_this_view(page: str, also: dict[str, str] | None = None) -> str:
    """The page's path and its query as the server holds it for this run: every bound control, including a value
    set in code during the run (a click on the head picker), which the address bar shows only later. `also` adds
    or replaces parameters: a bound control left at its default is not in the query, and a link that must name it
    (a quiz's question) says it."""
    query = {key: st.query_params.get_all(key) for key in st.query_params} | {
        key: [value] for key, value in (also or {}).items()
    }
    return f"{page}?{urlencode([(key, value) for key, values in query.items() for value in values])}"
