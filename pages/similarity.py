"""Similarity: a sentence V attends to itself through V·Vᵀ — attention before anything is trained."""

import streamlit as st

from attention_core.figures.heatmaps import dimension_labels, heatmap, product_shape, weights_kind, word_labels
from attention_core.story.attention import attend, causal_mask, similarity, unit_vectors
from ui.causal import CAUSAL_HELP, CAUSAL_NOTE
from ui.controls import embed, embedding_controls, sentence_input
from ui.guess_view import guess_first, guess_then_reveal, load_chart_code, quiz_first
from ui.i18n import N_, _
from ui.linked_options import translated_options
from ui.navigation import ensure_app_frame
from ui.progressive import first_heatmap
from ui.show import flag_unknown_words, show_step

ensure_app_frame()
load_chart_code("similarity")  # a phone loads the chart code early

st.title(_("Similarity: how the words of a sentence resemble each other"))
METRICS = [N_("dot"), N_("cosine")]  # in English as links and lessons name them (?similarity_metric=cosine)
question, about = quiz_first("similarity")  # a quiz link asks its question first
with about:
    st.markdown(
        _(
            "A sentence of *n* words is a matrix **V** (*n × d*): one vector per word, its embedding plus its "
            "position. The words relate through their similarities, the *n × n* matrix **V·Vᵀ**. Multiply that back "
            "into **V** and each word becomes a mix of the words it resembles. That mix *is* attention — before "
            "anything is trained."
        )
    )

    sentence = sentence_input("similarity")
    choice = embedding_controls("similarity", sentence)
    left, middle, right = st.columns(3)
    metric = left.radio(
        _("Similarity"),
        METRICS,
        format_func=translated_options("similarity_metric", METRICS),
        key="similarity_metric",
        bind="query-params",
        horizontal=True,
        help=_("cosine = dot product of the vectors scaled to length 1"),
    )
    scale = middle.toggle(_("Scale by 1/√d"), value=False, key="similarity_scale", bind="query-params")
    softmax = right.toggle(_("Softmax each row"), value=False, key="similarity_softmax", bind="query-params")
    # Full width: in a third of the page, presentation mode's larger type cut the label.
    causal = st.toggle(
        _("Only the words before"), value=False, key="similarity_causal", bind="query-params", help=_(CAUSAL_HELP)
    )
    quiz = guess_first("similarity")
if sentence is None:
    st.stop()

embedded = embed(sentence, choice)
labels = word_labels(embedded.labels, embedded.known)
flag_unknown_words(embedded.labels, embedded.known, in_v=True)
cosine = metric == "cosine"
# Cosine is the dot product of unit vectors, so the cosine story runs on the normalised sentence V̂.
V = unit_vectors(embedded.V) if cosine else embedded.V
n, d = V.shape
rtl = sentence.rtl
hat = r"\hat V" if cosine else "V"
S = similarity(embedded.V, "cosine" if metric == "cosine" else "dot")
attention = attend(V, scale=scale, softmax=softmax, mask=causal_mask(n) if causal else None)
kind = weights_kind(softmax=softmax, cosine=cosine, scaled=scale)
if quiz:
    with question:
        revealed = guess_then_reveal(
            "similarity", attention.weights[None], ["A"], labels, rtl, kind=kind, shares=softmax
        )
    if not revealed:
        st.stop()

with first_heatmap("similarity"):  # a phone paints this heatmap first, as a picture, then the rest
    show_step(
        heading=_("1 · The sentence as a matrix"),
        formula=(r"V = E + P" if choice.use_position else r"V = E")
        + (r",\quad \hat V = V / \lVert V \rVert" if cosine else ""),
        shape=_("{n} words × {d} dimensions = ({n} × {d})").format(n=n, d=d),
        explanation=_("Each row is one word: its vector E plus the position vector P of its place.")
        if choice.use_position
        else _("Each row is one word: its vector E, with no position: word order is invisible."),
        figure=heatmap(V, labels, dimension_labels(d), kind="signed", rtl=rtl, columns="dimensions"),
        key="similarity_V",
    )

show_step(
    heading=_("2 · Similarities between words"),
    formula=rf"S = {hat}\,{hat}^\top",
    shape=product_shape(V, V.T),
    explanation=_(
        "Cell (row *i*, column *j*) is how much word *i* resembles word *j*: large where their vectors point the "
        "same way. The matrix is symmetric: resemblance goes both ways."
    ),
    figure=heatmap(S, labels, labels, kind="cosine" if cosine else "signed", rtl=rtl),
    key="similarity_S",
)

scaled = r"\frac{S}{\sqrt{d}}" if scale else "S"
explanation = [
    _("Softmax turns each row into shares that sum to 1: how much of each word goes into the mix.")
    if softmax
    else _("Without softmax the weights are the similarities themselves, and can be any size."),
    *([_("Dividing by √d keeps dot products of wide vectors from swamping the softmax.")] if scale else []),
    *([_(CAUSAL_NOTE)] if causal else []),
]
show_step(
    heading=_("3 · Attention weights"),
    formula=rf"A = \mathrm{{softmax}}\left({scaled}\right)" if softmax else rf"A = {scaled}",
    shape=_("({n} × {n}), divided by √{d} = {root:.2f}").format(n=n, d=d, root=d**0.5) if scale else f"({n} × {n})",
    explanation=" ".join(explanation),
    figure=heatmap(attention.weights, labels, labels, kind=kind, rtl=rtl),
    key="similarity_A",
)

show_step(
    heading=_("4 · The attended sentence"),
    formula=rf"\text{{output}} = A\,{hat}",
    shape=product_shape(attention.weights, V),
    explanation=_(
        "Each word is now a weighted mix of the words it resembles. Higher layers work on these mixes — relations "
        "between words — as a vision network's higher layers work on shapes instead of pixels."
    ),
    figure=heatmap(attention.output, labels, dimension_labels(d), kind="signed", rtl=rtl, columns="dimensions"),
    key="similarity_output",
)
