"""The query–key map on a page: each word's V1 (query) and V2 (key) on one plane, lines for the strongest pairs, and
a caption that says what the picture keeps and loses, with this sentence's numbers."""

from __future__ import annotations

import streamlit as st
import torch

from attention_core.figures.query_key_map import query_key_figure
from attention_core.story.query_key_map import QueryKeyMap, query_key_map
from ui.i18n import _, ngettext
from ui.show import chart

LINE_CHOICES = (0, 1, 2, 3)  # lines from each query: to none, or to its 1, 2, 3 strongest keys


def show_query_key_map(
    page: str,
    V1: torch.Tensor,
    V2: torch.Tensor,
    weights: torch.Tensor,
    labels: list[str],
    rtl: bool,
    *,
    position_bias: bool = False,
) -> QueryKeyMap:
    """The map of one head under a heading, the number of lines a word gets (in the URL), and its caption.
    position_bias: the head adds a learned bias B to its scores, which the map cannot show."""
    st.subheader(_("Queries and keys on one map"))
    st.markdown(
        _(
            "Each word twice: its **query** V1 (●, what it looks for) and its **key** V2 (◇, what it offers). A word "
            "attends to the keys whose direction matches its query's, so on this map attention becomes geometry. "
            "Switch **W1** and **W2** off above: the two clouds become one, the raw V·Vᵀ story."
        )
    )
    per_query = st.radio(
        _("Lines from each query to its strongest keys"),
        LINE_CHOICES,
        index=1,
        key=f"{page}_qk_lines",
        bind="query-params",
        horizontal=True,
        help=_(
            "0: no lines. 1–3: each query is joined to the keys it gives the largest weights; the thicker and darker "
            "the line, the larger the weight."
        ),
    )
    qk = query_key_map(V1, V2, weights, per_query)
    chart(query_key_figure(qk, labels, rtl=rtl, translate=_), f"{page}_qk_map", table=False)
    st.caption(map_caption(qk, per_query, position_bias=position_bias))
    return qk


def map_caption(qk: QueryKeyMap, per_query: int, *, position_bias: bool = False) -> str:
    """What the map on screen shows, in its own numbers."""
    n, (first, second) = qk.queries.shape[0], qk.axis_shares
    if qk.n_axes == 1:  # one dimension: the points are on a line, which keeps all of their variance
        kept = _("The plane keeps all of their variance: this head has one dimension, so the map is a line.")
    elif qk.kept >= 0.9995:
        kept = _("The plane keeps all of their variance.")
    else:
        kept = _("The plane keeps {kept:.0f} % of their variance (PC1 {first:.0f} %, PC2 {second:.0f} %).").format(
            kept=100 * qk.kept, first=100 * first, second=100 * second
        )
    parts = [
        _(
            "The {points} points are centred and projected on the two directions along which they spread most (PCA "
            "of [V1; V2])."
        ).format(points=2 * n),
        kept,
    ]
    if per_query:
        parts.append(
            ngettext(
                "Each query is joined to its strongest key; the thicker the line, the larger the weight.",
                "Each query is joined to its strongest {n} keys; the thicker the line, the larger the weight.",
                per_query,
            ).format(n=per_query)
        )
    if qk.same_points:
        parts.append(
            _(
                "W1 and W2 are both the identity here, so V1 = V2: each word's query and key are the same point, and "
                "the scores are the sentence's own dot products, the raw V·Vᵀ."
            )
        )
        themselves = sum(i == j for i, j in enumerate(qk.strongest))
        if themselves:
            parts.append(
                _(
                    "{themselves} of the {n} words attend most to themselves: a line from a point to itself has no "
                    "length."
                ).format(themselves=themselves, n=n)
            )
    else:
        parts.append(_("V1 ≠ V2: the trained or random W's moved queries and keys into two clouds."))
    parts.append(
        _(
            "The map is a shadow: a score is a dot product, not a distance, and centring and the two axes leave part "
            "of it out. Here the key nearest a query on the map is the one it attends to most for {nearest} of the "
            "{n} words; the lines are the head's real weights."
        ).format(nearest=qk.nearest_is_strongest, n=n)
    )
    if position_bias:
        parts.append(_("The head's position bias B, added to every score, is not on the map."))
    return " ".join(parts)
