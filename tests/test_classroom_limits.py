"""Joining with wrong codes is slowed per session (classroom/limits.py), on a hand-turned clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from classroom import ClassEnded, ClassNotFound, open_store
from classroom.limits import JoinLimiter, TooManyWrongCodesError


class HandClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_five_wrong_codes_a_minute_then_a_wait_that_says_how_long(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/classes.db")
    code, key = store.create({"row": "it"})
    clock = HandClock()
    limiter = JoinLimiter(clock=clock)
    wrong = "ACDEF" if code != "ACDEF" else "ACDEG"
    for typed in (wrong, "nope", "", wrong, "00000"):  # malformed codes count too
        with pytest.raises(ClassNotFound):
            limiter.join(typed, store.question)
        clock.now += 5  # five tries, 5 s apart
    with pytest.raises(TooManyWrongCodesError, match="wait 35 s") as waiting:
        limiter.join(wrong, store.question)
    assert waiting.value.seconds == 35
    clock.now += 34.5
    with pytest.raises(TooManyWrongCodesError, match="wait 1 s"):
        limiter.check()
    clock.now += 0.5  # the first wrong code is a minute old: one more try
    assert limiter.join(f" {code.lower()} ", store.question) == code
    with pytest.raises(ClassNotFound):
        limiter.join(wrong, store.question)
    with pytest.raises(TooManyWrongCodesError, match="wait 5 s"):
        limiter.check()
    store.end(code, key)
    clock.now += 60
    for _ in range(10):  # an ended class is a real code typed right: it says so, and counts as no guess
        with pytest.raises(ClassEnded):
            limiter.join(code, store.question)
    assert limiter.wait() == 0.0


def test_after_five_wrong_codes_the_right_code_still_joins(tmp_path: Path) -> None:
    """A student who mistyped five times joins at once with the right code; a wrong one, malformed or not, still
    says wait, and the wait stays what it was (trying again does not lengthen it, nor end it)."""
    store = open_store(f"sqlite:///{tmp_path}/classes.db")
    code, _key = store.create({"row": "it"})
    clock = HandClock()
    limiter = JoinLimiter(clock=clock)
    wrong = "ACDEF" if code != "ACDEF" else "ACDEG"
    for _ in range(5):
        with pytest.raises(ClassNotFound):
            limiter.join(wrong, store.question)
    clock.now += 10
    for typed in (wrong, "nope", wrong):
        with pytest.raises(TooManyWrongCodesError, match="wait 50 s"):
            limiter.join(typed, store.question)
    assert limiter.wait() == 50.0
    assert limiter.join(f"{code[:2]}-{code[2:].lower()}", store.question) == code
    with pytest.raises(TooManyWrongCodesError, match="wait 50 s"):  # the right code did not lift it for a guess
        limiter.join(wrong, store.question)


def test_a_right_code_never_waits_and_each_session_counts_its_own() -> None:
    clock = HandClock()
    mine, theirs = JoinLimiter(clock=clock), JoinLimiter(clock=clock)
    for _ in range(5):
        mine.missed()
    assert mine.wait() == 60.0 and theirs.wait() == 0.0
    assert JoinLimiter(allowed=2, window=10, clock=clock).join("acdef", lambda code: None) == "ACDEF"
