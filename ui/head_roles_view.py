"""The roles of a model's heads on the current sentence: a map of heads coloured by role, and how each score is
computed."""

from __future__ import annotations

import streamlit as st

from attention_core.figures.head_maps import ROLE_NAMES, role_map
from attention_core.models.head_roles import head_roles
from attention_core.models.interface import Analysis
from ui.i18n import N_, _
from ui.show import chart

# One text for the catalog, so the thresholds of attention_core.models.head_roles (ROLE_THRESHOLD 0.5,
# BROAD_THRESHOLD 0.7) are written out in it; tests/test_heads_apart.py checks they still agree.
HOW_ROLES_ARE_SCORED = N_(
    """Each score is an average over the sentence's words (not [CLS] or [SEP]): on average, how much of a word's \
attention goes

- **previous word**: to the token just before it;
- **next word**: to the token just after it;
- **self**: to itself;
- **sink**: to [CLS] and [SEP], where heads with nothing to look for park their attention;
- **broad**: not a weight but the spread: the row's entropy divided by the largest it can be (log n); 1 is even.

A head's role is the largest of the first four when it reaches 0.5 (half of a word's attention goes there); \
otherwise **broad** when the spread reaches 0.7; otherwise **mixed**: the head reads by content, or several places \
at once. The roles are of this sentence: another sentence can change them."""
)


def show_head_roles(analysis: Analysis, rtl: bool, key: str) -> None:
    """The heading, the map of the heads' roles and one line of counts; how the roles are scored is the heading's
    help (a tooltip: Multi-head's full rerun is near its budget, and an expander costs two more elements)."""
    st.subheader(_("What each head does here"), help=_(HOW_ROLES_ARE_SCORED))
    roles = head_roles(analysis.weights, analysis.special)
    chart(role_map(roles, rtl=rtl, translate=_), key, table=False)
    counts = _(", ").join(f"{_(ROLE_NAMES[role])} {n}" for role, n in roles.counts().items() if n)
    st.caption(
        _(
            "Heads per role on this sentence: {counts}. Hover a head for its five scores, the (?) above for how they "
            "are computed."
        ).format(counts=counts)
    )
