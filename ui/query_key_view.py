"""The query–key map on a page: each word's V1 (query) and V2 (key) on one plane, lines for the strongest pairs, and
a caption that says what the picture keeps and loses, with this sentence's numbers. On Multi-head, the map draws the
words the heatmaps draw (pieces pooled, [CLS]/[SEP] shown or not), and the layer and head pickers open on the head
whose map teaches most on the sentence until the user picks one."""

from __future__ import annotations

import streamlit as st
import torch

from attention_core.figures.heatmaps import word_labels
from attention_core.figures.query_key_map import query_key_figure
from attention_core.models.head_view import HeadView
from attention_core.models.interface import Analysis, AttentionModel
from attention_core.models.query_key_words import TeachingHead, drawn_queries_keys, teaching_head
from attention_core.story.query_key_map import QueryKeyMap, explained_words, query_key_map
from ui.i18n import _, ngettext
from ui.show import chart
from ui.tokens import TokenDisplay

LINE_CHOICES = (0, 1, 2, 3)  # lines from each query: to none, or to its 1, 2, 3 strongest keys


def _follows(page: str) -> str:
    return f"{page}_head_follows"  # session key: True while the pickers follow the teaching head


def _memo(page: str) -> str:
    return f"{page}_head_teaching"  # session key: (the sentence and settings it was computed for, TeachingHead)


def _note_pick(page: str, key: str) -> None:
    """A picker's on_change: the user picked a layer or a head (or cleared the box: follow again)."""
    st.session_state[_follows(page)] = st.session_state.get(key) is None


def _teaching(page: str, model: AttentionModel, analysis: Analysis, display: TokenDisplay) -> TeachingHead:
    """teaching_head for this sentence, model and display, computed once (the fragment reruns on every switch)."""
    about = (model.name, id(model), getattr(model, "step", None), tuple(t.norm for t in analysis.tokens), display)
    memo = st.session_state.get(_memo(page))
    if memo is None or memo[0] != about:
        found = teaching_head(model, analysis, whole_words=display.whole_words, show_special=display.show_special)
        memo = st.session_state[_memo(page)] = (about, found)
    return memo[1]


def head_picker(page: str, model: AttentionModel, analysis: Analysis, display: TokenDisplay) -> tuple[int, int]:
    """The Layer and Head pickers (bound to the URL as {page}_layer and {page}_head); returns (layer, head) from 0.

    Until the user picks either, both follow the head whose query–key map explains most words of this sentence
    (query_key_words.teaching_head), and a caption says why. As in ui/following.py, the URL tells the two states
    apart: while they follow, the followed head is also the pickers' default, so the URL holds neither and a link
    reopens on the head computed for its own sentence (the same view); once picked (by the user, or by a link that
    names a layer or a head: a lesson, a shared view), their default is None, so the URL always holds both."""
    keys = f"{page}_layer", f"{page}_head"
    options = range(1, model.n_layers + 1), range(1, model.n_heads + 1)
    follows = _follows(page)
    for key, offered in zip(keys, options, strict=True):
        if st.session_state.get(key) not in (None, *offered):  # another model's layer or head: follow again
            del st.session_state[key]
            st.session_state[follows] = True
    if not any(key in st.session_state for key in keys):  # the first run here, or the page again after another
        st.session_state[follows] = not any(key in st.query_params for key in keys)
    teaching = _teaching(page, model, analysis, display) if st.session_state[follows] else None
    followed = (teaching.layer, teaching.head) if teaching is not None else (None, None)  # indices of the options
    for key, index in zip(keys, followed, strict=True):
        if index is not None and st.session_state.get(key) != index + 1:
            st.session_state[key] = index + 1
        elif index is None and key not in st.session_state and key not in st.query_params:
            st.session_state[key] = 1  # a link that names the layer alone opens on its first head, and so on
    chosen = []
    for column, label, offered, index, key in zip(
        st.columns(2), (_("Layer"), _("Head")), options, followed, keys, strict=True
    ):  # two columns, so that every label stays whole in presentation mode's larger type
        chosen.append(
            column.selectbox(
                label, offered, index=index, key=key, bind="query-params", on_change=_note_pick, args=(page, key)
            )
        )
    if teaching is not None:
        st.caption(teaching_caption(teaching))
    return (chosen[0] or 1) - 1, (chosen[1] or 1) - 1


