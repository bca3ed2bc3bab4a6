"""A lesson: a sentence chosen to show one thing, the page and settings that show it, what to look at, and its link
(and, for many, its question). The lessons themselves are data, in ui/lessons/catalogue.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from attention_core.head_names import names_one_head
from attention_core.story.text import tokenize

LESSON_PARAM = "lesson"  # the URL parameter naming the open lesson
QUIZ_PAGES = ("heads", "similarity", "trainable")  # the pages with Guess first (ui/guess_view.py)


@dataclass(frozen=True)
class MarkedCell:
    """The heatmap cell a lesson points at, by its row and column labels; nth picks a repeat of a word typed
    twice (ذهب … ذهب: the second is the noun)."""

    row: str
    column: str
    row_nth: int = 1
    column_nth: int = 1


@dataclass(frozen=True)
class Lesson:
    """A sentence chosen to show one thing, the page and settings that show it, and what to look at."""

    title: str
    topic: str  # repetition, agreement, negation, two meanings, word order, heads, pretrained English heads
    page: str  # file stem in pages/, which is also its URL path
    sentence: str
    look_for: str
    settings: dict[str, object] = field(default_factory=dict)  # widget keys of that page → values
    expected_guess: str | None = None  # Fill-the-blank lessons: the model's top guess (tests hold the app to it)
    expected_after: str | None = None  # knock-out lessons: the top guess once the lesson's heads are knocked out
    look_at: str = ""  # one line, shown on the opened page: where to look ("row *it*, column *animal* …")
    cell: MarkedCell | None = None  # the cell that line names, outlined on the heatmaps below
    figures: tuple[str, ...] = ()  # chart keys of the heatmaps that get the outline
    panel: str = ""  # in a grid of heads, the panel of the cell ("L4 H2"); "" for a single heatmap

    @property
    def prefix(self) -> str:
        """What the page's widget keys start with: its URL path (heads_layer, fill_blank_k, word_order_position)."""
        return self.page

    @property
    def sentence_key(self) -> str:
        return f"{self.prefix}_sentence"

    @property
    def model_key(self) -> str:
        return f"{self.prefix}_model"

    @property
    def slug(self) -> str:
        """The lesson's name in a URL: its title's words, joined by "-" (Arabic words stay Arabic)."""
        return "-".join(re.findall(r"\w+", self.title.casefold()))

    def query(self) -> dict[str, str | list[str]]:
        """The lesson's URL query: its name, the sentence and every setting, as the page's bound widgets read them
        (a multiselect's list as a repeated parameter). The name tells the page to start clean
        (ui/lessons/view.py): settings left from earlier must not win."""
        values = {LESSON_PARAM: self.slug, self.sentence_key: self.sentence, **self.settings}
        return {k: _in_url(v) for k, v in values.items()}

    def quiz_query(self) -> dict[str, str | list[str]] | None:
        """The lesson as a question (ui/guess_view.py): its page opens with the heatmaps hidden and asks where the
        lesson's row word looks, in the lesson's head; on the Abstraction page, which of its texts' pairs ends
        closest; on Fill the blank, the model's first guess; None for a lesson with no such question (Word order, a
        knock-out's panels)."""
        if self.page == "abstraction" and "abstraction_texts_a" in self.settings:
            return self.query() | {"abstraction_quiz": "true"}  # which pair ends closest (ui/abstraction/quiz.py)
        if self.page == "fill_blank" and self.expected_guess is not None:
            return self.query() | {"fill_blank_quiz": "true"}  # the model's first guess (ui/fill_blank/quiz.py)
        if self.page not in QUIZ_PAGES or self.cell is None or (self.panel and not names_one_head(self.panel)):
            return None
        typed = [token.surface for token in tokenize(self.sentence)]
        # A word typed more than once is named with its place, as the page's selectbox names it (ذهب ·2).
        row = self.cell.row if typed.count(self.cell.row) < 2 else f"{self.cell.row} ·{self.cell.row_nth}"
        quiz = {f"{self.prefix}_quiz": "true", f"{self.prefix}_quiz_row": row}
        return self.query() | quiz | ({f"{self.prefix}_quiz_head": self.panel} if self.panel else {})


def _in_url(value: object) -> str | list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value).lower() if isinstance(value, bool) else str(value)
