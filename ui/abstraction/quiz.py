"""Guess first on the Abstraction page's texts: which pair comes closest after the last layer (or, for a paragraph
and its candidate topics, which topic is nearest), then Reveal. A lesson's quiz link (?abstraction_quiz=true) gives
a class the same question; each student's guess stays in their own session. The question is the texts and the
model: another text or model asks again."""

from __future__ import annotations

import streamlit as st
import torch

from attention_core.figures.numbers import written
from ui.bidi import isolate
from ui.i18n import _
from ui.reveal import hide_again, revealed

PAGE = "abstraction"


def texts_quiz(
    names: tuple[str, ...], full: torch.Tensor, last: str, *, topics: bool, asked: tuple[object, ...]
) -> bool:
    """The switch and, while it is on, the question, the guess and Reveal. names: each pair's (or candidate's)
    name; full (pairs, depths): their cosines with the full model; last: the last depth's name. Returns whether
    the chart and its numbers may show."""
    if not st.toggle(
        _("Guess first, then reveal"),
        key=f"{PAGE}_quiz",
        bind="query-params",
        help=_("The chart stays hidden: guess which pair ends closest after the last layer, then press Reveal."),
    ):
        return True
    question = (
        _("**Which topic is nearest to the paragraph after {last}?**")
        if topics
        else _("**Which pair comes closest after {last}?**")
    )
    st.markdown(question.format(last=last))
    guess = st.radio(_("Your guess"), list(names), index=None, key=f"{PAGE}_quiz_guess", persist_state="session")
    if not revealed(PAGE, asked, f"{PAGE}_quiz_guess", _("The chart and its numbers stay hidden until you reveal.")):
        return False
    _say_score(names, full[:, -1], guess, last)
    hide_again(PAGE)
    return True


def _say_score(names: tuple[str, ...], at_last: torch.Tensor, guess: str | None, last: str) -> None:
    best = int(at_last.argmax())
    value = lambda k: written(float(at_last[k]), ".2f")  # noqa: E731
    if guess is None:  # the guess was cleared after the reveal
        st.caption(_("Make a guess above to see how close it is."))
    elif guess == names[best]:
        st.success(
            _("**Hit.** {pair} ends closest: {value} after {last}.").format(
                pair=isolate(guess), value=value(best), last=last
            )
        )
    else:
        k = names.index(guess)
        rank = 1 + int((at_last > at_last[k]).sum())
        st.warning(
            _(
                "**Not this time.** {best} ends closest ({best_value} after {last}); your guess, {pair}, ends at "
                "{value}: rank {rank} of {n}."
            ).format(
                best=isolate(names[best]),
                best_value=value(best),
                last=last,
                pair=isolate(guess),
                value=value(k),
                rank=rank,
                n=len(names),
            )
        )
