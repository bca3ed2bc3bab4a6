"""Multi-head attention of the trained model: every layer and head, one head taken apart, raw vs trained."""

import streamlit as st
import torch

from attention_core.figures.heatmaps import dimension_labels, heatmap, product_shape, word_labels
from attention_core.figures.numbers import written_alone
from attention_core.head_names import head_name
from attention_core.models.head_view import compare_with_raw, explain_cell, head_view
from attention_core.models.interface import Analysis, AttentionModel, MaskedWordModel
from attention_core.story.text import MASK, Token
from ui.controls import sentence_input
from ui.guess_view import guess_first, guess_then_reveal, load_chart_code, quiz_first
from ui.head_grid import head_grid
from ui.head_roles_view import show_head_roles
from ui.i18n import N_, _
from ui.knock_out_view import (
    knock_out_controls,
    show_attention_change,
    show_guess_change,
    show_head_importance,
)
from ui.linked_options import translated_options
from ui.markdown import plain
from ui.models import chosen_model
from ui.navigation import ensure_app_frame
from ui.progressive import first_heatmap
from ui.query_key_view import head_picker, show_head_query_key_map
from ui.rollout_view import show_word_flow
from ui.show import chart, flag_model_cut, flag_unknown_words, show_step, strip_of_panels
from ui.tokens import TokenDisplay, drawn_attention, say_how_tokens_are_drawn, token_display
from ui.tour.guide import follows_tour

ensure_app_frame()
load_chart_code("heads")  # a phone loads the chart code early

st.title(_("Multi-head attention: what the trained heads learned"))
question, about = quiz_first("heads")  # a quiz link asks its question first
with about:
    st.markdown(
        _(
            "A trained model has layers of heads (English MiniLM: 6 layers of 12, pretrained; the shipped Arabic "
            "model: 3 layers of 4). Each head learned its own W1, W2, W3 (others say Q, K, V) and so its own rule of "
            "who looks at whom. Switch a head's W's back to the identity to see how much of its pattern is learned, "
            "and compare with the raw V·Vᵀ of the same words."
        )
    )
    sentence = sentence_input("heads")
    if sentence is None:
        st.stop()
    model = chosen_model("heads", sentence.rtl, sentence.tokens)
    display = token_display("heads", model)
    tokens = list(sentence.tokens)
    analysis = model.analyze(tokens)
    flag_model_cut(len(tokens), model.words_read(tokens))
    flag_unknown_words(*analysis.pieces.typed_words())
    n_layers, n_heads = analysis.weights.shape[:2]
    rtl = sentence.rtl

    grid_weights, labels = drawn_attention(analysis.weights, analysis, display)
    if not labels:
        st.info(_("Nothing left to draw: the model read no word of this text besides [CLS] and [SEP]."))
        st.stop()
    say_how_tokens_are_drawn(analysis, display)
    quiz = guess_first("heads")
