"""What every store holds to, whatever keeps the class: codes, teacher keys, what a question and an answer may be,
the errors a page shows, and how long an idle class lives.

The stores (sqlite_store.py, redis_store.py) differ only in where they keep things; every check a student's or a
teacher's input goes through is here, once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from classroom.words import N_, Worded

# Codes are read off a projector and typed on a phone: no 0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V (23 symbols; 23⁵ ≈ 6.4
# million codes, so a guessed code almost never opens a class, and limits.py makes guessing slow anyway).
CODE_ALPHABET = "ACDEFGHJKMNPQRTWXY34679"
CODE_LENGTH = 5
IDLE_SECONDS = 12 * 60 * 60  # a class no one has written to for 12 hours is deleted, students and all
NAME_LENGTH = 20  # a student's optional display name, in characters after stripping
ANSWER_LENGTH = 200  # a word picked (or a share written as text): generous, still small
STUDENT_LENGTH = 100  # the app's opaque per-session id (secrets.token_urlsafe(16) is 22 characters)
QUESTION_BYTES = 16_000  # a question dict as JSON: a quiz link, a sentence, choices, a prompt

Clock = Callable[[], float]  # seconds since the epoch; time.time, or a test's hand-turned clock


class ClassNotFound(LookupError):  # noqa: N818 (the name issue 26 gives it)
    """No open class has this code: mistyped, expired, or never made. str(error) is a sentence a page can show."""

    def __init__(self, code: str, why: Worded | None = None) -> None:
        self.code = code
        super().__init__(
            why
            or Worded(N_("There is no class with the code {code}: check the code on the teacher's screen."), code=code)
        )


class ClassEnded(ClassNotFound):
    """The class existed and the teacher ended it (a ClassNotFound, so a page that catches one catches both)."""

    def __init__(self, code: str) -> None:
        super().__init__(code, Worded(N_("The class {code} has ended."), code=code))


@dataclass(frozen=True)
class ClassStatus:
    """Where a class stands, as any student may see it: the question, its number, whether it is revealed or the
    class ended, and how many answered it (a count; never who)."""

    question_number: int  # 1 for the first question, +1 at each next_question
    revealed: bool
    ended: bool
    answers: int  # answers to the current question (0 once ended: the answers are deleted)
    question: dict[str, Any]  # the current question as the teacher gave it ({} once ended)
    # Not part of a status's identity (a test compares statuses by their question and counts):
    joined: int = field(default=0, compare=False)  # students who joined the class (one each, whatever their tabs)
    teacher_seen: float = field(default=0.0, compare=False)  # when the teacher's screen last said it was there
    deadline: float = field(default=0.0, compare=False)  # when the answers close by the question's timer (0: never)

    def teacher_away(self, now: float) -> float:
        """Seconds since the teacher's screen last checked in (0 while it is there)."""
        return max(0.0, now - self.teacher_seen - TEACHER_AWAY_SECONDS) if self.teacher_seen else 0.0

    def seconds_left(self, now: float) -> float | None:
        """Seconds until the question's timer closes the answers; None without a timer."""
        return max(0.0, self.deadline - now) if self.deadline else None


class StoreUnavailableError(RuntimeError):
    """The store did not answer (Redis down or unreachable, the SQLite file locked past its wait): nothing was written.
    str(error) is a sentence a page can show; the page retries by itself."""

    def __init__(self) -> None:
        super().__init__(
            Worded(N_("The class's store is not answering right now; this page tries again by itself every second."))
        )


TEACHER_AWAY_SECONDS = 20.0  # the teacher's panel checks in every few seconds; this long without it, it is away
HEARTBEAT_SECONDS = 5.0  # how often the teacher's panel writes that it is there
TIMER_GRACE_SECONDS = 1.0  # an answer sent as the countdown reads 0 still counts (a phone's second lags the server's)


def deadline_of(question: dict[str, Any], now: float) -> float:
    """When a question asked at `now` closes its answers: now + its "seconds" (5 to 600) plus the grace, or 0.0 (no
    timer) for none."""
    seconds = question.get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0:
        return 0.0
    return now + min(600.0, max(5.0, float(seconds))) + TIMER_GRACE_SECONDS


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(typed: object) -> str:
    """A code as a student types it ("  acd-ef ", full-width letters, Arabic-Indic digits from an Arabic keyboard:
    "AC٣٤٧" → "AC347") → "ACDEF"; anything that cannot be a code raises ClassNotFound."""
    text = ""
    if isinstance(typed, str):
        folded = unicodedata.normalize("NFKC", typed)
        text = "".join(str(unicodedata.decimal(ch, "")) or ch for ch in folded if not ch.isspace() and ch != "-")
        text = text.upper()
    if len(text) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in text):
        shown = str(typed)[:20] if isinstance(typed, str) else type(typed).__name__
        why = N_("“{typed}” is not a class code: a code is {length} letters and digits from the teacher's screen.")
        raise ClassNotFound(shown, Worded(why, typed=shown, length=CODE_LENGTH))
    return text


