"""Fill the blank's "When did the model decide, and what mattered?": the guess read at every depth (the logit lens)
and, beside the blank's attention, how far the guess drops when each word is hidden in turn (occlusion). Every
caption is written from the numbers drawn; each figure has its numbers as a table too (a text alternative)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from attention_core.figures.decision import lens_figure, looked_at_and_mattered, shown_lens_row_names
from attention_core.figures.heatmaps import word_labels
from attention_core.figures.numbers import written_alone
from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.readings.logit_lens import LogitLens, logit_lens
from attention_core.readings.occlusion import LookedAt, LookedAtAndMattered, compare, occlusion
from attention_core.story.text import MASK, Token
from ui.bidi import isolate
from ui.i18n import N_, _, reading_order
from ui.linked_options import translated_options
from ui.markdown import plain
from ui.show import chart

LONG_TEXT = 64  # past this many words, hiding each in turn (n passes of the model) waits to be asked for
# How the blank's attention row is read, in English as links name them (?fill_blank_looked_at=…), shown translated.
LOOKED_AT: dict[str, LookedAt] = {
    N_("every head and layer, averaged"): "mean",
    N_("all layers combined (rollout)"): "rollout",
}
WHY = N_(
    "Why attention alone is not an explanation: how much the blank looks at a word is not what the word contributes. "
    "A head can look hard at a word and pass on little of it, and the feed-forward layers change what arrives "
    "without any weight showing it. Hiding the word and watching the guess measures what it gave "
    "(docs/decision.md)."
)


def _word(text: str) -> str:
    return isolate(plain(text))


def _depth(depth: int) -> str:
    return shown_lens_row_names(depth + 1, _)[depth]


def _lens_captions(lens: LogitLens, asked_gold: str | None, model: MaskedWordModel) -> list[str]:
    last = lens.n_depths - 1
    settles = lens.settles_at
    final = float(lens.top_probabilities[-1, 0])
    if settles == 0:
        said = _("The first guess, {word}, is the same at every depth, the input included ({p} after the last layer).")
    elif settles == last:
        said = _(
            "The guess settles only at the last layer ({depth}): {word} ({p}) is first there, not in the row above."
        )
    else:
        said = _("The guess settles at {depth}: {word} is the first guess from there on ({p} after the last layer).")
    captions = [said.format(word=_word(lens.guess), p=written_alone(final), depth=_depth(settles))]
    if asked_gold and lens.gold_rank is None:
        captions.append(
            _("The model cannot guess {word}: it is not among its {n:,} words.").format(
                word=_word(asked_gold), n=model.guessable_words
            )
        )
    elif lens.gold is not None and lens.gold_rank is not None and lens.gold_probability is not None:
        first_at = lens.gold_first_at
        if first_at is not None:
            said = _("The hidden word {word} is the first guess from {depth} on (rank {rank:,} at the input).")
            captions.append(said.format(word=_word(lens.gold), depth=_depth(first_at), rank=lens.gold_rank[0]))
        else:
            said = _("The hidden word {word} is not the first guess after the last layer: rank {rank:,} ({p}).")
            p = written_alone(float(lens.gold_probability[-1]))
            captions.append(said.format(word=_word(lens.gold), rank=lens.gold_rank[-1], p=p))
    captions.append(
        _(
            "Each row reads what the blank holds at that depth through the model's own last step (its final "
            "normalisation and word scores); the last row is its guess above. The input row is the [MASK] vector and "
            "its place, before any layer has read a word: the words the model finds likely anywhere."
        )
    )
    return captions


def _strip_captions(seen: LookedAtAndMattered) -> list[str]:
    found = seen.occlusion
    most, looked = found.most_mattered, seen.most_looked_at
    if most is None or looked is None:
        return [_("The blank is the only word: there is nothing to hide.")]
    share = lambda i: written_alone(float(seen.attention[i]))  # noqa: E731
    after = found.probability - float(found.drop[most])
    said = (
        _(
            "Here the two agree: {word}, the word the blank looked at most ({share}), is also the word that mattered "
            "most: hidden, it takes {guess} from {p} to {after}."
        )
        if most == looked
        else _(
            "The word that mattered most, {word}, got only {share} of the blank's attention, less than {other} "
            "({other_share}): hidden, {word} takes {guess} from {p} to {after}, and {other} takes it only to "
            "{other_after}."
        )
        if share(most) != share(looked)
        else _(  # a tie as written is no "less than"
            "The word that mattered most, {word}, got {share} of the blank's attention, as much as {other}: hidden, "
            "{word} takes {guess} from {p} to {after}, and {other} takes it only to {other_after}."
        )
    )
    captions = [
        said.format(
            word=_word(found.words[most]),
            share=share(most),
            guess=_word(found.guess),
            p=written_alone(found.probability),
            after=written_alone(after),
            other=_word(found.words[looked]),
            other_share=share(looked),
            other_after=written_alone(found.probability - float(found.drop[looked])),
        )
    ]
    if found.guess_when_hidden[most] != found.guess:
        captions.append(
            _("With {word} hidden, the first guess becomes {new}.").format(
                word=_word(found.words[most]), new=_word(found.guess_when_hidden[most])
            )
        )
    if seen.agreement is not None:
        captions.append(
            _(
                "Over the {n} other words, attention and drop order the words with Spearman's ρ = {rho:.2f} (1: the "
                "same order; 0: unrelated). The blank gave {special} of its attention to [CLS], which cannot be hidden."
            ).format(n=len(found.others), rho=seen.agreement, special=written_alone(seen.special_share))
        )
    return captions


def _gold(page: str, typed: Sequence[Token], blank: int) -> str | None:
    """The word that belongs in the blank: the word the user hid, or (for a typed [MASK]) the one they name."""
    if typed[blank].norm != MASK:
        return typed[blank].surface
    named = st.text_input(
        _("The word that belongs in the blank (optional)"),
        key=f"{page}_gold",
        bind="query-params",
        help=_("Its rank and probability at every depth, and how much each word's hiding drops it."),
    )
    return named.strip() or None


def _table(frame: pd.DataFrame) -> None:
    with st.expander(_("The numbers as a table")):
        st.table(frame[reading_order(frame.columns)])


def _show_lens(lens: LogitLens, asked_gold: str | None, model: MaskedWordModel, page: str, rtl: bool) -> None:
    st.markdown(_("**When did it decide?** The guess read after every layer"))
    chart(lens_figure(lens, rtl=rtl, translate=_), f"{page}_lens", table=False)
    for caption in _lens_captions(lens, asked_gold, model):
        st.caption(caption)
    frame = pd.DataFrame({_("depth"): shown_lens_row_names(lens.n_depths, _)})
    for n, column in enumerate(zip(*lens.top_words, strict=True)):
        frame[_("guess {n}").format(n=n + 1)] = [
            f"{word} ({written_alone(float(p))})" for word, p in zip(column, lens.top_probabilities[:, n], strict=True)
        ]
    if lens.gold_rank is not None and lens.gold_probability is not None:
        frame[_("rank of {word}").format(word=lens.gold)] = [f"{rank:,}" for rank in lens.gold_rank]
        frame[_("probability of {word}").format(word=lens.gold)] = [
            written_alone(float(p)) for p in lens.gold_probability
        ]
    _table(frame)


def _show_strip(seen: LookedAtAndMattered, labels: list[str], page: str, rtl: bool) -> None:
    found = seen.occlusion
    chart(looked_at_and_mattered(seen, labels, rtl=rtl, translate=_), f"{page}_mattered", table=False)
    for caption in _strip_captions(seen):
        st.caption(caption)
    st.caption(
        _(
            "Each column has its own colour scale. Drop: the probability of {guess} with every word, less its "
            "probability with that word replaced by [MASK] (red: the guess grew surer without it)."
        ).format(guess=_word(found.guess))
    )
    st.caption(_(WHY))
    frame = pd.DataFrame(
        {
            _("word"): list(found.words),
            _("attention"): [written_alone(float(a)) for a in seen.attention],
            _("drop"): [
                "" if i == found.blank else written_alone(float(found.drop[i]), sign=True)
                for i in range(len(found.words))
            ],
            _("first guess with it hidden"): list(found.guess_when_hidden),
        }
    )
    _table(frame)


@st.fragment
def show_decision(
    page: str,
    model: MaskedWordModel,
    typed: Sequence[Token],
    tokens: list[Token],
    analysis: Analysis,
    rtl: bool,
) -> None:
    """The section: typed, the sentence as typed; tokens, the same with the blank hidden (as the page reads it);
    analysis, the page's own analysis of tokens (its attention rows)."""
    st.subheader(_("When did the model decide, and what mattered?"))
    blank = next(i for i, t in enumerate(tokens) if t.norm == MASK)
    gold = _gold(page, typed, blank)
    words_shown, how = st.columns(2)
    k = words_shown.slider(_("Guesses per depth"), 1, 5, 3, key=f"{page}_lens_k", bind="query-params")
    row = how.radio(
        _("What the blank looked at"),
        list(LOOKED_AT),
        format_func=translated_options(f"{page}_looked_at", list(LOOKED_AT)),
        key=f"{page}_looked_at",
        bind="query-params",
        help=_(
            "averaged: the blank's attention row, the mean of every head of every layer. rollout: where what the "
            "blank holds after the last layer came from, through every path of layers (as in the section below)."
        ),
    )
    lens = logit_lens(model, tokens, k=k, gold=gold)
    _show_lens(lens, gold, model, page, rtl)
    st.markdown(_("**What mattered?** What the blank looked at, and what hiding each word does to its guess"))
    n = len(tokens[: model.words_read(tokens)])
    if n > LONG_TEXT and not st.toggle(
        _("Hide each of the {n} words in turn ({n} passes of the model: a few seconds)").format(n=n),
        key=f"{page}_hide_each",
        bind="query-params",
    ):
        return
    found = occlusion(model, tokens, gold=gold)
    seen = compare(analysis, found, LOOKED_AT[row or next(iter(LOOKED_AT))])
    known = [ok for ok, special in zip(analysis.known, analysis.special, strict=True) if not special][:n]
    _show_strip(seen, word_labels(list(found.words), known), page, rtl)
