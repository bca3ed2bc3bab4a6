"""What this browser remembers across reloads, tabs and server processes (issue 33).

A session on the server lives as long as its tab's websocket: a reload, a second tab, a crashed app process or a
move to another one start a new session from nothing, and the teacher lost the class, a student was counted twice.
The browser is what stays, so what must survive is kept there:

- cookies (read back by the next session in its very first run, from the websocket's handshake:
  st.context.cookies): a student's opaque id and the class joined, the teacher's class and key, presentation mode.
  They hold nothing a student could use against another: the teacher's cookie is in the teacher's browser only, never
  in a link or on a page, and it is checked against the key's stored hash like the key itself;
- one local item (localStorage), too large for a cookie: the lesson plan (up to 30 quiz links). It comes back once,
  after the session's first run, through the component's state (a browser that keeps none sends nothing, and costs
  no rerun).

A small component (st.components.v2: its script runs in the app's page) writes what the session asks for on every
run; it draws nothing. Cookies last as long as an idle class (12 hours) and are sent to this site only (SameSite=Lax,
Secure on https).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote, unquote

import streamlit as st

from classroom.rules import IDLE_SECONDS

_COOKIES = "browser_memory_cookies"  # session: name → value (None: forget) this session asked the browser to keep
_LOCAL = "browser_memory_local"  # session: name → value (None: remove) for localStorage
_RECALLED = "browser_memory_recalled"  # session: the localStorage items the browser sent back, once
_KEY = "browser_memory"
LOCAL_NAMES = ("attention.plan",)  # the localStorage items the app reads back

_JS = """
export default function(component) {
  const { data, setStateValue } = component;
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  for (const [name, value] of Object.entries(data.cookies || {})) {
    const kept = value === null ? '; Max-Age=0' : `; Max-Age=${data.max_age}`;
    document.cookie = `${name}=${value === null ? '' : value}${kept}; Path=/; SameSite=Lax${secure}`;
  }
  for (const [name, value] of Object.entries(data.local || {})) {
    try {
      if (value === null) { window.localStorage.removeItem(name); } else { window.localStorage.setItem(name, value); }
    } catch (error) { /* storage off (a private window): the item lives as long as the session */ }
  }
  if (!data.recalled) {
    const found = {};
    for (const name of data.recall || []) {
      try { const value = window.localStorage.getItem(name); if (value !== null) { found[name] = value; } }
      catch (error) { /* storage off */ }
    }
    if (Object.keys(found).length) { setStateValue('local', found); }  // nothing kept: no rerun for a newcomer
  }
}
"""
_component = st.components.v2.component("attention_browser_memory", js=_JS)


def recalled(name: str) -> str | None:
    """The cookie `name` as this browser holds it: what this session set (or forgot) first, else what the browser sent
    when the session began (None: none)."""
    mine: dict[str, str | None] = st.session_state.get(_COOKIES, {})
    if name in mine:
        return mine[name]
    sent = st.context.cookies.get(name) if st.context.cookies is not None else None
    return unquote(sent) if isinstance(sent, str) and sent else None  # (AppTest's context holds no real cookies)


def remember(name: str, value: str) -> None:
    """Ask the browser to keep the cookie `name` (for 12 hours, this site only)."""
    st.session_state.setdefault(_COOKIES, {})[name] = value


def forget(name: str) -> None:
    st.session_state.setdefault(_COOKIES, {})[name] = None


def recalled_locally(name: str) -> str | None:
    """The localStorage item `name` as the browser sent it back (None before it did, or when it holds none)."""
    mine: dict[str, str | None] = st.session_state.get(_LOCAL, {})
    if name in mine:
        return mine[name]
    return dict(st.session_state.get(_RECALLED) or {}).get(name)


def keep_locally(name: str, value: str | None) -> None:
    """Ask the browser to keep (or, with None, remove) the localStorage item `name`."""
    st.session_state.setdefault(_LOCAL, {})[name] = value


def local_items_arrived() -> bool:
    """Whether the browser has sent its localStorage items back (after the session's first run; never when it keeps
    none)."""
    return _RECALLED in st.session_state


def _sent_back() -> None:
    """The component's callback: the items are read where it is mounted."""


def sync_browser_memory(recall: Sequence[str] = LOCAL_NAMES) -> None:
    """Mount the component (once per run, in the sidebar: it draws nothing): it writes this session's cookies and
    local items, and sends `recall`'s local items back once."""
    cookies = {name: None if value is None else quote(value, safe="") for name, value in _cookies().items()}
    data = {
        "cookies": cookies,
        "local": st.session_state.get(_LOCAL, {}),
        "max_age": int(IDLE_SECONDS),
        "recall": list(recall),
        "recalled": local_items_arrived(),
    }
    with st.sidebar:
        result = _component(key=_KEY, data=data, on_local_change=_sent_back, height=0)
    found = result.get("local") if result else None
    if isinstance(found, dict) and not local_items_arrived():
        st.session_state[_RECALLED] = {str(k): str(v) for k, v in found.items() if isinstance(v, str)}
        st.rerun()  # once a session, and only for a browser that kept something: read it before the page draws


def _cookies() -> dict[str, str | None]:
    return dict(st.session_state.get(_COOKIES, {}))
