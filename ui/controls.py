"""Controls that several pages share: the sentence box with its examples, and the embedding choice."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention_core.models.interface import AttentionModel
from attention_core.story.embeddings import EmbeddingKind, Sentence, embed_sentence
from attention_core.story.text import MAX_TOKENS, READABLE_TOKENS, ReadSentence, read_sentence
from ui.bidi import isolate_arabic
from ui.examples import DEFAULT_SENTENCE, EXAMPLES
from ui.i18n import N_, _
from ui.lessons.view import show_where_to_look, start_lesson
from ui.linked_options import translated_options
from ui.models import AUTOMATIC as AUTOMATIC_MODEL
from ui.models import chosen_model
from ui.reveal import quiz_asked
from ui.show import flag_model_cut
from ui.tokens import TokenDisplay, token_display

# The sentence follows the user from page to page: widget state is dropped when a page stops drawing the
# widget, so the text is also kept under a plain session key that no widget owns.
_KEPT = "kept_sentence"


def _keep_sentence(widget_key: str) -> None:
    st.session_state[_KEPT] = st.session_state[widget_key]


def _use_example(widget_key: str, pills_key: str, examples: dict[str, str]) -> None:
    choice = st.session_state[pills_key]
    if choice:
        st.session_state[widget_key] = examples[choice]
        st.session_state[_KEPT] = examples[choice]
    st.session_state[pills_key] = None


def sentence_input(
    page: str, default: str = DEFAULT_SENTENCE, examples: dict[str, str] = EXAMPLES
) -> ReadSentence | None:
    """The sentence box and example buttons; returns the read sentence, or None (after saying why) if empty.
    `default` is the first sentence of a session that brings none from another page; `examples` the chips a page
    offers (a subset of EXAMPLES: those it can answer). A lesson link
    (ui/lessons/view.py) first puts the page in the lesson's clean state, and is then named with where to look."""
    widget_key, pills_key = f"{page}_sentence", f"{page}_example"
    lesson = start_lesson(page, AUTOMATIC_MODEL, _KEPT)  # automatic: every lesson's script picks its model (tested)
    if widget_key not in st.session_state:  # a shared link's sentence wins over the one kept from another page
        if widget_key not in st.query_params:
            # Into the URL as well: a sentence carried over from another page is part of the view a link shares.
            # (Set before the box is bound to the URL: Streamlit writes a value set in code there only later.)
            st.query_params[widget_key] = st.session_state.get(_KEPT, default)
        st.session_state[widget_key] = st.query_params[widget_key]
    st.text_input(
        _("Your sentence (any language; Arabic reads right to left)"),
        key=widget_key,
        on_change=_keep_sentence,
        args=(widget_key,),
        max_chars=6000,
        bind="query-params",
    )
    st.pills(
        _("Examples"),
        list(examples),
        key=pills_key,
        on_change=_use_example,
        args=(widget_key, pills_key, examples),
        format_func={example: isolate_arabic(_(example)) for example in examples}.__getitem__,
    )
    show_where_to_look(lesson, st.session_state[widget_key], quiz=quiz_asked(page))
    sentence = read_sentence(st.session_state[widget_key], MAX_TOKENS)
    if sentence.is_empty:
        st.info(_("Type a sentence above, or pick an example, to see how its words attend to each other."))
        return None
    if sentence.was_cut:
        st.warning(
            _("Your text has {typed:,} words and marks; only the first {limit} are shown.").format(
                typed=sentence.n_typed, limit=sentence.limit
            )
        )
    if len(sentence.tokens) > READABLE_TOKENS:
        st.info(
            _(
                "A long text: the heatmaps label every few words (all {n} are in each matrix; hover a cell for its "
                "row and column, or download the CSV for every label)."
            ).format(n=len(sentence.tokens))
        )
    return sentence


# Where the word vectors come from: in English as links, lessons and tests name them (?similarity_embedding=random),
# shown translated.
AUTOMATIC, TRAINED = N_("automatic"), N_("trained model")
SOURCES = [AUTOMATIC, TRAINED, N_("random"), N_("one-hot")]


@dataclass(frozen=True)
class EmbeddingChoice:
    source: str  # one of SOURCES but "automatic": resolved for the sentence once, in embedding_controls
    d: int
    seed: int
    use_position: bool
    model: AttentionModel  # the page's model: English MiniLM, the shipped Arabic one, or the user's own
    whole_words: bool = True  # a word read as several pieces is one row (the mean of its pieces), or one per piece


def resolved_source(source: str, known_share: float | None) -> str:
    """What "automatic" means for a sentence of which the model has learned vectors for `known_share` of the words
    (None: no sentence): the model's vectors when it knows at least half of them (English for MiniLM, Arabic for
    the Arabic model), seeded random ones otherwise."""
    if source != AUTOMATIC:
        return source
    return TRAINED if known_share is not None and known_share >= 0.5 else "random"


