"""Minimal pairs on screen: the two sentence boxes and the built-in pairs, the two sentences read by one model and
compared on their aligned words (attention_core.readings.minimal_pairs), the guesses of both, the map of how much each
head changed, and one head's A | B | B − A."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
import torch

from attention_core.figures.head_maps import head_values
from attention_core.figures.numbers import number_format, written, written_alone
from attention_core.head_names import head_name, parse_head
from attention_core.models.interface import Analysis, AttentionModel, MaskedWordModel
from attention_core.readings.minimal_pairs import PairDifference, compare, pair_guesses
from attention_core.story.text import CLS, MASK, SEP, ReadSentence, Token, read_sentence
from ui.bidi import isolate, phrases_isolated
from ui.following import follow_again, following_selectbox
from ui.guess_table import guess_change_table
from ui.i18n import N_, _, right_to_left, shown_head_name
from ui.lessons.view import show_where_to_look, start_lesson
from ui.markdown import plain
from ui.models import AUTOMATIC
from ui.show import chart, flag_model_cut, flag_unknown_words, strip_of_panels
from ui.tokens import TokenDisplay, drawn_attention

PAIR_TOKENS = 64  # words and marks compared per sentence: a minimal pair is two sentences, not two pages
KEPT = "kept_sentence"  # ui.controls' key of the sentence that follows the user from page to page
# Built-in pairs (what each shows, with the numbers, is in docs/minimal-pairs.md; tests/test_minimal_pairs.py holds
# the models to it).
PAIRS: dict[str, tuple[str, str]] = {  # keys: the pills' values, shown translated
    N_("it: too tired / too wide"): (
        "The animal didn't cross the street because it was too tired",
        "The animal didn't cross the street because it was too wide",
    ),
    N_("السميع / سميع (the article agrees)"): ("إنه هو السميع [MASK]", "إنه سميع [MASK]"),
    N_("عائشة / أنس (her or him)"): ("عن عائشة رضي الله [MASK]", "عن أنس رضي الله [MASK]"),
    N_("الذين / الذي (they or he)"): ("يا أيها الذين [MASK]", "يا أيها الذي [MASK]"),
    N_("يحب / لا يحب (a word added)"): ("إن الله يحب [MASK]", "إن الله لا يحب [MASK]"),
}


@dataclass(frozen=True)
class SentencePair:
    a: ReadSentence
    b: ReadSentence

    @property
    def rtl(self) -> bool:
        return self.a.rtl


def _use_pair(page: str) -> None:
    choice = st.session_state[f"{page}_example"]
    if choice:
        st.session_state[f"{page}_sentence"], st.session_state[f"{page}_sentence_b"] = PAIRS[choice]
        follow_again(f"{page}_head")  # a new pair opens on its own most-changed head
    st.session_state[f"{page}_example"] = None


def _read(text: str, name: str) -> ReadSentence | None:
    sentence = read_sentence(text, PAIR_TOKENS)
    if sentence.is_empty:
        st.info(_("Sentence {name} is empty: type it, or pick a built-in pair above.").format(name=name))
        return None
    if sentence.was_cut:
        st.warning(
            _("Sentence {name} has {n:,} words and marks; only the first {limit} are compared.").format(
                name=name, n=sentence.n_typed, limit=sentence.limit
            )
        )
    return sentence


def pair_input(page: str) -> SentencePair | None:
    """The built-in pairs and the two sentence boxes (both bound to the URL); the two sentences read, or None after
    saying why (one is empty, or one is in Arabic script and the other not)."""
    keys = f"{page}_sentence", f"{page}_sentence_b"
    lesson = start_lesson(page, AUTOMATIC, KEPT)
    for key, default in zip(keys, next(iter(PAIRS.values())), strict=True):
        if key not in st.session_state:  # a shared link's sentences, or the first built-in pair
            if key not in st.query_params:
                st.query_params[key] = default
            st.session_state[key] = st.query_params[key]
    st.pills(
        _("Built-in pairs"),
        list(PAIRS),
        key=f"{page}_example",
        on_change=_use_pair,
        args=(page,),
        format_func=lambda pair: phrases_isolated(_(pair), right_to_left()),
    )
    box_a, box_b = st.columns(2)  # A first in the page's own direction
    box_a.text_input(_("Sentence A"), key=keys[0], max_chars=2000, bind="query-params")
    box_b.text_input(_("Sentence B: change a word or two"), key=keys[1], max_chars=2000, bind="query-params")
    show_where_to_look(lesson, st.session_state[keys[0]])
    a, b = _read(st.session_state[keys[0]], "A"), _read(st.session_state[keys[1]], "B")
    if a is None or b is None:
        return None
    if a.rtl != b.rtl:
        arabic, other = ("A", "B") if a.rtl else ("B", "A")
        st.warning(
            _(
                "Sentence {arabic} is in Arabic script and sentence {other} is not. Both sentences must be read by the "
                "same model (Arabic script goes to the Arabic model, anything else to the English one), so a pair is "
                "two sentences in one language: change a word or two of one sentence to make the other."
            ).format(arabic=arabic, other=other)
        )
        return None
    return SentencePair(a, b)


@dataclass(frozen=True)
class ComparedPair:
    a: Analysis
    b: Analysis
    drawn: PairDifference  # every head's attention of both, as drawn, on the aligned words

    def has_blanks(self) -> bool:
        return all(any(t.norm == MASK for t in analysis.tokens) for analysis in (self.a, self.b))


_ANALYSES = "pairs_analyses"  # session key: the last few sentences through the model, so typing B leaves A's alone
_KEEP = 4  # analyses kept per session: the pair, and the pair before it


def _analysis(model: AttentionModel, tokens: list[Token]) -> Analysis:
    """model.analyze(tokens), reused from this session's last few: a rerun for B (or a sidebar switch) does not read
    A again. Keyed by the model (and its training step: a model still training is read afresh)."""
    key = (id(model), model.name, getattr(model, "step", 0), tuple(t.surface for t in tokens))
    kept: dict[tuple[object, ...], Analysis] = st.session_state.setdefault(_ANALYSES, {})
    if key not in kept:
        kept[key] = model.analyze(tokens)
        while len(kept) > _KEEP:
            del kept[next(iter(kept))]  # the oldest first (a dict keeps its order)
    return kept[key]


def compare_pair(model: AttentionModel, pair: SentencePair, display: TokenDisplay) -> ComparedPair | None:
    """Both sentences through the model, drawn as the sidebar asks (whole words or pieces, [CLS]/[SEP] or not) and
    aligned; None after saying why when they share no word."""
    analyses = []
    for sentence in (pair.a, pair.b):
        tokens = list(sentence.tokens)
        analyses.append(_analysis(model, tokens))
        flag_model_cut(len(tokens), model.words_read(tokens))
        flag_unknown_words(*analyses[-1].pieces.typed_words())
    (weights_a, words_a), (weights_b, words_b) = (drawn_attention(x.weights, x, display) for x in analyses)
    drawn = compare(weights_a, words_a, weights_b, words_b)
    shared = [w for w, s in zip(drawn.alignment.labels, drawn.alignment.shared, strict=True) if s]
    if not [w for w in shared if w not in (CLS, SEP)]:
        st.warning(
            _(
                "The two sentences share no word, so no cell of one map can be set against a cell of the other. A "
                "minimal pair keeps the sentence and changes one or two words: start from a built-in pair above."
            )
        )
        return None
    return ComparedPair(analyses[0], analyses[1], drawn)


def left_out_note(compared: ComparedPair) -> str:
    """One sentence naming the words that have no partner in the other sentence, or ""."""
    alignment = compared.drawn.alignment
    parts = [
        _("{words} (only in {name})").format(words=", ".join(isolate(plain(w)) for w in words), name=name)
        for name, words in (("A", alignment.only_a), ("B", alignment.only_b))
        if words
    ]
    if not parts:
        return ""
    return _(
        "Left out of the difference, with no partner in the other sentence: {parts}. Every word after an added word "
        "sits one place further on, so heads that read by distance change too."
    ).format(parts="; ".join(parts))


def show_guesses(model: AttentionModel, compared: ComparedPair, k: int = 5) -> None:
    """For a masked-word model and a [MASK] in both sentences: the top k of each, each word with its probability in
    both sentences."""
    blanks = [any(t.norm == MASK for t in x.tokens) for x in (compared.a, compared.b)]
    if not any(blanks):
        return
    if not isinstance(model, MaskedWordModel):
        st.caption(
            _(
                "This model has no masked-word head (MiniLM), so it makes no guesses for the [MASK]: only the Arabic "
                "model or your own do."
            )
        )
        return
    if not all(blanks):
        st.info(_("Put a [MASK] in both sentences to compare the model's guesses for it."))
        return
    st.subheader(_("The guesses for the [MASK]"))
    changes = pair_guesses(model, compared.a, compared.b, k)
    guess_change_table(changes, _("in A"), _("in B"))
    first_a, first_b = changes[0], max(changes, key=lambda c: c.after)
    st.caption(
        _(
            "Each sentence's top {k}, each word with its probability in both; change = B − A. First guess in A: "
            "{first_a} ({p_a:.2f}); in B: {first_b} ({p_b:.2f})."
        ).format(
            k=k,
            first_a=isolate(plain(first_a.word)),
            p_a=first_a.before,
            first_b=isolate(plain(first_b.word)),
            p_b=first_b.after,
        )
    )


def show_head_change(compared: ComparedPair, rtl: bool, key: str) -> None:
    """The map of the heads, each coloured by its largest |B − A| on the shared words' rows."""
    change = compared.drawn.head_change
    n_heads = change.shape[1]
    ranked = sorted(range(change.numel()), key=lambda i: -float(change.flatten()[i]))[:3]
    top = ", ".join(
        f"{shown_head_name(head_name(i // n_heads, i % n_heads))} ({written_alone(float(change.flatten()[i]))})"
        for i in ranked
    )
    chart(head_values(change, scale_title=_("largest |B − A|"), signed=False, rtl=rtl, largest=1.0), key)
    note = left_out_note(compared)
    st.caption(
        _(
            "Each cell: the largest change |B − A| of one attention weight of that head, over the rows of the words "
            "the two sentences share (a swapped word's own row is left out: a different word reads differently "
            "anyway). Changed most: {top}."
        ).format(top=top)
        + (f" {note}" if note else "")
    )


