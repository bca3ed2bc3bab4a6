"""Trainable attention: V1 = V·W1, V2 = V·W2, V3 = V·W3 and softmax(V1·V2ᵀ/√d)·V3, one head or many."""

import streamlit as st
import torch
from streamlit.delta_generator import DeltaGenerator

from attention_core.figures.heatmaps import (
    dimension_labels,
    heatmap,
    heatmap_grid,
    product_shape,
    weights_kind,
    word_labels,
)
from attention_core.story.trainable import (
    TrainableSettings,
    head_columns_text,
    input_symbol,
    scores_text,
    trainable_heads,
)
from ui.causal import CAUSAL_HELP, CAUSAL_NOTE
from ui.controls import embed, embedding_controls, sentence_input
from ui.guess_view import guess_first, guess_then_reveal, load_chart_code, quiz_first
from ui.i18n import N_, _, in_language, ngettext, say
from ui.navigation import ensure_app_frame
from ui.progressive import first_heatmap
from ui.query_key_view import show_query_key_map
from ui.show import chart, flag_unknown_words, show_step

ensure_app_frame()
load_chart_code("trainable")  # a phone loads the chart code early

st.title(_("Trainable attention: three weight matrices W1, W2, W3"))
HEAD = N_("head {head}")  # a head's name in the grid and the quiz (?trainable_quiz_head=head 2)


def _draw_new_weights() -> None:
    st.session_state["trainable_weight_seed"] = int(st.session_state.get("trainable_weight_seed", 0)) + 1


def _switch(where: DeltaGenerator, label: str, key: str, help: str) -> bool:
    """An on-by-default switch bound to the URL, as every switch of this page is."""
    return where.toggle(label, value=True, key=key, bind="query-params", help=help)


question, about = quiz_first("trainable")  # a quiz link asks its question first
with about:
    st.markdown(
        _(
            "Embeddings are not perfect, so attention learns its own views of the sentence: **V1 = V·W1** (what a "
            "word looks for), **V2 = V·W2** (what it offers), **V3 = V·W3** (what it passes on). Others call them Q, "
            "K and V. Here the W's are random, as before training; switch one off to use the identity in its place."
        )
    )

    sentence = sentence_input("trainable")
    choice = embedding_controls("trainable", sentence)

    # Three controls a row: at 1400 px in presentation mode, four to a row cut their labels.
    w1_col, w2_col, w3_col = st.columns(3)
    use_W1 = _switch(w1_col, _("W1 (query)"), "trainable_W1", _("off = identity: V1 = V"))
    use_W2 = _switch(w2_col, _("W2 (key)"), "trainable_W2", _("off = identity: V2 = V"))
    use_W3 = _switch(w3_col, _("W3 (value)"), "trainable_W3", _("off = identity: V3 = V"))
    norm_col, scale_col, softmax_col = st.columns(3)
    normalise = _switch(
        norm_col,
        _("Normalise V"),
        "trainable_normalise",
        _("As a layer reads it: each word's vector gets mean 0 and length √d."),
    )
    scale = _switch(
        scale_col,
        _("Scale by 1/√d"),
        "trainable_scale",
        _("Each head divides by the root of its own width: √(d / heads)."),
    )
    softmax = _switch(
        softmax_col, _("Softmax"), "trainable_softmax", _("Softmax each row: its weights become shares that sum to 1.")
    )
    temperature_col, heads_col, seed_col = st.columns(3)
    temperature = temperature_col.slider(
        _("Temperature"),
        0.1,
        5.0,
        1.0,
        0.1,
        key="trainable_temperature",
        bind="query-params",
        help=_("Scores are divided by it: low = sharp, high = even."),
    )
    seed = seed_col.number_input(
        _("Seed of the W's"),
        0,
        9999,  # no default value: it would fight the button's callback, which sets the seed (0 is the minimum)
        key="trainable_weight_seed",
        bind="query-params",
        help=_("The random W1, W2, W3 are drawn from it; it is in the link you share."),
    )
    seed_col.button(_("New W's"), key="trainable_redraw", on_click=_draw_new_weights, help=_("Re-draw the weights"))
    # Full width: in a third of the page, presentation mode's larger type cut the label.
    causal = st.toggle(
        _("Only the words before"), value=False, key="trainable_causal", bind="query-params", help=_(CAUSAL_HELP)
    )
    quiz = guess_first("trainable")
if sentence is None:
    st.stop()

