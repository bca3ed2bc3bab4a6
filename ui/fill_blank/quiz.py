"""Guess first on Fill the blank: which word will the model guess first? The choices are the model's own first five
guesses in alphabetical order (their order must not give the answer away); Reveal scores the pick and opens the
page below: the guesses, where the blank looked, the knock-outs. A lesson's quiz link (?fill_blank_quiz=true) gives a
class the same question; each student's pick stays in their own session. The question is the sentence and the model:
another sentence, hidden word or model asks again. Also the key of the page's hidden-word pills, which the guided
tour reads too."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import streamlit as st

from attention_core.figures.numbers import written_alone
from attention_core.story.text import Token
from classroom.question import GuessQuestion
from ui.bidi import isolate
from ui.i18n import _
from ui.lessons.view import show_lesson_line
from ui.live_class.session import quiz_link
from ui.live_class.teacher import live_class_panel, start_live_class
from ui.reveal import hide_again, revealed
from ui.show import plain

PAGE = "fill_blank"
CHOICES = 5  # the model's first five guesses are the choices


def hidden_word_key(tokens: Sequence[Token]) -> str:
    """The widget key of "click a word to hide it": it follows the sentence (its words as the model reads them), so a
    new sentence starts with its own last word hidden, not the old index, and a link's sentence gives the same key."""
    return f"{PAGE}_hidden_{zlib.crc32(' '.join(t.surface for t in tokens).encode())}"


def guess_the_guess(guesses: list[tuple[str, float]], asked: tuple[object, ...], sentence: str, rtl: bool) -> bool:
    """The switch and, while it is on, the question, the pick and Reveal, or a live class's panel in place of the
    pick (ui/live_class/teacher.py). guesses: the model's, best first (at least CHOICES); asked: what makes the question
    (the sentence as read, the model); sentence: as the question shows it, the blank as [MASK]. Returns whether the
    page may show the model's guesses and the rest of itself."""
    if not st.toggle(
        _("Guess first, then reveal"),
        key=f"{PAGE}_quiz",
        bind="query-params",
        help=_("The guesses stay hidden: pick the word you think the model guesses first, then press Reveal."),
    ):
        return True
    st.markdown(_("**Which word will the model guess first for the blank?**"))
    st.markdown(_("In the sentence: {sentence}").format(sentence=isolate(plain(sentence))))
    options = sorted((word for word, _p in guesses[:CHOICES]), key=str.casefold)
    probability = dict(guesses)
    link = quiz_link(PAGE, {f"{PAGE}_quiz": "true"})
    question = GuessQuestion.ask(
        page=PAGE,
        link=link,
        sentence=sentence,
        choices=options,
        probabilities=[probability[w] for w in options],
        rtl=rtl,
    )
    live = live_class_panel(question)  # a live class's panel takes the place of the teacher's own pick
    if live is not None:
        return live
    revealed = _own_pick(guesses, options, asked)
    start_live_class(question)
    return revealed


def _own_pick(guesses: list[tuple[str, float]], options: list[str], asked: tuple[object, ...]) -> bool:
    """The student's own pick, Reveal and the score; whether the page may open."""
    pick = st.radio(
        _("Your guess"),
        options,
        index=None,
        key=f"{PAGE}_quiz_pick",
        format_func=lambda word: isolate(plain(word)),
        persist_state="session",
    )
    hidden = _("The model's guesses, its attention and everything below stay hidden until you reveal.")
    if not revealed(PAGE, asked, f"{PAGE}_quiz_pick", hidden):
        return False
    _say_score(guesses, pick)
    show_lesson_line()  # an open lesson's line on where to look waited for the reveal
    hide_again(PAGE)
    return True


def _say_score(guesses: list[tuple[str, float]], pick: str | None) -> None:
    best, p_best = guesses[0]
    said = {"best": isolate(plain(best)), "p_best": written_alone(p_best)}
    if pick is None:  # the pick was cleared after the reveal
        st.caption(_("Make a guess above to see how close it is."))
    elif pick == best:
        st.success(_("**Hit.** The model's first guess is {best} ({p_best}).").format(**said))
    else:
        rank = next(i for i, (word, _p) in enumerate(guesses) if word == pick) + 1
        st.warning(
            _(
                "**Not this time.** The model's first guess is {best} ({p_best}); yours, {word}, is its guess number "
                "{rank} ({p})."
            ).format(**said, word=isolate(plain(pick)), rank=rank, p=written_alone(guesses[rank - 1][1]))
        )