def most_changed_head(compared: ComparedPair) -> str:
    change = compared.drawn.head_change
    flat = int(change.argmax())
    return head_name(flat // change.shape[1], flat % change.shape[1])


def show_picked_head(compared: ComparedPair, model: AttentionModel, rtl: bool, page: str) -> None:
    """A head picked (the one that changed most, to start): A | B | B − A on the aligned words, and its largest
    change in words."""
    options = [head_name(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    key = f"{page}_head"
    # The head that changed most, followed as the sentences change until the user picks one (ui/following.py).
    most = most_changed_head(compared)
    picked = following_selectbox(
        _("A head ({layers} layers × {heads} heads)").format(layers=model.n_layers, heads=model.n_heads),
        options,
        key,
        most,
        placeholder=_("The head that changed most"),
        format_func=shown_head_name,  # the values stay English, as links name them (?pairs_head=L4 H2)
        help=_(
            "Follows the head that changed most as you change the sentences, until you pick a head; clear your "
            "pick (×) to follow it again."
        ),
    )
    layer, head = parse_head(picked)
    drawn = compared.drawn
    panels = drawn.a[layer, head], drawn.b[layer, head], drawn.difference[layer, head]
    labels = list(drawn.alignment.labels)
    names = [_("sentence A"), _("sentence B"), "B − A"]
    strip_of_panels(torch.stack(panels), labels, names, rtl, f"{page}_picked", signed=frozenset({2}))
    row, column = drawn.largest_change(layer, head)
    was, now = float(drawn.a[layer, head, row, column]), float(drawn.b[layer, head, row, column])
    spec = number_format([now - was])  # enough decimals that the change itself reads: 0.0012 → 0.0035, not 0.00 → 0.00
    st.caption(
        _(
            "{head}, on the words the two sentences share (a swapped pair is one row and column, named a / b). In "
            "B − A, blue is where B's word looks more, red less. Its largest change on a shared word's row: row "
            "{row}, column {column}: {was} in A → {now} in B."
        ).format(
            head=shown_head_name(picked),
            row=isolate(plain(labels[row])),
            column=isolate(plain(labels[column])),
            was=written(was, spec),
            now=written(now, spec),
        )
    )