embedded = embed(sentence, choice)
labels = word_labels(embedded.labels, embedded.known)
flag_unknown_words(embedded.labels, embedded.known, in_v=True)
n, d = embedded.V.shape
head_options = [h for h in (1, 2, 4, 8) if d % h == 0]
n_heads = heads_col.select_slider(
    _("Number of heads"),
    head_options,
    key="trainable_heads",
    bind="query-params",
    help=_("Heads must divide the width d: each head gets d / heads dimensions."),
)
settings = TrainableSettings(
    use_W1, use_W2, use_W3, normalise, scale, softmax, temperature, n_heads, int(seed), causal=causal
)
heads = trainable_heads(embedded.V, settings)
d_h = d // n_heads
kind = weights_kind(softmax=softmax, cosine=False, scaled=scale, temperature=temperature)
rtl = sentence.rtl


def head_names(lang: str) -> list[str]:
    return [in_language(lang, HEAD).format(head=h + 1) for h in range(n_heads)]


names = [_(HEAD).format(head=h + 1) for h in range(n_heads)]
if quiz:
    maps = torch.stack([h.weights for h in heads])
    with question:
        revealed = guess_then_reveal(
            "trainable", maps, names, labels, rtl, kind=kind, shares=softmax, names_in=head_names
        )
    if not revealed:
        st.stop()

if n_heads > 1:
    st.subheader(ngettext("{n} head side by side", "{n} heads side by side", n_heads).format(n=n_heads))
    st.markdown(
        _(
            "{columns} (of {V} itself where a W is off): a smaller view in which each head can learn its own rule of "
            "who attends to whom."
        ).format(columns=say(head_columns_text(d, n_heads)), V="V̂" if normalise else "V")
    )
    panels = torch.stack([h.weights for h in heads])[None]  # (1 row, heads, n, n): one figure, the page's width
    signed = frozenset() if softmax else frozenset((0, h) for h in range(n_heads))
    grid = heatmap_grid(panels, labels, row_names=[""], column_names=names, rtl=rtl, signed=signed, translate=_)
    chart(grid, "trainable_grid")
    head = (
        st.radio(
            _("Look closer at head"), range(1, n_heads + 1), horizontal=True, key="trainable_head", bind="query-params"
        )
        - 1
    )
else:
    head = 0
record = heads[head]
x = input_symbol(settings)
w = lambda name, on: rf"{x}W_{name}" if on else rf"{x}I"  # noqa: E731 — the formula shows I for an identity W
temperature_text = rf"\cdot {temperature:g}" if temperature != 1.0 else ""
root = rf"\sqrt{{{d_h}}}" if scale else ""

with first_heatmap("trainable"):  # a phone paints this heatmap first, as a picture, then the rest
    show_step(
        heading=_("1 · Scores: what each word looks for against what each word offers"),
        formula=rf"\text{{scores}} = \frac{{({w(1, use_W1)})({w(2, use_W2)})^\top}}{{{root or '1'}{temperature_text}}}",
        shape=product_shape(record.V1, record.V2.T),
        explanation=say(scores_text(settings, d, record))
        + (" " + _("Cells above the diagonal are blank: masked, their scores are −∞.") if causal else ""),
        figure=heatmap(record.scores, labels, labels, kind="signed", rtl=rtl),
        key="trainable_scores",
    )
weights_text = (
    _("Softmax turns each row into shares that sum to 1.")
    if softmax
    else _("Softmax is off: the scores are used as they are.")
)
show_step(
    heading=_("2 · Weights"),
    formula=r"A = \mathrm{softmax}(\text{scores})" if softmax else r"A = \text{scores}",
    shape=f"({n} × {n})",
    explanation=weights_text + (" " + _(CAUSAL_NOTE) if causal else ""),
    figure=heatmap(record.weights, labels, labels, kind=kind, rtl=rtl),
    key="trainable_weights",
)
show_step(
    heading=_("3 · Output: each word as a mix of what the others pass on"),
    formula=rf"\text{{output}} = A\,({w(3, use_W3)})",
    shape=product_shape(record.weights, record.V3),
    explanation=(
        _(
            "This is head {head}'s output; the {heads} heads' outputs side by side make a ({n} × {d}) sentence again."
        ).format(head=head + 1, heads=n_heads, n=n, d=d)
        if n_heads > 1
        else _("The attended sentence, ready for the next layer.")
    ),
    figure=heatmap(
        record.output, labels, dimension_labels(record.output.shape[1]), kind="signed", rtl=rtl, columns="dimensions"
    ),
    key="trainable_output",
)
show_query_key_map("trainable", record.V1, record.V2, record.weights, labels, rtl)
