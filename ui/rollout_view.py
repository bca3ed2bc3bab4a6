"""Follow one word through the layers: each layer's own attention, or attention rollout (all layers combined), as
a "river" of one row per layer over the sentence's words."""

from __future__ import annotations

import streamlit as st

from attention_core.figures.heatmaps import heatmap
from attention_core.models.interface import Analysis
from attention_core.story.rollout import attention_rollout
from ui.bidi import isolate
from ui.i18n import N_, _
from ui.linked_options import translated_options
from ui.markdown import plain
from ui.show import chart
from ui.tokens import TokenDisplay, drawn_attention, place_names

# The two views, in English as links, lessons and benchmarks name them (?heads_flow=…), shown translated.
THIS_LAYER, COMBINED = N_("this layer (the heads' mean)"), N_("all layers combined (rollout)")
CAVEAT = N_(
    "Attention is not the whole explanation: the feed-forward layers and each head's W3 and output projection "
    "also move and transform information, and neither view sees them (Jain & Wallace 2019; Abnar & Zuidema 2020)."
)


def show_word_flow(page: str, analysis: Analysis, display: TokenDisplay, rtl: bool, word: int | None = None) -> None:
    """The river for one word: the student picks the word (or `word`, an index into the drawn labels, is fixed,
    e.g. the blank) and the view: each layer's own attention, or everything gathered up to it (rollout)."""
    mode = st.radio(
        _("Where the word's information came from"),
        [THIS_LAYER, COMBINED],
        format_func=translated_options(f"{page}_flow", [THIS_LAYER, COMBINED]),
        key=f"{page}_flow",
        bind="query-params",
        horizontal=True,
        help=_(
            "this layer: the row of the heads' mean attention in each layer. all layers combined: attention "
            "rollout: per layer the heads' mean, mixed half-and-half with the word itself (the residual path), "
            "multiplied from the first layer up."
        ),
    )
    per_layer = analysis.weights.mean(dim=1) if mode == THIS_LAYER else attention_rollout(analysis.weights)
    rows, labels = drawn_attention(per_layer, analysis, display)  # (n_layers, n, n) over the drawn words
    if word is None:
        # Offered by name, never by place: a new sentence keeps the word while it has it, and Streamlit puts the box
        # back on its default when it does not (a kept place would name another word than the box shows).
        names = place_names(labels)  # the URL keeps the shown name
        first_word = next((i for i, label in enumerate(labels) if label not in ("[CLS]", "[SEP]")), 0)
        word = names.index(
            st.selectbox(_("Word to follow"), names, index=first_word, key=f"{page}_flow_word", bind="query-params")
        )
    # Rows named in English for the figure's data (a lesson outlines the cell of row "layer 3"), drawn translated.
    layers = [f"layer {layer + 1}" for layer in range(len(rows))]
    shown = [_("layer {layer}").format(layer=layer + 1) for layer in range(len(rows))]
    height = 150 + 45 * len(layers)
    figure = heatmap(rows[:, word, :], layers, labels, kind="weights", rtl=rtl, height=height, shown_rows=shown)
    chart(figure, f"{page}_river")
    name = isolate(plain(labels[word]))
    if mode == THIS_LAYER:
        st.caption(
            _(
                "Row ℓ: how much {word} read each word in layer ℓ, averaged over the layer's heads. Each row sums to 1."
            ).format(word=name)
        )
    else:
        st.caption(
            _(
                "Row ℓ: how much of what {word} holds after layer ℓ came from each word of the input, through every "
                "path of layers 1 to ℓ (each layer: ½ the heads' mean + ½ the word itself, then the layers "
                "multiplied). Each row sums to 1; the word's own share falls as the layers mix in the others."
            ).format(word=name)
        )
    st.caption(_(CAVEAT))
