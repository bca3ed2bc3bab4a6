"""Guess, then reveal: the page's heatmaps stay hidden until the student has guessed one row of one head.

A teacher's quiz link (`?heads_quiz=true&heads_quiz_head=L4 H2&heads_quiz_row=it`) fixes the sentence, the head and
the row word, so a class answers the same question; each student's guess stays in their own session. Once the
student presses Reveal, the map (their guess outlined), the row as bars and the score appear, and the page below
opens. Any change that changes the row asked about (another head, word, sentence or setting) hides it again.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
import torch
from streamlit.delta_generator import DeltaGenerator

from attention_core.figures.guess import guess_bars
from attention_core.figures.heatmaps import MatrixKind, heatmap
from attention_core.figures.marks import outline_cell
from attention_core.figures.numbers import written_alone
from attention_core.head_names import english_head_name
from attention_core.story.guess_score import PickScore, score_pick, score_shares
from classroom.question import AttentionQuestion
from ui.accessibility import focus_here
from ui.bidi import isolate
from ui.i18n import N_, SOURCE_LANGUAGE, _
from ui.lessons.view import show_lesson_line
from ui.linked_options import follow_link, translated_options
from ui.links import link_to_this_view
from ui.live_class.session import quiz_link
from ui.live_class.teacher import live_class_panel, start_live_class
from ui.progressive import first_heatmap_drawn, preload_charts, when_drawn
from ui.reveal import quiz_asked
from ui.screen import phone_browser
from ui.show import chart, plain
from ui.tokens import place_names

# The two ways to guess, in English as links and benchmarks name them (?similarity_quiz_how=…), shown translated.
PICK, SHARE = N_("pick the word it attends to most"), N_("share its attention out")
MAX_SHARE_WORDS = 16  # one slider per word: more would be a wall of sliders
SPECIAL = ("[CLS]", "[SEP]")
SHOWN_CHARACTERS = 300  # of the sentence shown with the question: a pasted paragraph would bury it


def load_chart_code(page: str) -> None:
    """Have a phone's browser load its chart code as the page opens (ui/progressive.py); on a quiz, any browser,
    once the box to answer in is drawn: the question first. (A laptop opening a page gained nothing from it.)"""
    if quiz_asked(page):
        preload_charts(page, after=f"[class*='st-key-{page}_quiz_pick']")
    elif phone_browser():
        preload_charts(page)


def quiz_first(page: str) -> tuple[DeltaGenerator, DeltaGenerator]:
    """The page's two places under its title: the question's, then its introduction, sentence and settings. With
    the quiz on, the question comes first and the rest is folded into an expander below it: on a phone a quiz
    link's question sat four screens down. Without it, two plain places in the page's usual order (the first
    stays empty)."""
    question = st.container()
    if quiz_asked(page):
        return question, st.expander(_("About this page: its sentence and settings"), icon=":material/tune:")
    return question, st.container()


def guess_first(page: str) -> bool:
    """The page's switch, bound to the URL: hide the heatmaps until the student has guessed."""
    return st.toggle(
        _("Guess first, then reveal"),
        key=f"{page}_quiz",
        bind="query-params",
        help=_(
            "The heatmaps stay hidden: pick a head and a word, guess where it looks, then press Reveal. The link "
            "under the question gives the whole class the same question."
        ),
    )


