"""Links a teacher hands out: the page and its controls as the server holds them for this run, and a lesson's links.

Every link carries each parameter once (a multiselect's choices are one parameter, repeated once per choice).
st.page_link needs care: on a page change Streamlit's frontend appends to the link's own query every parameter of
the current URL that is bound to a widget (streamlit 1.67, WidgetStateManager.filterParamsForPageChange), without
removing repeats. Presentation mode is bound in the app's frame, on every page, so a page link that named it too
opened on ?presentation=true&…&presentation=true.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

import streamlit as st

from ui.style import PRESENTATION_KEY

# The parameters the frontend carries over itself on a page change: those bound to a widget of the app's frame.
CARRIED_ON_PAGE_CHANGE = frozenset({PRESENTATION_KEY})

Query = Mapping[str, str | Sequence[str]]


def href(page: str, query: Query) -> str:
    """A relative link to `page` with `query` (a list value: the parameter once per value, each value once)."""
    pairs = [
        (key, value)
        for key, values in query.items()
        for value in ([values] if isinstance(values, str) else dict.fromkeys(values))
    ]
    return f"{page}?{urlencode(pairs)}"


def page_link_query(query: Query) -> dict[str, str | Sequence[str]]:
    """The query to give st.page_link for a view whose full query is `query`: without the parameters that the
    frontend adds itself on a page change (presentation mode, when it is on)."""
    return {key: value for key, value in query.items() if key not in CARRIED_ON_PAGE_CHANGE}


def link_to_this_view(page: str, also: dict[str, str] | None = None) -> str:
    """The page's path and its query as the server holds it for this run: every bound control, including a value
    set in code during the run (a click on the head picker), which the address bar shows only later. `also` adds
    or replaces parameters: a bound control left at its default is not in the query, and a link that must name it
    (a quiz's question) says it. A parameter the address bar holds twice (a link made before the fix above) is named
    once."""
    query: dict[str, str | Sequence[str]] = {key: st.query_params.get_all(key) for key in st.query_params}
    return href(page, query | (also or {}))
