"""The contract every store keeps (issue 26): what the pages call, whichever store holds the class.

A class is a sequence of questions. The teacher creates it with the first question and gets a code (for the
projector) and a teacher key (for the teacher's session only: it must never reach a student's page or URL). Students
answer with an opaque id the app picks per browser session; a second answer replaces the first until the reveal.
"""

from __future__ import annotations

from typing import Any, Protocol

from classroom.rules import ClassStatus


class ClassStore(Protocol):
    """Codes are normalised (case, spaces, "-"); an unknown, malformed or expired code raises ClassNotFound, an ended
    one ClassEnded (a ClassNotFound) — except where a method says otherwise. A wrong teacher key raises
    PermissionError and changes nothing. Bad input raises ValueError with a sentence a page can show. A store that
    does not answer raises StoreUnavailableError (classroom/faults.py translates its backend's errors) and wrote nothing
    that it acknowledged."""

    def create(self, question: dict[str, Any]) -> tuple[str, str]:
        """Open a class on its first question: (code, teacher_key)."""
        ...

    def question(self, code: str) -> dict[str, Any]:
        """The current question, as the teacher gave it."""
        ...

    def answer(self, code: str, student: str, answer: str, name: str | None = None) -> bool:
        """Record `student`'s answer to the current question (replacing their earlier one): True once it is stored
        for good (committed), False when the question is already revealed, its timer has run out, or the class has
        ended. `answer` must be
        one of the question's "choices" when it has them; `name` (optional, at most 20 characters after stripping)
        is kept for the class's life and never shown to students."""
        ...

    def join(self, code: str, student: str, name: str | None = None) -> str:
        """`student` joins the class (once, whatever their tabs and reloads): the normalised code. `name` as in
        answer. An ended class raises ClassEnded."""
        ...

    def lobby(self, code: str, teacher_key: str) -> tuple[int, list[str]]:
        """(how many students joined, the names given, sorted): the teacher's view before and while asking."""
        ...

    def is_teacher(self, code: str, teacher_key: str) -> bool:
        """Whether `teacher_key` controls the open class `code` (False for a wrong key, an unknown or ended class)."""
        ...

    def request_control(self, code: str, key_hash: str) -> str:
        """A second device of the teacher's (a phone) asks to control the class with a key it made itself (only its
        hash is sent and kept): the number it shows, which the teacher allows on the panel. At most MOST_REQUESTS
        wait; a new one drops the oldest."""
        ...

    def control_requests(self, code: str, teacher_key: str) -> list[str]:
        """The numbers of the devices waiting to be allowed, oldest first."""
        ...

    def allow_control(self, code: str, teacher_key: str, number: str) -> bool:
        """The device showing `number` may control the class (its key joins the class's keys, at most MOST_DEVICES):
        False when no device waits with that number."""
        ...

    def teacher_here(self, code: str, teacher_key: str) -> None:
        """The teacher's screen checks in (every few seconds): students see when the teacher is away."""
        ...

    def tally(self, code: str) -> dict[str, int]:
        """How many students picked each answer to the current question, most picked first."""
        ...

    def reveal(self, code: str, teacher_key: str) -> None:
        """Close the current question's answers and show the model's answer on every screen."""
        ...

    def revealed(self, code: str) -> bool: ...

    def end(self, code: str, teacher_key: str) -> None:
        """End the class: every answer and name is deleted; the per-question tallies stay for the summary until the
        class expires. Ending an ended class again does nothing."""
        ...

    def next_question(self, code: str, teacher_key: str, question: dict[str, Any]) -> int:
        """Move the class to a new question (empty tally, not revealed): its number. The previous question's answers
        are reduced to its tally and deleted."""
        ...

    def status(self, code: str) -> ClassStatus:
        """Where the class stands (ended classes too: `ended` is True, until the class expires)."""
        ...

    def my_answer(self, code: str, student: str) -> str | None:
        """`student`'s answer to the current question, or None."""
        ...

    def named(self, code: str, teacher_key: str) -> int:
        """How many students gave a name (the teacher's only view of names)."""
        ...

    def summary(self, code: str, teacher_key: str) -> list[dict[str, Any]]:
        """Per question, in order: {"number", "question", "tally", "answers", "model_answer"} (the question dict's
        "model_answer" or None). No names, no student ids. Works after the class ended, until it expires."""
        ...