def guess_then_reveal(
    page: str,
    maps: torch.Tensor,
    map_names: list[str],
    labels: list[str],
    rtl: bool,
    *,
    kind: MatrixKind = "weights",
    shares: bool = True,
    names_in: Callable[[str], list[str]] | None = None,
) -> bool:
    """The question, the student's guess and, once revealed, the answer. `maps` (heads × n × n) are the page's
    attention maps over the drawn `labels`, one per name in `map_names` ("L4 H2"; a single map needs no name).
    shares: the rows are shares that sum to 1 (softmax on), so a student may draw them. names_in(language): the map
    names in a language, when they are words (a link made in another language names the head so). Returns whether
    this question is revealed: the page draws the rest of itself only then."""
    st.subheader(_("Guess first"))
    # The question and the guess first, the boxes that pick another question and the class's link after them: on a
    # phone the two boxes and the link pushed the student's own box below the first screen.
    prompt, answer, other = st.container(), st.container(), st.container()
    # Every choice is a word or a head's name, never a place: after another sentence or model a kept place would
    # name another word (the box showed "it" while the question asked about "a"), where a kept name either is
    # still offered or is dropped by Streamlit, which then shows the default.
    names = place_names(labels)
    which, row_column = other.columns(2)
    head = 0
    if len(map_names) > 1:
        if names_in is not None:
            follow_link(f"{page}_quiz_head", names_in)
        head = map_names.index(which.selectbox(_("Head"), map_names, key=f"{page}_quiz_head", bind="query-params"))
    first_word = next((i for i, label in enumerate(labels) if label not in SPECIAL), 0)
    row_word = names.index(
        row_column.selectbox(
            _("Row word: where does it look?"), names, index=first_word, key=f"{page}_quiz_row", bind="query-params"
        )
    )
    word = _("“{word}”").format(word=isolate(plain(names[row_word])))
    if len(map_names) > 1:
        prompt.markdown(
            _("**{head} · Which word does {word} attend to most?**").format(head=map_names[head], word=word)
        )
    else:
        prompt.markdown(_("**Which word does {word} attend to most?**").format(word=word))
    typed = str(st.session_state.get(f"{page}_sentence", ""))  # the sentence box is folded away below (quiz_first)
    shown = typed if len(typed) <= SHOWN_CHARACTERS else typed[:SHOWN_CHARACTERS] + "…"
    if typed:
        prompt.markdown(_("In the sentence: {sentence}").format(sentence=isolate(plain(shown))))
    question_query = _question(page, map_names[head] if len(map_names) > 1 else None, names[row_word])
    other.markdown(
        _("[Link to this quiz: the same sentence, head and word for the whole class]({link})").format(
            link=link_to_this_view(page, question_query)
        )
    )
    # The question stays revealed as long as the row asked about is the same numbers over the same words.
    row = maps[head, row_word]
    question = (head, row_word, tuple(labels), tuple(round(float(v), 6) for v in row))
    english_head = None  # the head as a question keeps it, for students in any language
    if len(map_names) > 1:
        english_head = names_in(SOURCE_LANGUAGE)[head] if names_in else english_head_name(map_names[head], _)
    link = quiz_link(page, question_query)
    asked = AttentionQuestion.ask(
        page=page,
        link=link,
        sentence=shown,
        head=english_head,
        row_index=row_word,
        labels=labels,
        choices=names,
        rows=maps[head].tolist(),
        kind=kind,
        rtl=rtl,
    )
    with answer:  # a live class's panel takes the place of the teacher's own guess (ui/live_class/teacher.py)
        live = live_class_panel(asked)
        if live is None:
            guess_and_answer(page, maps[head], labels, row_word, rtl, kind, shares, question)
    if live is not None:
        return live
    with other:
        start_live_class(asked)
    return st.session_state.get(f"{page}_quiz_revealed") == question


# The guess and the answer, in a fragment: a new guess (before or after the reveal) reruns only this part, not the
# page's heatmaps below; Hide reruns the whole page, which hides them. Reveal opens the page in two steps: its
# press reruns this fragment alone, which draws the answer, and once the browser has drawn it the whole page reruns
# (ui/progressive.py). Rerunning the whole page at the press made a phone draw every heatmap of the page before the
# answer, 8–18 s at a quarter of a laptop's speed (docs/speed.md); an st.rerun() right after drawing the answer
# lost it (a new run drops the messages not yet sent).
@st.fragment
def guess_and_answer(
    page: str,
    weights: torch.Tensor,
    labels: list[str],
    row_word: int,
    rtl: bool,
    kind: MatrixKind,
    shares: bool,
    question: tuple[object, ...],
) -> None:
    if st.session_state.pop(f"{page}_quiz_open_page", False):
        first_heatmap_drawn(page)  # the answer: the page below needs no first heatmap of its own
        st.rerun()  # the answer is drawn: now the whole page, which opens its heatmaps below
    names = place_names(labels)
    can_share = shares and len(labels) <= MAX_SHARE_WORDS
    how = st.radio(
        _("Your guess"),
        [PICK, SHARE] if can_share else [PICK],
        format_func=translated_options(f"{page}_quiz_how", [PICK, SHARE]),
        horizontal=True,
        key=f"{page}_quiz_how",
        bind="query-params",
        help=None
        if can_share
        else _("Sharing attention out needs softmax on and at most {n} words.").format(n=MAX_SHARE_WORDS),
    )
    amounts: list[float] = []
    picked: int | None = None
    # The guess outlives a visit to another page (persist_state): a student who revealed and comes back finds the
    # answer with their guess, not an empty quiz.
    if how == SHARE:
        st.caption(_("Give each word an amount from 0 to 10; they are turned into shares that sum to 1."))
        columns = st.columns(min(4, len(labels)))
        amounts = [
            float(
                columns[i % len(columns)].slider(
                    name, 0, 10, 0, key=f"{page}_quiz_share_{name}", persist_state="session"
                )
            )
            for i, name in enumerate(names)
        ]
        ready = sum(amounts) > 0
    else:
        guessed = st.selectbox(
            _("The word it attends to most"),
            names,
            index=None,
            placeholder=_("Pick a word"),
            key=f"{page}_quiz_pick",
            persist_state="session",
        )
        picked = None if guessed is None else names.index(guessed)
        ready = picked is not None
    revealed_key = f"{page}_quiz_revealed"
    revealed = st.session_state.get(revealed_key) == question
    opening = False  # this run is Reveal's: the answer first, then the whole page
    reveal, again = st.columns(2)
    # Reveal is never greyed out: a press before a guess says what is missing (a greyed button that waits for the
    # guess's rerun ignored a phone's first tap).
    if not revealed and reveal.button(_("Reveal"), type="primary", key=f"{page}_quiz_reveal"):
        if ready:
            st.session_state[revealed_key] = question
            revealed = opening = True
        else:
            st.warning(
                _("Give at least one word an amount above 0, then press Reveal.")
                if how == SHARE
                else _("Pick the word you think it attends to most, then press Reveal.")
            )
    if not revealed:
        st.caption(_("The heatmaps below stay hidden until you reveal."))
        return
    if again.button(_("Hide it again"), key=f"{page}_quiz_hide"):
        del st.session_state[revealed_key]
        st.rerun()
    focus_here(f"{page}_quiz_answer")  # a keyboard or screen reader goes on at the answer, not the page's top
    show_lesson_line()  # an open lesson's line on where to look waited for the reveal
    if ready:
        _show_answer(page, weights, labels, row_word, rtl, kind, picked=picked, amounts=amounts)
    else:
        st.caption(_("Make a guess above to see how close it is."))
    if opening:  # the page below opens once this answer is on the student's screen
        when_drawn(f"{page}_quiz_opener", f"[class*='st-key-{page}_quiz_map']", f"{page}_quiz_open_page")


