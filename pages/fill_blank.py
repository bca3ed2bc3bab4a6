"""Fill the blank: the trained model guesses a hidden word, and the heatmap shows where the blank looked."""

import pandas as pd
import streamlit as st

from attention_core.figures.heatmaps import heatmap, word_labels
from attention_core.figures.screen import labels_every_word
from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.models.pretrained import PretrainedModel
from attention_core.story.text import MASK, Token, written
from ui.bidi import chip_row
from ui.causal import show_words_before_only
from ui.controls import sentence_input
from ui.examples import FILL_BLANK_EXAMPLES, FILL_BLANK_SENTENCE
from ui.fill_blank.decision import show_decision
from ui.fill_blank.quiz import CHOICES, guess_the_guess, hidden_word_key
from ui.fill_blank.short_text import short_sentence_caption
from ui.guess_view import quiz_first
from ui.i18n import N_, _, ngettext, reading_order
from ui.knock_out_view import knock_out_controls, show_blank_attention_change, show_guess_change, show_head_importance
from ui.markdown import plain
from ui.models import NO_ENGLISH_MASKED_MODEL, english_guesser, masked_word_model, what_the_model_can_guess
from ui.navigation import ensure_app_frame
from ui.reveal import quiz_asked
from ui.rollout_view import show_word_flow
from ui.screen import current_screen
from ui.show import chart, flag_model_cut, flag_unknown_words
from ui.tokens import TokenDisplay
from ui.tour.guide import follows_tour

ensure_app_frame()

INTRO = N_(
    "A masked-language model (the shipped Arabic one, or yours from the Train page) learned one game only: hide "
    "a word, guess it from the others. (The English MiniLM of the other pages was trained for sentence "
    "similarity and ships no masked-word head, so it cannot play here.) Hide a word of your "
    "sentence (or type `[MASK]`) and see its guesses. The only way the blank can learn about the other words is "
    "attention, so the heatmap below shows everything it used: how much each of its heads looked at each word."
)
INTRO_WITH_ENGLISH = N_(
    "A masked-language model learned one game only: hide a word, guess it from the others. Arabic: the model "
    "trained here. English: MiniLM, the model of the other pages, with a word-guessing head trained here on its "
    "final word vectors (MiniLM itself was trained for sentence similarity and ships none), so the heads you "
    "see are the ones that decide. Or yours, from the Train page. Hide a word of your sentence (or type "
    "`[MASK]`) and see its guesses. The only way the blank can learn about the other words is attention, so the "
    "heatmap below shows everything it used: how much each of its heads looked at each word."
)

INTRO_WITH_RETRAINED_ENGLISH = N_(
    "A masked-language model learned one game only: hide a word, guess it from the others. Arabic: the model "
    "trained here. English: MiniLM, the model of the other pages, with its six layers retrained here to play this "
    "game (it was trained for sentence similarity and had never seen a blank), so the heads you see are the ones "
    "that decide. Or yours, from the Train page. Hide a word of your sentence (or type `[MASK]`) and see its "
    "guesses. The only way the blank can learn about the other words is attention, so the heatmap below shows "
    "everything it used: how much each of its heads looked at each word."
)

st.title(_("Fill the blank: what the model learned by masking"))
# On a quiz link the question comes first, the introduction, sentence and settings folded below it (a phone
# would find the question screens down).
question_place, settings = quiz_first("fill_blank")
with settings:
    # What plays here: with the English guesser in place, MiniLM guesses English blanks too.
    guesser = english_guesser()
    intro = INTRO if guesser is None else INTRO_WITH_RETRAINED_ENGLISH if guesser.retrained else INTRO_WITH_ENGLISH
    st.markdown(_(intro))
    sentence = sentence_input("fill_blank", FILL_BLANK_SENTENCE, FILL_BLANK_EXAMPLES)
    if sentence is None:
        st.stop()
    model = masked_word_model("fill_blank", sentence.rtl)
    if model is None:  # English on automatic, and no model of the user's own: say so rather than guess Arabic words
        st.info(_(NO_ENGLISH_MASKED_MODEL))
        st.stop()
    # MiniLM reads some marks as nothing (a lone emoji variation selector, an Uthmani pause mark): left out here,
    # before a word is hidden, so the words the page shows, the hidden word and every column below stay aligned.
    typed = tuple(model.readable(list(sentence.tokens)) if isinstance(model, PretrainedModel) else sentence.tokens)
    tokens = list(typed)
    if not any(t.surface == MASK for t in tokens):
        choices = [i for i, t in enumerate(tokens) if t.is_word]
        if not choices:
            st.info(_("Type a sentence with at least one word to hide."))
            st.stop()
        # Pills tell options apart by their labels: a repeated word carries its place (the ·2, the ·5), or clicking
        # the second "the" would hide the first.
        repeated = {s for s in (tokens[i].surface for i in choices) if sum(tokens[j].surface == s for j in choices) > 1}
        # The key follows the sentence: a new sentence starts with its own last word hidden, not the old index. Bound
        # to the URL under that key, the hidden word is part of a shared link (the link's sentence gives the same key).
        hidden = chip_row(sentence.rtl).pills(
            _("Click a word to hide it"),
            choices,
            default=choices[-1],
            key=hidden_word_key(tokens),
            required=True,
            bind="query-params",
            format_func=lambda i: plain(
                f"{typed[i].surface} ·{i + 1}" if typed[i].surface in repeated else typed[i].surface
            ),
        )
        tokens[hidden] = Token(MASK, MASK, is_word=False)
    k = st.slider(_("How many guesses"), 1, 10, 5, key="fill_blank_k", bind="query-params")

