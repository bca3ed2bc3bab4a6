"""Word order: the positional-encoding matrix, and a shuffle that shows what attention sees without it."""

from dataclasses import replace

import streamlit as st

from attention_core.figures.heatmaps import dimension_labels, heatmap, word_labels
from attention_core.figures.numbers import number_format, reads_zero, written, written_alone
from attention_core.figures.screen import panels_across
from attention_core.story.attention import attend
from attention_core.story.text import ReadSentence
from attention_core.story.word_order import shuffle_effect
from ui.controls import embed, embedding_controls, sentence_input
from ui.i18n import _
from ui.markdown import plain
from ui.navigation import ensure_app_frame
from ui.screen import current_screen
from ui.show import chart, show_step
from ui.word_order.controls import reorder_controls

ensure_app_frame()

st.title(_("Word order: what positions add"))
st.markdown(
    _(
        "V·Vᵀ compares words by their vectors only, so without positions *the dog bit the man* and *the man bit the "
        "dog* attend alike: a shuffle of the words only shuffles the attention with them. The sinusoidal positional "
        "encoding P (Vaswani et al., 2017; MiniLM learned its own) adds to each word a vector for its place, so "
        "order becomes visible."
    )
)
sentence = sentence_input("word_order")
choice = embedding_controls("word_order", sentence, pieces=False)
if sentence is None:
    st.stop()
embedded = embed(sentence, choice)
n, d = embedded.V.shape
labels = word_labels(embedded.labels, embedded.known)
order, reordering = reorder_controls(labels)
# P is what the positions add to the words, read off the sentence itself: the sinusoidal table for random, one-hot
# and our trained vectors, MiniLM's learned table for its own vectors.
positioned = embedded if choice.use_position else embed(sentence, replace(choice, use_position=True))
P = positioned.V - positioned.words
if positioned.learned_positions:
    formula, explanation = (
        r"P_{pos} = T_{pos}",  # no words in the formula: the explanation names T, in the reader's language
        _(
            "MiniLM learned its own position vectors in pretraining: a table T, one row of 384 numbers per place "
            "([CLS] takes place 0). Row *pos* of T is added to the word at that place; a word of several pieces gets "
            "the mean of their rows. Neighbouring places learned similar rows."
        ),
    )
else:
    formula = (
        r"P_{pos,\,2i} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right),\quad"
        r" P_{pos,\,2i+1} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)"
    )
    explanation = _(
        "Row *pos* is added to the word at that place. Each pair of columns is a clock turning at its own speed: "
        "fast on the left, slow on the right, so every position gets its own pattern."
    )
show_step(
    heading=_("1 · The positional encoding"),
    formula=formula,
    shape=_("{n} positions × {d} dimensions").format(n=n, d=d),
    explanation=explanation,
    figure=heatmap(
        P,
        [f"{i + 1}: {w}" for i, w in enumerate(embedded.labels)],
        dimension_labels(d),
        kind="signed" if positioned.learned_positions else "sinusoid",
        rtl=sentence.rtl,
        columns="dimensions",
    ),
    key="word_order_pe",
)

# The tokens that got a row: MiniLM leaves out a word its tokenizer reads as nothing.
shuffled_tokens = tuple(embedded.tokens[i] for i in order)
shuffled = embed(ReadSentence(shuffled_tokens, n, sentence.limit, sentence.rtl), choice)
# Scaled similarities rather than softmax weights: with random vectors a word's softmax row is almost all on
# itself, which would hide how much the off-diagonal similarities move.
effect = shuffle_effect(attend(embedded.V).scores, attend(shuffled.V).scores, order)
shuffled_labels = [labels[i] for i in order]
st.subheader(_("2 · The same words, reordered: {how}").format(how=plain(reordering)))
st.latex(r"S = \frac{V V^\top}{\sqrt{d}}" + (r",\quad V = E + P" if choice.use_position else r",\quad V = E"))
st.caption(
    _(
        "Shapes: ({n} × {d})·({d} × {n}) = ({n} × {n}), three times: as typed, reordered, and reordered then put "
        "back in the typed order so the cells can be compared one by one"
    ).format(n=n, d=d)
)
# Side by side in thirds, or one under another where a third would leave words unlabelled (a projector's)
share = 1 / 3 if panels_across(current_screen(), n, share=1 / 3) else 1.0
typed, mixed, back = st.columns(3) if share < 1 else (st.container(), st.container(), st.container())
chart(
    where=typed,
    figure=heatmap(
        effect.original, labels, labels, kind="signed", rtl=sentence.rtl, title=_("as typed"), height=380, compact=True
    ),
    key="word_order_typed",
    share=share,
)
chart(
    where=mixed,
    figure=heatmap(
        effect.shuffled,
        shuffled_labels,
        shuffled_labels,
        kind="signed",
        rtl=sentence.rtl,
        title=_("reordered"),
        height=380,
        compact=True,
    ),
    key="word_order_shuffled",
    share=share,
)
chart(
    where=back,
    figure=heatmap(
        effect.restored,
        labels,
        labels,
        kind="signed",
        rtl=sentence.rtl,
        title=_("reordered, put back in order"),
        height=380,
        compact=True,
    ),
    key="word_order_back",
    share=share,
)
st.markdown(
    _("**Put back − as typed** ({how})").format(how=plain(reordering))
)  # above the chart: its top holds the words
chart(heatmap(effect.difference, labels, labels, kind="signed", rtl=sentence.rtl), "word_order_difference")
# Said from the numbers as the map writes them (figures/numbers.py): "all white" only when every cell reads 0.
spec = number_format(effect.difference)
unchanged = reads_zero(effect.difference, spec)
largest, typed_top = written(effect.largest_change, spec), written_alone(float(effect.original.abs().max()))
st.caption(
    _(
        "What the reordering changed, cell by cell, once the words are back in their typed places: blue where the "
        "reordered sentence's words resemble each other more, red less."
    )
    + " "
    + (
        _("All white: every cell reads 0, so attention only moved with the words.")
        if unchanged
        else _(
            "The colours run to ±{largest}, the largest change: {share}% of the largest score as typed ({typed}), "
            "so a small change is coloured strongly too."
        ).format(
            largest=largest,
            share=written_alone(100 * effect.largest_change / float(effect.original.abs().max())),
            typed=typed_top,
        )
    )
)
st.metric(_("Largest change once the shuffle is undone"), largest)
if choice.use_position and positioned.learned_positions:
    st.markdown(
        _(
            "With positions, each word carries the vector of its new place, so the pattern changes — but only a "
            "little: MiniLM's position vectors are shorter than its word vectors and much alike (neighbouring "
            "places: cosine about 0.85), so a word's vector barely moves. Its trained heads make much more of "
            "them (see the lesson *A head that reads the word before*). Switch **Add positional encoding** off "
            "in the sidebar to see even this change vanish."
        )
    )
elif choice.use_position:
    st.markdown(
        _(
            "With positions, each word carries the vector of its new place: the pattern really changes. "
            "Switch **Add positional encoding** off in the sidebar to see the change vanish."
        )
    )
elif unchanged:
    st.markdown(
        _(
            "Without positions the change is zero: attention only moved with the words. "
            "It cannot see word order — which is why the encoding is added."
        )
    )
