"""What each step of the guided tour (ui/tour/guide.py) says about the learner's own sentence: computed by the code the
step's page uses (its default vectors, its drawing of attention, its model), with the numbers from
attention_core/story/tour_facts.py, so a step's claim is the page's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from attention_core.models.head_importance import head_importance
from attention_core.models.interface import AttentionModel, MaskedWordModel
from attention_core.models.pretrained import PretrainedModel
from attention_core.story import tour_facts
from attention_core.story.attention import attend, unit_vectors
from attention_core.story.text import MASK, Token, read_sentence
from attention_core.story.trainable import TrainableSettings, trainable_heads
from ui.bidi import isolate
from ui.fill_blank.quiz import hidden_word_key
from ui.i18n import _, language
from ui.markdown import plain


def step_fact(name: str, text: str) -> str:
    """The fact the step `name` adds, on `text` (and, on Fill the blank, on the word hidden now); "" where the
    sentence gives none (the page explains why)."""
    hidden = hidden_place(text) if name in BLANK_FACTS else None
    return _computed_fact(name, text, hidden, language())


# The card is drawn on every rerun of its page; a fact (72 knock-outs for two of them) is computed once per sentence,
# hidden word and language (the fact is worded in it).
@st.cache_data(max_entries=256, show_spinner=False)
def _computed_fact(name: str, text: str, hidden: int | None, lang: str) -> str:
    try:
        return BLANK_FACTS[name](text, hidden) if name in BLANK_FACTS else FACTS[name](text)
    except (ValueError, IndexError, KeyError):  # a sentence the page itself will explain (empty, all unknown)
        return ""


def model_for(text: str) -> AttentionModel:
    """The model the pages pick on automatic: the Arabic one for a mostly Arabic sentence, else MiniLM."""
    from ui.models import english_model, shipped_model, words_by_script

    sentence = read_sentence(text)
    if words_by_script(sentence.tokens).mostly_arabic(sentence.rtl):
        return shipped_model()
    return english_model() or shipped_model()


def page_vectors(text: str, *, positions: bool) -> tuple[Any, list[str]]:
    """V as Similarity and Trainable draw it by default (automatic vectors, width 64, seed 0): (V, labels)."""
    from ui.controls import AUTOMATIC, EmbeddingChoice, embed, resolved_source

    sentence = read_sentence(text)
    model = model_for(text)
    source = resolved_source(AUTOMATIC, model.known_share(list(sentence.tokens)))
    embedded = embed(sentence, EmbeddingChoice(source, 64, 0, positions, model))
    return embedded.V, list(embedded.labels)


def _word(label: str) -> str:
    return "«" + isolate(plain(label)) + "»"


def _fact_shape(text: str) -> str:
    V, _labels = page_vectors(text, positions=True)
    return _("Yours is {n} × {d}.").format(n=V.shape[0], d=V.shape[1])


def _fact_positions(text: str) -> str:
    with_p, labels = page_vectors(text, positions=True)
    without, _labels = page_vectors(text, positions=False)
    repeated = tour_facts.repeated_word(labels)
    if repeated is not None:
        return _("{word} comes twice in your sentence: without P its two rows are the same.").format(
            word=_word(repeated)
        )
    change = tour_facts.biggest_position_change(with_p, without, labels)
    if change is None:
        return ""
    return _("With P, {a} and {b} have a cosine of {x:.2f}; without it, {y:.2f}.").format(
        a=_word(change.first), b=_word(change.second), x=change.with_positions, y=change.without
    )


def _fact_cosine(text: str) -> str:
    V, labels = page_vectors(text, positions=False)
    pair = tour_facts.most_alike_pair(V, labels)
    if pair is None:
        return ""
    return _("Your two most alike words: {a} and {b} (cosine {c:.2f}).").format(
        a=_word(pair.row), b=_word(pair.column), c=pair.value
    )


def _fact_softmax(text: str) -> str:
    V, labels = page_vectors(text, positions=False)
    weights = attend(unit_vectors(V), scale=False, softmax=True).weights
    row = tour_facts.first_single_word(labels)
    link = tour_facts.strongest_link(weights, labels, row, besides_itself=True)
    return _("With softmax, {w} keeps {p:.2f} of itself and takes most from {v} ({q:.2f}).").format(
        w=_word(link.row), p=float(weights[row, row]), v=_word(link.column), q=link.value
    )


def _fact_W1(text: str) -> str:
    V, labels = page_vectors(text, positions=True)
    off = trainable_heads(V, TrainableSettings(use_W1=False, use_W2=False, use_W3=False))[0].weights
    on = trainable_heads(V, TrainableSettings(use_W1=True, use_W2=False, use_W3=False))[0].weights
    row = tour_facts.first_single_word(labels)
    before, after = tour_facts.strongest_link(off, labels, row), tour_facts.strongest_link(on, labels, row)
    return _("Now {w} looks most at {x} ({p:.2f}); with W1 on, at {y} ({q:.2f}).").format(
        w=_word(before.row), x=_word(before.column), p=before.value, y=_word(after.column), q=after.value
    )


def _fact_temperature(text: str) -> str:
    V, labels = page_vectors(text, positions=True)
    cold = trainable_heads(V, TrainableSettings(use_W1=True, use_W2=False, use_W3=False))[0].weights
    warm = trainable_heads(V, TrainableSettings(use_W1=True, use_W2=False, use_W3=False, temperature=3.0))[0].weights
    row = tour_facts.first_single_word(labels)
    return _("At temperature 3, the largest share of {w} falls from {p:.2f} to {q:.2f}.").format(
        w=_word(labels[row]), p=float(cold[row].max()), q=float(warm[row].max())
    )


def drawn(text: str) -> tuple[AttentionModel, Any, list[str]]:
    """The model, its attention as Multi-head draws it by default (whole words, [CLS] and [SEP] shown), labels."""
    from ui.tokens import TokenDisplay, drawn_attention

    model = model_for(text)
    analysis = model.analyze(list(read_sentence(text).tokens))
    weights, labels = drawn_attention(analysis.weights, analysis, TokenDisplay(True, True))
    return model, weights, list(labels)


def _fact_head(text: str) -> str:
    _model, weights, labels = drawn(text)
    row = tour_facts.first_single_word(labels, skip=("[CLS]", "[SEP]"))
    first = tour_facts.strongest_link(weights[0, 0], labels, row)
    second = tour_facts.strongest_link(weights[0, 1], labels, row)
    return _("In layer 1, head 1 sends {w} mostly to {x} ({p:.2f}); head 2 to {y} ({q:.2f}).").format(
        w=_word(first.row), x=_word(first.column), p=first.value, y=_word(second.column), q=second.value
    )


def _fact_knock_out(text: str) -> str:
    model = model_for(text)
    layer, head, degrees = head_importance(model, list(read_sentence(text).tokens)).ranked()[0]
    return _("On your sentence L{l} H{h} matters most: without it the sentence's final vectors turn {a:.1f}°.").format(
        l=layer + 1, h=head + 1, a=degrees
    )


def _fact_layer(text: str) -> str:
    model, weights, _labels = drawn(text)
    first, last = tour_facts.mean_strongest_weight(weights[0]), tour_facts.mean_strongest_weight(weights[-1])
    return _("A word's strongest link averages {p:.2f} in layer 1 and {q:.2f} in layer {n}.").format(
        p=first, q=last, n=model.n_layers
    )


def _fact_depth(text: str) -> str:
    from ui.abstraction.view import word_states

    model = model_for(text)
    states = word_states(model, text).states
    return _("Two of your words have a mean cosine of {a:.2f} in V and {b:.2f} after layer {n}.").format(
        a=tour_facts.mean_cosine(states[0]), b=tour_facts.mean_cosine(states[-1]), n=model.n_layers
    )


def blank_model(text: str) -> MaskedWordModel | None:
    """The model Fill the blank picks on automatic (ui.models.masked_word_model): by the sentence's direction, the
    Arabic one, or MiniLM retrained to guess (if shipped)."""
    from ui.models import english_guesser, shipped_model

    return shipped_model() if read_sentence(text).rtl else english_guesser()


def _read_tokens(model: MaskedWordModel, text: str) -> list[Token]:
    """The words Fill the blank shows for `text`: MiniLM leaves out the marks it reads as nothing, as the page does."""
    tokens = list(read_sentence(text).tokens)
    return model.readable(tokens) if isinstance(model, PretrainedModel) else tokens


def hidden_place(text: str) -> int | None:
    """The place of the word Fill the blank hides now: the one clicked (its pills' state), else the last word."""
    model = blank_model(text)
    if model is None:
        return None
    tokens = _read_tokens(model, text)
    words = [i for i, t in enumerate(tokens) if t.is_word]
    return st.session_state.get(hidden_word_key(tokens), words[-1]) if words else None


def _with_hidden(model: MaskedWordModel, text: str, place: int) -> tuple[list[Token], str]:
    """The sentence with the word at `place` hidden, and that word."""
    tokens = _read_tokens(model, text)
    word = tokens[place].surface
    tokens[place] = Token(MASK, MASK, is_word=False)
    return tokens, word


def _fact_hide(text: str, hidden: int | None) -> str:
    model = blank_model(text)
    if model is None or hidden is None:
        return ""
    tokens, word = _with_hidden(model, text, hidden)
    guess, probability = model.predict(tokens, 1)[0]
    return _("With {w} hidden, its first guess is {g} ({p:.2f}).").format(w=_word(word), g=_word(guess), p=probability)


def _fact_rank(text: str, hidden: int | None) -> str:
    model = blank_model(text)
    if model is None or hidden is None:
        return ""
    importance = head_importance(model, _with_hidden(model, text, hidden)[0])
    layer, head, _fall = importance.ranked()[0]
    return _("Without L{l} H{h}, {g} falls from {p:.2f} to {q:.2f}: on your blank that head matters most.").format(
        l=layer + 1,
        h=head + 1,
        g=_word(importance.guess or ""),
        p=importance.whole,
        q=float(importance.knocked[layer, head]),
    )


FACTS: dict[str, Callable[[str], str]] = {
    "sentence": _fact_shape,
    "positions": _fact_positions,
    "cosine": _fact_cosine,
    "softmax": _fact_softmax,
    "W1": _fact_W1,
    "temperature": _fact_temperature,
    "head": _fact_head,
    "knock out": _fact_knock_out,
    "layer": _fact_layer,
    "depth": _fact_depth,
}
BLANK_FACTS: dict[str, Callable[[str, int | None], str]] = {
    "hide": _fact_hide,
    "rank": _fact_rank,
}  # on the word hidden