def embed(sentence: ReadSentence, choice: EmbeddingChoice) -> Sentence:
    """The sentence as V from the chosen source."""
    tokens = list(sentence.tokens)
    if choice.source == TRAINED:
        flag_model_cut(len(tokens), choice.model.words_read(tokens))
        return choice.model.sentence(tokens, choice.use_position, choice.whole_words)
    kind: EmbeddingKind = "one-hot" if choice.source == "one-hot" else "random"  # the two SOURCES left
    return embed_sentence(tokens, kind, d=choice.d, seed=choice.seed, use_position=choice.use_position)


def embedding_controls(page: str, sentence: ReadSentence | None, *, pieces: bool = True) -> EmbeddingChoice:
    """Which model, where the word vectors come from, their width, and whether positions are added (sidebar).
    pieces=False keeps a word-piece model's words whole, with no switch (a page that shuffles typed words)."""
    model = chosen_model(page, sentence.rtl if sentence is not None else False, sentence.tokens if sentence else ())
    sidebar = st.sidebar
    sidebar.subheader(_("Word vectors"))
    kind = sidebar.radio(
        _("Source"),
        SOURCES,
        format_func=translated_options(f"{page}_embedding", SOURCES),
        key=f"{page}_embedding",
        bind="query-params",
        help=_(
            "automatic: the model's own vectors when it knows at least half of the words (English for MiniLM, "
            "Arabic for the Arabic model), random ones otherwise. "
            "trained model: the model's learned word vectors (MiniLM's are 384 wide, the Arabic model's 128; "
            "pick the model above, or your own once you have trained one). "
            "random: a seeded random vector per word (the same word always gets the same vector). "
            "one-hot: each distinct word gets its own axis, so a word resembles only itself."
        ),
    )
    # The model reads the sentence once for this: "automatic" and the reason it gives both use the share.
    known_share = model.known_share(list(sentence.tokens)) if kind == AUTOMATIC and sentence is not None else None
    source = resolved_source(kind, known_share)
    d = 64  # the width of random vectors only; a model's and one-hot vectors have their own, said below
    if source == "random":
        d = sidebar.select_slider(
            _("Width d of a word vector"),
            [8, 16, 32, 64, 128],
            value=64,
            key=f"{page}_d",
            bind="query-params",
            help=_(
                "Only random vectors can take any width: one-hot vectors are as wide as the number of distinct "
                "words, a model's are as wide as it was built (MiniLM 384, the Arabic model 128)."
            ),
        )
    else:  # a greyed-out slider would show 64 while the vectors are 384 wide
        if source == TRAINED:
            width = _("Width of a word vector: d = {d}, as the model was built (only random vectors take any width).")
        else:
            width = _("Width of a word vector: one per distinct word (only random vectors take any width).")
        sidebar.caption(width.format(d=model.d_model))
    seed = sidebar.number_input(
        _("Seed of the random vectors"),
        0,
        9999,
        0,
        key=f"{page}_seed",
        bind="query-params",
        disabled=source != "random",
    )
    use_position = sidebar.toggle(
        _("Add positional encoding"),
        value=True,
        key=f"{page}_position",
        bind="query-params",
        help=_(
            "Adds a position vector to each word: the sinusoidal one of Vaswani et al. (2017), or MiniLM's "
            "learned one. Without it, the sentence is a bag of words and word order cannot matter."
        ),
    )
    offer_pieces = pieces and source == TRAINED
    display = token_display(page, model, special=False, vectors=True) if offer_pieces else TokenDisplay(True, True)
    choice = EmbeddingChoice(source, int(d), int(seed), use_position, model, display.whole_words)
    why, used = automatic_reason(source, known_share), vectors_used(choice)
    if why:
        sidebar.caption(_("Vectors used here: {vectors} ({why}).").format(vectors=used, why=why))
    else:
        sidebar.caption(_("Vectors used here: {vectors}.").format(vectors=used))
    if sentence is not None and source != TRAINED:  # said where the heatmaps are, never only in the sidebar
        note = _(
            "These heatmaps use **{vectors}**, not a trained model's: they show how attention works, not what the "
            "words mean."
        ).format(vectors=used)
        if why:
            note += " " + _("*automatic* chose them: {why}.").format(why=why)
        st.info(note)
    return choice


def vectors_used(choice: EmbeddingChoice) -> str:
    """What V is made of, in a few words (in this session's language): the sidebar and the page name it, so a
    picture never lies about it."""
    if choice.source == TRAINED:
        return _("the model's own learned word vectors (d = {d})").format(d=choice.model.d_model)
    if choice.source == "random":
        return _("seeded random vectors (d = {d}, seed {seed})").format(d=choice.d, seed=choice.seed)
    return _("one-hot vectors (one axis per distinct word)")


def automatic_reason(source: str, known_share: float | None) -> str:
    """Why "automatic" (the only choice with a known_share) fell back to random vectors, or "" when it did not."""
    if known_share is None or source == TRAINED:
        return ""
    return _("the model has learned vectors for only {share:.0%} of these words").format(share=known_share)