def _question(page: str, head: str | None, row: str) -> dict[str, str]:
    """The quiz's own parameters, named even at their defaults: the link must fix the question (head: None on a
    page of one map)."""
    return {f"{page}_quiz": "true", f"{page}_quiz_row": row} | ({f"{page}_quiz_head": head} if head else {})


def _show_answer(
    page: str,
    weights: torch.Tensor,
    labels: list[str],
    row_word: int,
    rtl: bool,
    kind: MatrixKind,
    *,
    picked: int | None,
    amounts: list[float],
) -> None:
    row = weights[row_word]
    names = place_names(labels)
    guess = None
    if amounts:
        drawn = score_shares(row, amounts)
        score, guess = drawn.pick, drawn.guess
        picked = drawn.favoured
    else:
        assert picked is not None
        score = score_pick(row, picked)
    _say_score(score, names, names[picked], guess is not None)
    if guess is not None:
        st.markdown(
            _(
                "Your shares are **{distance:.2f}** from the true row (half the sum of the differences: 0 is the "
                "exact row, 1 is nothing in common)."
            ).format(distance=drawn.distance)
        )
    figure = outline_cell(heatmap(weights, labels, labels, kind=kind, rtl=rtl), row_word, picked)
    chart(figure, f"{page}_quiz_map")
    row_name = isolate(plain(names[row_word]))
    st.caption(_("Outlined: row {word}, the word you guessed.").format(word=row_name))
    chart(
        guess_bars(row, labels, guess=guess, picked=None if guess is not None else picked, rtl=rtl),
        f"{page}_quiz_row_bars",
        table=False,
    )
    if guess is not None:
        bars = _(
            "Row {word} as bars: blue, the weight each word gets; orange: your shares, turned into shares that sum "
            "to 1."
        )
    else:
        bars = _("Row {word} as bars: blue, the weight each word gets; outlined: your word.")
    st.caption(bars.format(word=row_name))


def _say_score(score: PickScore, names: list[str], guessed: str, drawn: bool) -> None:
    strongest = isolate(plain(names[score.strongest[0]]))
    for i in score.strongest[1:]:  # an exact tie: every strongest word, "a and b and c"
        strongest = _("{words} and {word}").format(words=strongest, word=isolate(plain(names[i])))
    word, weight = isolate(plain(guessed)), score.weight
    if score.hit:
        hit = (
            _("**Hit.** The word your shares favour, {word}, gets the most: {weight:.2f}.")
            if drawn
            else _("**Hit.** Your word, {word}, gets the most: {weight:.2f}.")
        )
        st.success(hit.format(word=word, weight=weight))
    else:
        miss = (
            _(
                "**Not this time.** It attends most to {strongest} ({strongest_weight:.2f}). The word your shares "
                "favour, {word}, gets {weight}: rank {rank} of {n}."
            )
            if drawn
            else _(
                "**Not this time.** It attends most to {strongest} ({strongest_weight:.2f}). Your word, {word}, gets "
                "{weight}: rank {rank} of {n}."
            )
        )
        st.warning(
            miss.format(
                strongest=strongest,
                strongest_weight=score.strongest_weight,
                word=word,
                weight=written_alone(weight),  # a guess far off gets 0.0003, not a 0.00 that reads as nothing
                rank=score.rank,
                n=len(names),
            )
        )
