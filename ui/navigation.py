"""The app's pages and frame, in one place: app.py runs it, and so does a page reached before app.py ever ran.

Why the second case exists: Streamlit still carries its legacy multipage mode. On a freshly started server, until
some session has run app.py's `st.navigation`, a folder named `pages/` is auto-discovered and a URL such as
/trainable runs pages/trainable.py on its own, without app.py. A teacher's shared link is often exactly that
first visit (and Streamlit's AppTest starts every run that way). Such a page calls `ensure_app_frame()`, which
puts the real navigation in place and, on a session's first run, reruns so that app.py routes the page: widgets
drawn in the legacy run would otherwise lose the first value a user types.
"""

from __future__ import annotations

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from ui.accessibility import accessible_page
from ui.browser_memory import sync_browser_memory
from ui.i18n import N_, _, language_switch, right_to_left, settle_language
from ui.live_class.plan import arrive_from_plan
from ui.live_class.plan_memory import keep_the_plan
from ui.live_class.session import live_class_note
from ui.models import model_credit
from ui.page_registry import PAGES
from ui.phone_menu import close_menu_on_pick
from ui.screen import report_screen
from ui.server import limit_malloc_arenas, one_torch_thread
from ui.style import apply_style, presentation_toggle
from ui.tour.guide import guided_tour

limit_malloc_arenas()  # process-wide memory setting, once per process (this module is imported once)
_FRAMED = "app_frame_seen"  # session key: this session has had its first run
SIDEBAR_NOTE = N_(
    "Attention is each word becoming a mix of the words it resembles. Start with raw similarity, "
    "then let attention learn its own views with W1, W2 and W3 (others call them Q, K, V)."
)


DEFAULT_URL_PATH = "start"  # reserved by the default page (served at /); /idea is served by a hidden twin


def app_pages() -> list[StreamlitPage]:
    """The pages of ui/page_registry.py, their titles in this session's language. url_path equals each file's name,
    so legacy routing and ours agree on every URL."""
    # The idea page is the default, served at /; Streamlit reserves a default page's url_path without serving it, so
    # /idea said "Page not found". The default takes another name, and /idea is the same page, hidden from the menu.
    pages = []
    for page in PAGES:
        file, title = f"pages/{page.name}.py", _(page.title)
        if page.default:
            pages += [st.Page(file, title=title, url_path=DEFAULT_URL_PATH, default=True)]
            hidden_twin = st.Page(file, title=title, url_path=page.name, visibility="hidden")
        else:
            pages.append(st.Page(file, title=title, url_path=page.name))
    return [*pages, hidden_twin]


# Widget keys (and so URL parameters) start with their page's URL path. Links shared before Fill the blank and
# Word order followed that rule say fill_… and order_…: read them as the new names.
_LEGACY_PREFIXES = {"fill_": "fill_blank_", "order_": "word_order_"}


def renamed_legacy_parameters(params: dict[str, str]) -> dict[str, str]:
    """{old name: new name} for the URL parameters of an old shared link (none when a new name is given too)."""
    renamed = {}
    for name in params:
        for old, new in _LEGACY_PREFIXES.items():
            if name.startswith(old) and not name.startswith(new) and new + name[len(old) :] not in params:
                renamed[name] = new + name[len(old) :]
    return renamed


def frame_app() -> StreamlitPage:
    """Page config, navigation and sidebar note; returns the page the URL asks for."""
    one_torch_thread()
    st.session_state[_FRAMED] = True
    for old, new in renamed_legacy_parameters(st.query_params.to_dict()).items():
        st.query_params[new] = st.query_params[old]  # before any widget reads the URL
        del st.query_params[old]
    settle_language()  # before the page titles are written
    st.set_page_config(page_title=_("The attention explainer"), page_icon="🔍", layout="wide")
    page = st.navigation(app_pages())
    arrive_from_plan()  # a lesson plan's question opened: a clean start on it, before any page widget is drawn
    language_switch()
    apply_style(presentation_toggle(), right_to_left=right_to_left())
    report_screen()  # the window's width, for figures that fit it (ui/screen.py)
    close_menu_on_pick()  # a phone's menu closes once a page is picked in it, whatever its User-Agent says
    accessible_page()  # <html lang dir>, focus rings, scrolling formulas reachable by keyboard
    guided_tour(page.url_path)  # the tour's step (?tour=N): its page, its card at the top, its completion
    live_class_note()  # a teacher's class stays on across pages (and reloads): its code in the sidebar
    st.sidebar.caption(_(SIDEBAR_NOTE))
    st.sidebar.caption(model_credit())
    keep_the_plan()  # the lesson plan survives a reload (ui/live_class/plan_memory.py)
    sync_browser_memory()  # last: what this run asked the browser to remember (ui/browser_memory.py)
    return page


def ensure_app_frame() -> None:
    """Call first in every page file: frames the page when it was run without app.py (see above)."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        first_run = _FRAMED not in st.session_state
        frame_app()
        if first_run:  # nothing was clicked yet on a first run, so a rerun loses nothing
            st.rerun()
