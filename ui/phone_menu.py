"""The sidebar's menu on a phone closes once a page is picked in it, so the page picked (a student's Join form) is
not left under it.

Up to Streamlit's md breakpoint (768 px) the sidebar lies over the page rather than beside it: 300 px of a 390-px
phone. Streamlit closes it after a pick only when the browser's User-Agent parses as a phone's; a phone asking for
the desktop site, a tablet or a narrow window kept it open over the page it had just opened (and over the page it
was on, when that one was picked again). A small component (st.components.v2: its script runs in the app's page and
draws nothing) closes it there, by Streamlit's own collapse button, whatever the User-Agent says. A tap on the page
beside the menu already closed it.
"""

from __future__ import annotations

import streamlit as st

from attention_core.figures.screen import SIDEBAR_PX

_KEY = "phone_menu"  # the component's key (ui/style.py hides its empty element)

# A click on a page link of the sidebar's menu, while the sidebar lies over the page: once Streamlit has handled the
# click (it may have closed the menu itself: data-collapsed says), the collapse button, which toggles, is pressed.
_JS = """
export default function (component) {
  const { data } = component;
  const close = () => {
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (sidebar && button && sidebar.getAttribute('data-collapsed') === 'false') button.click();
  };
  const picked = (event) => {
    const link = event.target instanceof Element && event.target.closest('[data-testid="stSidebarNavLink"]');
    if (link && window.innerWidth <= data.overlay) setTimeout(close, 0);
  };
  document.addEventListener('click', picked, true);
  return () => document.removeEventListener('click', picked, true);
}
"""
_component = st.components.v2.component("attention_phone_menu", js=_JS)


def close_menu_on_pick() -> None:
    """Mount the script (every run, in the sidebar; it draws nothing)."""
    with st.sidebar:
        _component(key=_KEY, data={"overlay": SIDEBAR_PX}, height=0)