if quiz:
    names = [head_name(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    with question:
        revealed = guess_then_reveal("heads", grid_weights.flatten(0, 1), names, labels, rtl)
    if not revealed:
        st.stop()
st.subheader(_("Every layer and head"))
st.latex(
    r"A^{(\ell,h)} = \mathrm{softmax}\!\left(\frac{(xW_1^{h})(xW_2^{h})^\top}{\sqrt{d_h}}"
    + (r" + B^{h}\right)" if model.has_position_bias else r"\right)")
)
st.caption(
    _(
        "Shapes: {layers} layers × {heads} heads, each ({n} × {n}); x is what the layer reads. Each head is its own "
        "view: its own W1, W2 (what others call Q and K) decide who looks at whom."
    ).format(layers=n_layers, heads=n_heads, n=len(labels))
)
with first_heatmap("heads"):  # a phone paints this grid first, as a picture, then the rest
    head_grid(grid_weights, labels, rtl, "heads_grid")

# The three views, in English as links, lessons and benchmarks name them (?heads_view=Knock heads out), shown
# translated.
ONE_HEAD, KNOCK_OUT, FLOW = N_("One head, taken apart"), N_("Knock heads out"), N_("Follow a word through the layers")
VIEWS = [ONE_HEAD, KNOCK_OUT, FLOW]
view = st.segmented_control(
    _("Look closer"),
    VIEWS,
    format_func=translated_options("heads_view", VIEWS),
    default=ONE_HEAD,
    key="heads_view",
    bind="query-params",
    required=True,
)
if view != KNOCK_OUT:  # knocking heads out has its own map of the roles, to click
    show_head_roles(analysis, rtl, "heads_roles")


BIAS_NOTE = N_("B is the head's learned bias for each distance between words.")
NO_BIAS_NOTE = N_("This model has no bias B: its positions were added to the words once, before the first layer.")
RAW, THIS_HEAD = N_("raw"), N_("this head")


# One head taken apart, in a fragment: switching W1/W2/W3, the layer, the head or the cell reruns only this part,
# not the grid above (which depends on the sentence alone).
@st.fragment
@follows_tour
def one_head(model: AttentionModel, tokens: list[Token], analysis: Analysis, display: TokenDisplay, rtl: bool) -> None:
    has_bias = model.has_position_bias
    layer, head = head_picker("heads", model, analysis, display)  # opens on the head whose query–key map teaches
    w1, w2, w3 = st.columns(3)
    use_W1 = w1.toggle(
        _("trained W1"), value=True, key="heads_W1", bind="query-params", help=_("off: V1 = the head's slice of x")
    )
    use_W2 = w2.toggle(
        _("trained W2"), value=True, key="heads_W2", bind="query-params", help=_("off: V2 = the head's slice of x")
    )
    use_W3 = w3.toggle(
        _("trained W3"), value=True, key="heads_W3", bind="query-params", help=_("off: V3 = the head's slice of x")
    )
    view = head_view(model, tokens, layer, head, use_W1=use_W1, use_W2=use_W2, use_W3=use_W3, inputs=analysis.inputs)
    weights, labels = drawn_attention(view.weights, analysis, display)
    d_h = view.V1.shape[1]
    w = lambda i, on: rf"(xW_{i} + b_{i})" if on else "x"  # noqa: E731 — the formula shows x for an identity W
    shape = product_shape(view.V1, view.V2.T)
    if has_bias:
        shape = _("{shape}, plus the head's position bias B ({n} × {n})").format(shape=shape, n=len(view.x))
    if model.reads_word_pieces:
        shape = _("{shape} (word pieces)").format(shape=shape)
    show_step(
        heading=_("Layer {layer}, head {head}").format(layer=layer + 1, head=head + 1),
        formula=rf"A = \mathrm{{softmax}}\!\left(\frac{{{w(1, use_W1)}\,{w(2, use_W2)}^\top}}{{\sqrt{{{d_h}}}}}"
        + (r" + B\right)" if has_bias else r"\right)"),
        shape=shape,
        explanation=_("x is what this layer reads (normalised).") + " " + _(BIAS_NOTE if has_bias else NO_BIAS_NOTE),
        figure=heatmap(weights, labels, labels, kind="weights", rtl=rtl),
        key="heads_picked",
    )

    st.subheader(_("Raw V·Vᵀ against the trained head"))
    raw = compare_with_raw(view)[0]
    raw = drawn_attention(raw, analysis, display)[0]
    panels = torch.stack([raw, weights, weights - raw])  # one figure: raw | this head | their difference
    strip_of_panels(panels, labels, [RAW, THIS_HEAD, N_("head − raw")], rtl, "heads_raw", signed=frozenset({2}))
    st.caption(
        _(
            "raw = softmax(x·xᵀ/√d) of the same layer input; in head − raw, blue is where the head looks more, red "
            "less. Raw similarity makes every word look mostly at itself; the trained head looks elsewhere on purpose."
        )
    )

    show_head_query_key_map("heads", view, analysis, display, rtl, position_bias=has_bias)  # words, as the heatmaps

    labels = word_labels(analysis.labels, analysis.known)  # a cell is over the model's own tokens

    st.subheader(_("One cell, explained"))
    if analysis.pieces.splits_words:
        st.caption(_("Here every row and column is one word piece: a whole word's cell mixes several of these."))
    query_col, key_col = st.columns(2)
    i = query_col.selectbox(_("Row word (query)"), range(len(labels)), format_func=labels.__getitem__, key="heads_i")
    j = key_col.selectbox(_("Column word (key)"), range(len(labels)), format_func=labels.__getitem__, key="heads_j")
    cell = explain_cell(view, i, j)
    chart(
        figure=heatmap(
            cell.vectors,
            [_("V1 of {word}").format(word=labels[i]), _("V2 of {word}").format(word=labels[j])],
            dimension_labels(d_h),
            kind="signed",
            columns="dimensions",
            height=220,
        ),
        key="heads_pair",
    )
    bias = rf" + B_{{{i},{j}}}" if has_bias else ""
    st.latex(
        rf"\frac{{V1_{{{i}}}\cdot V2_{{{j}}}}}{{\sqrt{{{d_h}}}}}{bias}"
        rf" = \frac{{{cell.dot:.3f}}}{{{cell.root:.2f}}}"
        + (f" {cell.bias:+.3f}" if has_bias else "")
        + rf" = {cell.score:.3f}"
    )
    st.caption(
        _("After the softmax of row {word}, this cell's weight is {weight}.").format(
            word=plain(labels[i]), weight=written_alone(cell.weight)
        )
    )


# Knocking heads out, in a fragment: picking heads reruns only this part.
@st.fragment
@follows_tour
def knock_out(model: AttentionModel, tokens: list[Token], analysis: Analysis, display: TokenDisplay, rtl: bool) -> None:
    removed, ablation = knock_out_controls("heads", model, analysis, rtl)
    if removed:
        after = model.analyze(tokens, knock_out=removed, ablation=ablation)
        if isinstance(model, MaskedWordModel) and any(t.norm == MASK for t in analysis.tokens):
            st.markdown(_("**The guesses for the [MASK], with every head and without the knocked-out ones**"))
            show_guess_change(model, analysis, after, removed, k=5)
        show_attention_change(analysis, after, removed, display, rtl, "heads")
    else:
        st.info(_("Pick one or more heads above to switch them off and see what changes in the layers above them."))
    show_head_importance("heads", model, tokens, ablation, removed, rtl)


@st.fragment
def follow_a_word(analysis: Analysis, display: TokenDisplay, rtl: bool) -> None:
    show_word_flow("heads", analysis, display, rtl)


if view == KNOCK_OUT:
    knock_out(model, tokens, analysis, display, rtl)
elif view == FLOW:
    follow_a_word(analysis, display, rtl)
else:
    one_head(model, tokens, analysis, display, rtl)
