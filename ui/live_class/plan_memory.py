"""The teacher's lesson plan kept by the browser (issue 33): a reload, a new tab or a crashed process brings the plan
back, as presentation mode and the class come back.

The plan lives in the session (plan.PLAN_KEY); here it is mirrored into the browser's localStorage
(ui/browser_memory.py: a plan of 30 quiz links is too large for a cookie) whenever it changes, and read back into a
new session that has none. It goes through the same check as an uploaded plan file (classroom.plan): what comes
back from a browser is treated as a file the user chose.
"""

from __future__ import annotations

import streamlit as st

from classroom.plan import from_json, to_json
from ui.browser_memory import keep_locally, recalled_locally
from ui.live_class.plan import PLAN_KEY
from ui.live_class.session import app_host

PLAN_ITEM = "attention.plan"  # the localStorage item (ui/browser_memory.LOCAL_NAMES)
_KEPT = "plan_memory_kept"  # session: the plan's JSON as last given to the browser


def keep_the_plan() -> None:
    """Once per run, before the pages draw: a new session takes the plan its browser kept; a changed plan is kept."""
    items = st.session_state.get(PLAN_KEY)
    if not items and _KEPT not in st.session_state:
        kept = recalled_locally(PLAN_ITEM)
        if kept:
            try:
                st.session_state[PLAN_KEY] = items = from_json(kept, app_host())
            except ValueError:  # a plan this version no longer reads: forgotten, as a bad file would be refused
                keep_locally(PLAN_ITEM, None)
            st.session_state[_KEPT] = kept
            return
    text = to_json(items, host=app_host()) if items else None
    if text != st.session_state.get(_KEPT, None if not items else ""):
        keep_locally(PLAN_ITEM, text)
        st.session_state[_KEPT] = text
