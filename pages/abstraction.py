"""Abstraction: what the layers make of the words. A sentence's words, and pairs of texts, compared at every depth,
with attention and without."""

import streamlit as st

from attention_core.models.interface import AttentionModel
from attention_core.readings.sets import Language
from ui.abstraction.sentences import POOLED_COSINE, sets_language, show_probe, show_sentences
from ui.abstraction.view import BANK, PAGE, SENTENCE_KEY, show_attention_part, show_words, word_examples
from ui.controls import sentence_input
from ui.i18n import _
from ui.lessons.view import in_reading_order
from ui.models import chosen_model, my_model
from ui.navigation import ensure_app_frame
from ui.show import flag_model_cut
from ui.tour.guide import follows_tour

ensure_app_frame()

st.title(_("Abstraction: what the layers make of the words"))
st.markdown(
    _(
        "The article this app follows calls it very important: attention lets the higher layers work on relations, "
        "grammar and meaning rather than on raw words, as convolution lets a vision network's higher layers work on "
        "shapes rather than pixels. Here is its trace: how alike the words' vectors are at every depth, from the "
        "input V to the last layer's output, and the same with every head knocked out, so you can see what attention "
        "adds."
    )
)
sentence = sentence_input(PAGE, default=BANK)
word_examples()
if sentence is None:
    st.stop()
model = chosen_model(PAGE, sentence.rtl, sentence.tokens)
text = st.session_state[SENTENCE_KEY]
flag_model_cut(len(sentence.tokens), model.words_read(list(sentence.tokens)))


# Each view in a fragment: moving the depth or picking a word reruns only the words; editing the texts only them.
@st.fragment
@follows_tour
def words(model: AttentionModel, text: str, rtl: bool) -> None:
    show_words(model, text, rtl)


@st.fragment
def sentences(model: AttentionModel, language: Language, mine: bool) -> None:
    show_sentences(model, language, mine)


st.subheader(_("1 · Words, layer by layer"))
words(model, text, sentence.rtl)
st.subheader(_("2 · Texts, layer by layer"))
st.markdown(
    _(
        "Two texts, each pooled into one vector per depth (the mean of its words' vectors), and the cosine of the "
        "two: other words with the same meaning, the same words with another meaning, a paragraph that never names "
        "its topic against the topics."
    )
)
sentences(model, sets_language(model, sentence.rtl), model is my_model())
st.subheader(_("3 · Attention's part"))
show_attention_part(model, text)
st.subheader(_("4 · Arabic"))
st.markdown(
    in_reading_order(
        _(
            "Every view above works on the Arabic model: type an Arabic sentence or pick ذهب above (Arabic script "
            "chooses the Arabic model), or pick it in the sidebar. One more measurement, made once by a script: a "
            "linear probe trained on each layer's pooled vectors to tell a hadith's book or a sūra's revelation "
            "(Meccan or Medinan), with the topic's own words removed, scored on held-out lines."
        )
    )
)
show_probe()
st.subheader(_("5 · What pooled cosine can and cannot tell"))
st.markdown(_(POOLED_COSINE))
