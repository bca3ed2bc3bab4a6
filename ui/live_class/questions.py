"""A live-class question on every screen, drawn from its record (classroom/question.py) by one view per kind.

The student's phone (ui/live_class/student.py: the question, the answer form, the answer at the reveal) and the
teacher's projector (ui/live_class/teacher.py: the class's chart, the line at the reveal) call the functions at the
bottom of this file with the record the store returned; each asks the record's view what is particular to its kind.

A new kind of question is three things, and the two screens need nothing new:

1. its record in classroom/question.py: a Question subclass with its tag, listed in KINDS (what the store keeps;
   its `ask(...)` builds it from what the quiz page computed);
2. its view here: a QuestionView subclass, listed in VIEWS: how a phone asks it, the label of the answer form, the
   sentences of the reveal, and its chart (`chart`: the class's answers beside the model's; `below`: anything
   drawn under it on a phone, as an attention question's map);
3. on the quiz's page, the record handed to live_class_panel / start_live_class (ui/live_class/teacher.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar, cast

import plotly.graph_objects as go
import streamlit as st
import torch

from attention_core.figures.class_answers import class_bars
from attention_core.figures.heatmaps import MatrixKind, heatmap
from attention_core.figures.marks import outline_cell
from classroom.question import AttentionQuestion, GuessQuestion, Question
from ui.bidi import isolate
from ui.i18n import LANGUAGE_KEY, N_, SOURCE_LANGUAGE, _, language
from ui.live_class.session import shown_head
from ui.markdown import plain
from ui.show import chart

Q = TypeVar("Q", bound=Question)


class QuestionView(ABC, Generic[Q]):
    """What is particular to one kind of question on the two screens. `said`: what a phone says at the reveal,
    by case ("lost": picked but never sent, "none", "hit", "miss"), templates marked N_ with {word} (the student's
    pick) and {answer} (the model's)."""

    said: ClassVar[Mapping[str, str]]

    @abstractmethod
    def asks(self, question: Q) -> str:
        """The question in bold, as a phone asks it, in this session's language."""

    @abstractmethod
    def pick_label(self) -> str:
        """The label of the answer form."""

    @abstractmethod
    def revealed(self, question: Q) -> str:
        """The projector's line at the reveal."""

    @abstractmethod
    def legend(self, question: Q, *, projector: bool) -> str:
        """The caption under the revealed chart (the projector's bars also carry their counts)."""

    def kind(self, question: Q) -> MatrixKind:
        """How the model's row reads: "weights" are shares; anything else raw numbers, on an axis of their own."""
        return "weights"

    def chart(
        self, question: Q, tally: dict[str, int], *, model: bool, large: bool = False, picked: int | None = None
    ) -> go.Figure:
        """The class's answers on the choices, beside the model's row (model False: its slot stays empty, so the
        bars do not move at the reveal). large: a projector's numbers; picked: the place a phone keeps labelled."""
        row = list(question.weights) if model else None
        return class_bars(
            list(question.choices), tally, row, rtl=question.rtl, large=large, kind=self.kind(question), picked=picked
        )

    def below(self, question: Q, picked: int | None) -> None:
        """Drawn under the chart on a phone at the reveal: nothing by default."""


class AttentionView(QuestionView[AttentionQuestion]):
    """Which word does a word attend to most: the head's row on the bars, the head's map below them."""

    said: ClassVar[Mapping[str, str]] = {
        "lost": N_(
            "The model attends most to {answer}. Your answer, {word}, did not reach the class before the reveal: the "
            "class's store was not answering."
        ),
        "none": N_("The model attends most to {answer}. You did not answer this one."),
        "hit": N_("**Hit.** You picked {word}, and the model attends most to {answer}."),
        "miss": N_("**Not this time.** You picked {word}; the model attends most to {answer}."),
    }

    def asks(self, question: AttentionQuestion) -> str:
        word = _("“{word}”").format(word=isolate(plain(question.row)))
        head = shown_head(question.head)
        if head:
            return _("**{head} · Which word does {word} attend to most?**").format(head=head, word=word)
        return _("**Which word does {word} attend to most?**").format(word=word)

    def pick_label(self) -> str:
        return _("The word it attends to most")

    def revealed(self, question: AttentionQuestion) -> str:
        word, answer = isolate(plain(question.row)), isolate(plain(question.model_answer))
        return _("Revealed to everyone: {word} attends most to {answer}.").format(word=word, answer=answer)

    def kind(self, question: AttentionQuestion) -> MatrixKind:
        return cast(MatrixKind, question.kind)

    def legend(self, question: AttentionQuestion, *, projector: bool) -> str:
        if question.kind != "weights" and projector:
            return _(
                "Orange: the share of the class that picked each word (the count on each bar); blue: the model's "
                "scores, on their own axis."
            )
        if question.kind != "weights":
            return _(
                "Orange: the share of the class that picked each word; blue: the model's scores, on their own axis."
            )
        if projector:
            return _(
                "Orange: the share of the class that picked each word (the count on each bar); blue: the model's "
                "weights."
            )
        return _("Orange: the share of the class that picked each word; blue: the model's weights.")

    def below(self, question: AttentionQuestion, picked: int | None) -> None:
        """The head's map, the question's row and the student's cell outlined (none beyond about 40 words)."""
        if not question.map:
            return
        labels, index = list(question.labels), question.row_index
        weights = torch.tensor(question.map, dtype=torch.float32)
        figure = heatmap(weights, labels, labels, kind=self.kind(question), rtl=question.rtl)
        chart(outline_cell(figure, index, picked) if picked is not None else figure, "join_map", table=False)
        word = isolate(plain(question.choices[index] if index < len(question.choices) else ""))
        st.caption(_("The head's map: row {word} is the question; outlined: your word.").format(word=word))


class GuessView(QuestionView[GuessQuestion]):
    """Which word will the model guess first: its probabilities on the bars."""

    said: ClassVar[Mapping[str, str]] = {
        "lost": N_(
            "The model's first guess is {answer}. Your answer, {word}, did not reach the class before the reveal: the "
            "class's store was not answering."
        ),
        "none": N_("The model's first guess is {answer}. You did not answer this one."),
        "hit": N_("**Hit.** You picked {word}, and the model's first guess is {answer}."),
        "miss": N_("**Not this time.** You picked {word}; the model's first guess is {answer}."),
    }

    def asks(self, question: GuessQuestion) -> str:
        return _("**Which word will the model guess first for the blank?**")

    def pick_label(self) -> str:
        return _("The model's first guess")

    def revealed(self, question: GuessQuestion) -> str:
        answer = isolate(plain(question.model_answer))
        return _("Revealed to everyone: the model's first guess is {answer}.").format(answer=answer)

    def legend(self, question: GuessQuestion, *, projector: bool) -> str:
        if projector:
            return _(
                "Orange: the share of the class that picked each word (the count on each bar); blue: the model's "
                "probability for each word."
            )
        return _("Orange: the share of the class that picked each word; blue: the model's probability for each word.")


VIEWS: dict[type[Question], QuestionView[Any]] = {AttentionQuestion: AttentionView(), GuessQuestion: GuessView()}


def view_of(question: Question) -> QuestionView[Any]:
    return VIEWS[type(question)]


# What the two screens draw, for any kind of question.


def ask(question: Question, number: int) -> None:
    """A phone's question: its number, the question, the sentence (no map, no numbers before the reveal)."""
    st.subheader(_("Question {n}").format(n=number))
    st.markdown(view_of(question).asks(question))
    if question.sentence:
        st.markdown(_("In the sentence: {sentence}").format(sentence=isolate(plain(question.sentence))))


def answer_form(question: Question, *, key: str, closed: bool) -> str | None:
    """A phone's answer: one of the question's choices, or None while none is picked."""
    return st.selectbox(
        view_of(question).pick_label(),
        [str(c) for c in question.choices],
        index=None,
        placeholder=_("Pick a word"),
        key=key,
        disabled=closed,
    )


def class_chart(question: Question, tally: dict[str, int], *, revealed: bool, shown: bool, large: bool) -> None:
    """The projector's chart: the class's answers (none drawn unless `shown`), the model's row once revealed."""
    view = view_of(question)
    chart(view.chart(question, tally if shown else {}, model=revealed, large=large), "live_class_tally", table=False)
    if revealed:
        st.caption(view.legend(question, projector=True))
    elif shown:
        st.caption(
            _(
                "Orange: the share of the class that picked each word (the count on each bar). The model's bars come "
                "at the reveal."
            )
        )
    else:
        st.caption(_("The class's answers are hidden until the reveal; the count above says how many answered."))


def reveal_line(question: Question) -> None:
    """The projector at the reveal: the model's answer, and the reflection prompt."""
    st.success(view_of(question).revealed(question))
    _prompt(question)


def show_answer(question: Question, *, mine: str | None, tally: dict[str, int], lost: str | None) -> None:
    """A phone at the reveal: hit or miss (or the answer that never reached the store: `lost`), the prompt, the
    class's answers beside the model's row (on a phone, within the first screen), what the kind draws below, and
    the quiz's page when the teacher allowed it."""
    view = view_of(question)
    choices = list(question.choices)
    picked = choices.index(mine) if mine in choices else None
    said = {"word": isolate(plain(mine or "")), "answer": isolate(plain(question.model_answer))}
    if mine is None and lost is not None:
        st.warning(
            _(view.said["lost"]).format(answer=said["answer"], word=isolate(plain(lost))), icon=":material/cloud_off:"
        )
    elif mine is None:
        st.info(_(view.said["none"]).format(**said))
    elif mine == question.model_answer:
        st.success(_(view.said["hit"]).format(**said))
    else:
        st.warning(_(view.said["miss"]).format(**said))
    _prompt(question)
    # Her word keeps its label on a phone; raw scores stand on their own axis.
    chart(view.chart(question, tally, model=True, picked=picked), "join_tally", table=False)
    st.caption(view.legend(question, projector=False))
    view.below(question, picked)
    if not question.locked and question.link:
        link = question.link
        if language() != SOURCE_LANGUAGE:
            link += f"&{LANGUAGE_KEY}={language()}"
        st.markdown(_("[Open this question's page and explore it]({link})").format(link=link))
    st.caption(_("The next question appears here by itself."))


def _prompt(question: Question) -> None:
    if question.prompt:
        st.markdown(_("**To think about:** {prompt}").format(prompt=plain(question.prompt)))