def teaching_caption(teaching: TeachingHead) -> str:
    """Why the page opened on this head, in its numbers."""
    return _(
        "Opened on layer {layer}, head {head}: of the {heads} heads, its query–key map below explains the most words "
        "of this sentence ({explained} of {words}: each attends most to another word, and that word's key is the "
        "nearest to its query). Pick any head to look at another."
    ).format(
        layer=teaching.layer + 1,
        head=teaching.head + 1,
        heads=teaching.heads,
        explained=teaching.explained,
        words=teaching.words,
    )


def show_head_query_key_map(
    page: str, view: HeadView, analysis: Analysis, display: TokenDisplay, rtl: bool, *, position_bias: bool = False
) -> QueryKeyMap:
    """The map of a model's head over the words its heatmaps draw: a word read as several pieces is one point, its
    pieces' mean query and mean key, and its lines are the heatmap's pooled weights."""
    drawn = drawn_queries_keys(
        view.V1, view.V2, view.weights, analysis, whole_words=display.whole_words, show_special=display.show_special
    )
    return show_query_key_map(
        page,
        drawn.V1,
        drawn.V2,
        drawn.weights,
        word_labels(drawn.labels, drawn.known),
        rtl,
        position_bias=position_bias,
        pooled=drawn.pooled,
        special=drawn.special,
    )


def show_query_key_map(
    page: str,
    V1: torch.Tensor,
    V2: torch.Tensor,
    weights: torch.Tensor,
    labels: list[str],
    rtl: bool,
    *,
    position_bias: bool = False,
    pooled: bool = False,
    special: tuple[bool, ...] = (),
) -> QueryKeyMap:
    """The map of one head under a heading, the number of lines a word gets (in the URL), and its caption.
    position_bias: the head adds a learned bias B to its scores, which the map cannot show. pooled: some words are
    the mean of their pieces. special: which words are [CLS]/[SEP] (none when not given)."""
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
    figure = query_key_figure(qk, labels, rtl=rtl, translate=_)
    chart(figure, f"{page}_qk_map", table=False)
    hidden = figure.layout.meta["hidden"]
    st.caption(map_caption(qk, per_query, position_bias=position_bias, pooled=pooled, special=special, hidden=hidden))
    return qk


def map_caption(
    qk: QueryKeyMap,
    per_query: int,
    *,
    position_bias: bool = False,
    pooled: bool = False,
    special: tuple[bool, ...] = (),
    hidden: dict[str, int] | None = None,
) -> str:
    """What the map on screen shows, in its own numbers. hidden: the labels left off, on a narrow and a wide screen
    (the figure's meta)."""
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
    if pooled:
        parts.append(
            _(
                "As on the heatmaps, a word read as several pieces is one word here: its query and its key are the "
                "means of its pieces', and its lines follow the heatmap's whole-word weights."
            )
        )
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
    if special:  # a model's words: count those whose line the map gets right, [CLS] and [SEP] aside
        explained = explained_words(
            torch.tensor(qk.strongest), torch.tensor(qk.nearest), torch.tensor(special, dtype=torch.bool)
        )
        parts.append(
            _(
                "{explained} of the {words} words attend most to another word (not [CLS] or [SEP]) whose key is also "
                "the nearest to their query: those the map explains."
            ).format(explained=int(explained), words=n - sum(special))
        )
    if position_bias:
        parts.append(_("The head's position bias B, added to every score, is not on the map."))
    if hidden and any(hidden.values()):
        parts.append(
            _(
                "Labels left off the map so that none overlaps another: {wide} on a wide screen, {narrow} on a narrow "
                "one such as a phone; hover over or tap a point to read its word."
            ).format(wide=hidden["wide"], narrow=hidden["narrow"])
        )
    return " ".join(parts)
