"""The idea in one screen: a sentence is a matrix, its words relate through V·Vᵀ, attention mixes them."""

import streamlit as st

from attention_core.figures.heatmaps import heatmap
from attention_core.story.attention import attend
from attention_core.story.embeddings import embed_sentence
from attention_core.story.text import read_sentence
from ui.browser_memory import recalled, remember
from ui.examples import DEFAULT_SENTENCE
from ui.i18n import _
from ui.navigation import ensure_app_frame
from ui.show import chart
from ui.tour.guide import STEPS, start_tour

TOUR_OFFERED = "ae_tour_offered"  # the cookie that says this browser was offered the tour

ensure_app_frame()

st.title(_("What attention really is"))
# A newcomer's first visit: this browser was never offered the tour (kept for the session, so reruns keep it).
if st.session_state.setdefault("idea_first_visit", recalled(TOUR_OFFERED) is None):
    st.info(
        _(
            "New here? The tour walks you through the whole story below on your own sentence, one action per step, "
            "in about five minutes."
        ),
        icon=":material/waving_hand:",
    )
    remember(TOUR_OFFERED, "yes")
st.button(
    _("Take the tour: {n} steps on your own sentence").format(n=len(STEPS)),
    key="idea_tour",
    type="primary",
    on_click=start_tour,
    icon=":material/tour:",
    help=_("The story below, step by step on the real pages: each step asks you to do one thing."),
)
st.markdown(
    _("""
Forget *query*, *key* and *value* for a moment.

1. **A sentence is a matrix.** Each of its *n* words is a vector — its word embedding plus a positional
   encoding — so the sentence is a matrix **V** of size *n × d*.
2. **Words relate through their similarities.** The *n × n* matrix **V·Vᵀ** holds the dot product of every pair of
   words (their cosine, when the vectors are normalised).
3. **Attention is similarity times V.** The attended sentence **(V·Vᵀ)·V** turns each word into a mix of the words it
   resembles. Higher layers then work on relations, grammar and meaning instead of raw words — as convolution lets
   a vision network's higher layers work on shapes instead of pixels.
4. **Attention is trained too.** Embeddings are not perfect, so three weight matrices give new views of the sentence:
   V1 = V·W1, V2 = V·W2, V3 = V·W3, and attention = softmax(V1·V2ᵀ / √d)·V3. V1, V2, V3 are what others call
   **Q, K and V**.
5. **Many heads, many layers.** Several attentions side by side learn different rules; stacked layers learn more
   complex ones.
""")
)
st.subheader(_("The raw story on “{sentence}”: one-hot words, no training").format(sentence=DEFAULT_SENTENCE))
sentence = embed_sentence(list(read_sentence(DEFAULT_SENTENCE).tokens), "one-hot", use_position=False)
raw = attend(sentence.V, scale=False, softmax=False)
n, d = sentence.V.shape
st.latex(r"S = V\,V^\top")
st.caption(_("Shapes: ({n} × {d})·({d} × {n}) = ({n} × {n}): one row and one column per word").format(n=n, d=d))
chart(
    figure=heatmap(raw.weights, sentence.labels, sentence.labels, kind="signed", title="V·Vᵀ", height=360),
    key="idea_raw",
)
st.caption(
    _(
        "With one-hot vectors a word resembles only itself — “The” and “the” are one word, so they match. "
        "Real embeddings put similar words close together; try both on the next pages."
    )
)
st.page_link("pages/similarity.py", label=_("Similarity: V·Vᵀ on your own sentence"), icon="➡️")
st.page_link("pages/trainable.py", label=_("Trainable attention: W1, W2, W3 and many heads"), icon="➡️")