def new_teacher_key() -> tuple[str, str]:
    """A teacher key and the hash the store keeps (the key itself is never stored)."""
    key = secrets.token_urlsafe(24)
    return key, hash_key(key)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def check_key(code: str, given: object, stored_hash: str) -> None:
    """PermissionError unless `given` is one of the class's teacher keys (the teacher's; a device the teacher allowed
    to control the class: the stored hashes, space-separated), compared in constant time."""
    given_hash = hash_key(given) if isinstance(given, str) else ""
    matches = [hmac.compare_digest(given_hash.encode(), kept.encode()) for kept in stored_hash.split()]
    if not given_hash or not any(matches):
        raise PermissionError(Worded(N_("Only the teacher who started class {code} can do that."), code=code))


PAIRING_DIGITS = 4  # the number a teacher's second device shows, and the projector's panel asks to allow
MOST_REQUESTS = 5  # pending requests a class keeps (more: the oldest is dropped)
MOST_DEVICES = 4  # keys a class accepts: the teacher's, and up to three devices allowed


def new_pairing_number() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(PAIRING_DIGITS))


def check_key_hash(key_hash: object) -> str:
    """A device's key hash (sha256 hex), as a request to control a class carries it; ValueError for anything else."""
    if not isinstance(key_hash, str) or len(key_hash) != 64 or any(ch not in "0123456789abcdef" for ch in key_hash):
        raise ValueError(Worded(N_("A request to control a class carries a key's hash.")))
    return key_hash


def question_json(question: object) -> str:
    """A question dict as the JSON the store keeps; ValueError when it is not a dict of JSON values, is too long, or
    has "choices" that are not a non-empty list of words."""
    if not isinstance(question, dict) or not all(isinstance(k, str) for k in question):
        raise ValueError(Worded(N_("A question is a dict with text keys, not {kind}."), kind=type(question).__name__))
    choices = question.get("choices")
    if choices is not None and (
        not isinstance(choices, list) or not choices or not all(isinstance(c, str) and c for c in choices)
    ):
        raise ValueError(Worded(N_("A question's 'choices' must be a non-empty list of words.")))
    try:
        text = json.dumps(question, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as error:
        why = N_("A question must hold only text, numbers, lists and dicts: {error}")
        raise ValueError(Worded(why, error=str(error))) from None
    if len(text.encode()) > QUESTION_BYTES:
        why = N_("The question is too long ({size} bytes; at most {most}).")
        raise ValueError(Worded(why, size=len(text.encode()), most=QUESTION_BYTES))
    return text


def check_student(student: object) -> str:
    if not isinstance(student, str) or not 0 < len(student) <= STUDENT_LENGTH:
        raise ValueError(Worded(N_("A student id is text of 1 to {most} characters."), most=STUDENT_LENGTH))
    return student


def check_answer(answer: object, question: dict[str, Any]) -> str:
    """The answer as stored; ValueError when it is empty, too long, or not one of the question's choices."""
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError(Worded(N_("An answer is a word: it cannot be empty.")))
    if len(answer) > ANSWER_LENGTH:
        raise ValueError(Worded(N_("An answer is at most {most} characters."), most=ANSWER_LENGTH))
    choices = question.get("choices")
    if isinstance(choices, list) and answer not in choices:
        raise ValueError(Worded(N_("“{answer}” is not one of this question's choices."), answer=answer[:40]))
    return answer


def check_name(name: object) -> str | None:
    """A display name stripped, or None for none given; ValueError when longer than NAME_LENGTH characters."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise ValueError(Worded(N_("A name is text.")))
    stripped = name.strip()
    if len(stripped) > NAME_LENGTH:
        why = N_("A name is at most {most} characters ({given} given).")
        raise ValueError(Worded(why, most=NAME_LENGTH, given=len(stripped)))
    # Controls and line breaks are refused; format characters are a name's own (the ZWNJ of Persian names).
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in stripped):
        raise ValueError(Worded(N_("A name cannot hold control characters.")))
    return stripped or None


def tally_of(answers: list[str]) -> dict[str, int]:
    """How many picked each answer, most picked first (ties alphabetically, so every store orders them alike)."""
    counts: dict[str, int] = {}
    for answer in answers:
        counts[answer] = counts.get(answer, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def summary_row(number: int, question: dict[str, Any], tally: dict[str, int]) -> dict[str, Any]:
    """One question of a class's summary: what was asked, the class's tally, the model's answer (no students)."""
    return {
        "number": number,
        "question": question,
        "tally": tally,
        "answers": sum(tally.values()),
        "model_answer": question.get("model_answer"),
    }
