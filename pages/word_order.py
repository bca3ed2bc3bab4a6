"""Word order: the positional-encoding matrix, and a shuffle that shows what attention sees without it."""

import streamlit as st

from attention_core.attention import attend
from attention_core.figures import dimension_labels, heatmap, word_labels
from attention_core.positional import positional_encoding
from attention_core.text import ReadSentence
from attention_core.word_order import shuffle_effect, shuffled_order
from ui.controls import embed, embedding_controls, sentence_input
from ui.navigation import ensure_app_frame
from ui.show import chart, show_step

ensure_app_frame()

st.title("Word order: what positions add")
st.markdown(
    "V·Vᵀ compares words by their vectors only, so without positions *the dog bit the man* and *the man bit the "
    "dog* attend alike: a shuffle of the words only shuffles the attention with them. The sinusoidal positional "
    "encoding P (Vaswani et al., 2017) adds to each word a vector for its place, so order becomes visible."
)
sentence = sentence_input("order")
choice = embedding_controls("order")
if sentence is None:
    st.stop()
if "order_shuffle_seed" not in st.session_state:
    st.session_state["order_shuffle_seed"] = 1
if st.button("Shuffle the words", key="order_shuffle"):
    st.session_state["order_shuffle_seed"] += 1

embedded = embed(sentence, choice)
n, d = embedded.V.shape
labels = word_labels(embedded.labels, embedded.known)
show_step(
    "1 · The positional encoding",
    r"P_{pos,\,2i} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right),\quad"
    r" P_{pos,\,2i+1} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)",
    f"{n} positions × {d} dimensions",
    "Row *pos* is added to the word at that place. Each pair of columns is a clock turning at its own speed: "
    "fast on the left, slow on the right, so every position gets its own pattern.",
    heatmap(
        positional_encoding(n, d),
        [f"{i + 1}: {w}" for i, w in enumerate(embedded.labels)],
        dimension_labels(d),
        kind="sinusoid",
        rtl=sentence.rtl,
        columns="dimensions",
    ),
    "sinusoid",
    "order_pe",
)

order = shuffled_order(n, st.session_state["order_shuffle_seed"])
shuffled_tokens = tuple(sentence.tokens[i] for i in order)
shuffled = embed(ReadSentence(shuffled_tokens, n, sentence.limit, sentence.rtl), choice)
# Scaled similarities rather than softmax weights: with random vectors a word's softmax row is almost all on
# itself, which would hide how much the off-diagonal similarities move.
effect = shuffle_effect(attend(embedded.V).scores, attend(shuffled.V).scores, order)
shuffled_labels = [labels[i] for i in order]
st.subheader("2 · The same words, shuffled")
st.latex(r"S = \frac{V V^\top}{\sqrt{d}}" + (r",\quad V = E + P" if choice.use_position
                                                                            else r",\quad V = E"))  # fmt: skip
st.caption(f"Shapes: ({n} × {d})·({d} × {n}) = ({n} × {n}), three times: as typed, shuffled, and shuffled then put "
           "back in the typed order so the cells can be compared one by one")  # fmt: skip
typed, mixed, back = st.columns(3)
chart(where=typed, figure=heatmap(effect.original, labels, labels, kind="signed", rtl=sentence.rtl, title="as typed",
                           height=380, compact=True), key="order_typed")  # fmt: skip
chart(where=mixed, figure=heatmap(effect.shuffled, shuffled_labels, shuffled_labels, kind="signed", rtl=sentence.rtl,
                           title="shuffled", height=380, compact=True), key="order_shuffled")  # fmt: skip
chart(where=back, figure=heatmap(effect.restored, labels, labels, kind="signed", rtl=sentence.rtl,
                          title="shuffled, put back in order", height=380, compact=True), key="order_back")  # fmt: skip
st.metric("Largest change once the shuffle is undone", f"{effect.largest_change:.4f}")
if choice.use_position:
    st.markdown("With positions, each word carries the vector of its new place: the pattern really changes. "
                "Switch **Add positional encoding** off in the sidebar to see the change vanish.")  # fmt: skip
else:
    st.markdown("Without positions the change is zero (up to rounding): attention only moved with the words. "
                "It cannot see word order — which is why the encoding is added.")  # fmt: skip