blank = next(i for i, t in enumerate(tokens) if t.surface == MASK)
if blank >= model.max_words:
    st.warning(
        _(
            "The blank is word {place}, but the model reads only the first {most}: put the "
            "[MASK] earlier, or shorten the text."
        ).format(place=blank + 1, most=model.max_words)
    )
    st.stop()
analysis = model.analyze(tokens)
flag_model_cut(len(tokens), model.words_read(tokens))
flag_unknown_words(analysis.labels[1:], analysis.known[1:])
place = model.blank_position(list(analysis.tokens))  # among the model's tokens: [CLS] first, a word may be pieces
# Guess first: the model's guesses and everything that would give them away wait for the student's pick.
asked = (tuple(t.surface for t in tokens), model.name)
question = written(tokens)
# The switch itself stays under the settings until it is on: then the question is the page's first thing.
with question_place if quiz_asked("fill_blank") else st.container():
    revealed = guess_the_guess(model.guesses(analysis.final[place], CHOICES), asked, question, sentence.rtl)
if not revealed:
    st.stop()
rows, matrix = analysis.attention_from(place)
n_heads = analysis.weights.shape[1]
shown = [  # the rows' names as drawn; the figure's data keeps "layer 1 · head 1", which lessons point at
    _("layer {layer} · head {head}").format(layer=i // n_heads + 1, head=i % n_heads + 1) for i in range(len(rows))
]
labels = word_labels(analysis.labels, analysis.known)
looked = heatmap(matrix, rows, labels, kind="weights", rtl=sentence.rtl, shown_rows=shown)
# The guesses beside "where the blank looked", in a third of the page, or above it where two thirds would leave
# some of its words unlabelled (a projector's)
share = 2 / 3 if labels_every_word(looked, current_screen(), share=2 / 3) else 1.0
left, right = st.columns([1, 2]) if share < 1 else (st.container(), st.container())
with left:
    st.subheader(_("Its guesses"))
    guesses = pd.DataFrame(model.guesses(analysis.final[place], k), columns=["word", "probability"])
    st.dataframe(
        guesses,
        hide_index=True,
        column_order=reading_order(guesses.columns),
        column_config={
            "word": st.column_config.TextColumn(_("word")),
            "probability": st.column_config.ProgressColumn(
                _("probability"), min_value=0.0, max_value=1.0, format="%.3f"
            ),
        },
    )
    n_words = model.guessable_words
    st.caption(
        ngettext(
            "Probabilities of the model's softmax over its {n:,} word (each shown as it was most often "
            "written in training); a [MASK] stands for one whole word, and only the first blank is guessed.",
            "Probabilities of the model's softmax over its {n:,} words (each shown as it was most often "
            "written in training); a [MASK] stands for one whole word, and only the first blank is guessed.",
            n_words,
        ).format(n=n_words)
    )
with right:
    st.subheader(_("Where the blank looked"))
    st.latex(
        r"A^{(\ell,h)}_{\mathrm{blank},\,:} = \mathrm{softmax}\!\left(\frac{V1_{\mathrm{blank}}\,V2^\top}"
        r"{\sqrt{d_h}} + B\right)"
    )
    st.caption(
        _("Shapes: one row of each head's ({n} × {n}) attention, stacked: ({heads} heads × {n} words)").format(
            n=matrix.shape[1], heads=matrix.shape[0]
        )
    )
    chart(figure=looked, key="fill_blank_attention", share=share)
    st.caption(
        _(
            "Row = one head of one layer; each row is a softmax over the sentence and sums to 1. "
            "[CLS] is the start token every training sentence began with."
        )
    )
st.caption(what_the_model_can_guess(model))
if short_text := short_sentence_caption(model):
    st.caption(short_text)


# Switching heads off, in a fragment: picking heads reruns only this part.
@st.fragment
@follows_tour
def knock_out(model: MaskedWordModel, tokens: list[Token], analysis: Analysis, place: int, k: int, rtl: bool) -> None:
    """Heads switched off and what became of the guesses; `place`: the blank among the model's tokens."""
    st.subheader(_("Switch heads off"))
    removed, ablation = knock_out_controls("fill_blank", model, analysis, rtl)
    if removed:
        after = model.analyze(tokens, knock_out=removed, ablation=ablation)
        show_guess_change(model, analysis, after, removed, k)
        labels = word_labels(analysis.labels, analysis.known)
        show_blank_attention_change(analysis, after, place, rtl, labels, "fill_blank_knock_out")
    else:
        st.info(_("Pick heads above to switch them off and watch the guesses change, e.g. L1 H1."))
    show_head_importance("fill_blank", model, tokens, ablation, removed, rtl)


@st.fragment
def follow_the_blank(analysis: Analysis, blank: int, rtl: bool) -> None:
    st.subheader(_("Where the blank's information came from, layer by layer"))
    show_word_flow("fill_blank", analysis, TokenDisplay(whole_words=True, show_special=True), rtl, word=blank + 1)


show_decision("fill_blank", model, typed, tokens, analysis, sentence.rtl)
show_words_before_only("fill_blank", model, tokens, analysis, k)
knock_out(model, tokens, analysis, place, k, sentence.rtl)
follow_the_blank(analysis, blank, sentence.rtl)
