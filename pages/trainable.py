"""Trainable attention: V1 = V·W1, V2 = V·W2, V3 = V·W3 and softmax(V1·V2ᵀ/√d)·V3, one head or many."""

import streamlit as st

from attention_core.attention import attend_heads, random_projections
from attention_core.figures import dimension_labels, heatmap, product_shape, weights_kind, word_labels
from ui.controls import embed, embedding_controls, sentence_input
from ui.navigation import ensure_app_frame
from ui.show import chart, flag_unknown_words, show_step

ensure_app_frame()

st.title("Trainable attention: three weight matrices W1, W2, W3")
st.markdown(
    "Embeddings are not perfect, so attention learns its own views of the sentence: **V1 = V·W1** (what a word "
    "looks for), **V2 = V·W2** (what it offers), **V3 = V·W3** (what it passes on). Others call them Q, K and V. "
    "Here the W's are random, as before training; switch each one off to see the identity, i.e. raw V·Vᵀ."
)

sentence = sentence_input("trainable")
choice = embedding_controls("trainable", sentence)
if "trainable_weight_seed" not in st.session_state:
    st.session_state["trainable_weight_seed"] = 0
w1_col, w2_col, w3_col, redraw_col = st.columns(4)
use_W1 = w1_col.toggle("W1 (query)", value=True, key="trainable_W1", bind="query-params", help="off = identity: V1 = V")
use_W2 = w2_col.toggle("W2 (key)", value=True, key="trainable_W2", bind="query-params", help="off = identity: V2 = V")
use_W3 = w3_col.toggle("W3 (value)", value=True, key="trainable_W3", bind="query-params", help="off = identity: V3 = V")
if redraw_col.button("Re-draw the weights", key="trainable_redraw"):
    st.session_state["trainable_weight_seed"] += 1
redraw_col.caption(f"weight seed {st.session_state['trainable_weight_seed']}")
scale_col, softmax_col, temperature_col, heads_col = st.columns(4)
scale = scale_col.toggle("Scale by 1/√d", value=True, key="trainable_scale", bind="query-params")
softmax = softmax_col.toggle("Softmax each row", value=True, key="trainable_softmax", bind="query-params")
temperature = temperature_col.slider(
    "Temperature",
    0.1,
    5.0,
    1.0,
    0.1,
    key="trainable_temperature",
    bind="query-params",
    help="Scores are divided by it: low = sharp attention, high = even.",
)
if sentence is None:
    st.stop()

embedded = embed(sentence, choice)
labels = word_labels(embedded.labels, embedded.known)
flag_unknown_words(embedded.labels, embedded.known)
V = embedded.V
n, d = V.shape
head_options = [h for h in (1, 2, 4, 8) if d % h == 0]
n_heads = heads_col.select_slider(
    "Number of heads",
    head_options,
    key="trainable_heads",
    bind="query-params",
    help="Heads must divide the width d: each head gets d / heads dimensions.",
)
d_h = d // n_heads
W1, W2, W3 = random_projections(d, st.session_state["trainable_weight_seed"])
heads = attend_heads(
    V,
    n_heads,
    W1 if use_W1 else None,
    W2 if use_W2 else None,
    W3 if use_W3 else None,
    scale=scale,
    softmax=softmax,
    temperature=temperature,
)
kind = weights_kind(softmax=softmax, cosine=False, scaled=scale, temperature=temperature)
rtl = sentence.rtl

if n_heads > 1:
    st.subheader(f"{n_heads} heads side by side")
    st.markdown(
        f"Head *h* uses columns *h·{d_h}* … *(h+1)·{d_h}* of each W: a smaller view in which it can "
        "learn its own rule of who attends to whom."
    )
    for row_start in range(0, n_heads, 4):
        columns = st.columns(4)
        for h in range(row_start, min(row_start + 4, n_heads)):
            chart(
                where=columns[h - row_start],
                figure=heatmap(
                    heads[h].weights,
                    labels,
                    labels,
                    kind=kind,
                    rtl=rtl,
                    title=f"head {h + 1}",
                    height=340,
                    compact=True,
                ),
                key=f"trainable_head_{h}",
            )
    head = (
        st.radio(
            "Look closer at head", range(1, n_heads + 1), horizontal=True, key="trainable_head", bind="query-params"
        )
        - 1
    )
else:
    head = 0
record = heads[head]
w = lambda name, on: rf"W_{name}" if on else "I"  # noqa: E731 — the formula shows I for an identity W
temperature_text = rf"\cdot {temperature:g}" if temperature != 1.0 else ""
root = rf"\sqrt{{{d_h}}}" if scale else ""

show_step(
    "1 · Scores: what each word looks for against what each word offers",
    rf"\text{{scores}} = \frac{{(V{w(1, use_W1)})(V{w(2, use_W2)})^\top}}{{{root or '1'}{temperature_text}}}",
    product_shape(record.V1, record.V2.T),
    "Row *i* compares word *i*'s V1 (query) with every word's V2 (key). With W1 and W2 both off this is "
    "the raw V·Vᵀ of the Similarity page.",
    heatmap(record.scores, labels, labels, kind="signed", rtl=rtl),
    "signed",
    "trainable_scores",
)
show_step(
    "2 · Weights",
    r"A = \mathrm{softmax}(\text{scores})" if softmax else r"A = \text{scores}",
    f"({n} × {n})",
    "Softmax turns each row into shares that sum to 1."
    if softmax
    else "Softmax is off: the scores are used as they are.",
    heatmap(record.weights, labels, labels, kind=kind, rtl=rtl),
    kind,
    "trainable_weights",
)
show_step(
    "3 · Output: each word as a mix of what the others pass on",
    rf"\text{{output}} = A\,(V{w(3, use_W3)})",
    product_shape(record.weights, record.V3),
    f"This is head {head + 1}'s output; the {n_heads} heads' outputs side by side make a ({n} × {d}) sentence again."
    if n_heads > 1
    else "The attended sentence, ready for the next layer.",
    heatmap(
        record.output, labels, dimension_labels(record.output.shape[1]), kind="signed", rtl=rtl, columns="dimensions"
    ),
    "signed",
    "trainable_output",
)
