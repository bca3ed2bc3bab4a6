"""Make every visit go through app.py's navigation, even a first visit straight to a page's URL.

Streamlit still carries its legacy multipage mode: on a freshly started server, as long as no session has run
app.py's `st.navigation` yet, a folder named `pages/` is auto-discovered and a URL such as /trainable runs
pages/trainable.py on its own — without app.py's page config and navigation. A teacher's shared link is often
exactly that first visit. A page that finds itself run that way switches the legacy mode off and reruns, so
app.py routes it like any other visit.
"""

from __future__ import annotations

import streamlit as st


def ensure_app_navigation() -> None:
    """Call first in every page file; costs nothing once app.py has run."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False  # what st.navigation itself does on its first call
        st.rerun()
