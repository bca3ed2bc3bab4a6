"""Joining with wrong codes, slowed down per session: after 5 wrong codes in a minute, the next wrong code waits.

Pure (no store, no streamlit): a page keeps one JoinLimiter in its session and passes every code through it.

The trade-off. A code is looked up even while the session must wait: the right one joins at once, a wrong one says
how long to wait (the same wait: trying again neither lengthens nor ends it). A student who mistyped five times in a
hurry joins as soon as they type the code right, instead of standing a minute outside a class that moves on. The
price: the wait no longer holds a guesser back, since "wait" to a wrong code and a class to a right one tell a
guesser every time whether a code is open. The wait was never the lock (a new session starts afresh, so it slowed a
guesser only until another tab); the code space is: 23⁵ ≈ 6.4 million codes with a handful of classes open at a
time, about one hit in a million guesses, each a request to the server. And a class found so gives its guesser a
seat among the students, nothing more: the teacher key, which reveals and ends, is in no code. What the wait still
does is tell a student plainly that the code they keep typing is wrong.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from classroom.rules import ClassEnded, ClassNotFound, Clock, normalise_code
from classroom.words import N_, Worded

WRONG_CODES = 5  # wrong codes allowed …
WINDOW_SECONDS = 60.0  # … within this many seconds


class TooManyWrongCodesError(Exception):
    """Too many wrong codes lately; `seconds` (a whole number, at least 1) until the next try is allowed."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        why = N_("Too many wrong codes: wait {seconds} s, then try again.")
        super().__init__(Worded(why, seconds=seconds))


@dataclass
class JoinLimiter:
    """A sliding window over one session's wrong codes. `clock` is monotonic seconds (a test's hand-turned one)."""

    allowed: int = WRONG_CODES
    window: float = WINDOW_SECONDS
    clock: Clock = time.monotonic
    misses: list[float] = field(default_factory=list)  # when each recent wrong code was tried, oldest first

    def wait(self) -> float:
        """Seconds until the next try is allowed (0.0: now)."""
        now = self.clock()
        self.misses = [t for t in self.misses if now - t < self.window]
        if len(self.misses) < self.allowed:
            return 0.0
        return self.misses[-self.allowed] + self.window - now

    def check(self) -> None:
        """TooManyWrongCodesError when this session must wait before trying another code."""
        left = self.wait()
        if left > 0:
            raise TooManyWrongCodesError(max(1, math.ceil(left)))

    def missed(self) -> None:
        """Count one wrong code."""
        self.misses.append(self.clock())

    def join(self, typed: str, look_up: Callable[[str], object]) -> str:
        """The normalised code once `look_up(code)` (e.g. store.question) finds the class, even while this session
        must wait (see the module's docstring). A ClassNotFound it (or a malformed code) raises counts as a wrong code
        and goes on up, or, while this session must wait, becomes TooManyWrongCodesError with the wait left (and does
        not count: the wait stays as it was). An ended class raises ClassEnded and does not count."""
        left = self.wait()
        try:
            code = normalise_code(typed)
            look_up(code)
        except ClassEnded:
            raise  # a real code, typed right: the class is over, nothing was guessed
        except ClassNotFound:
            if left > 0:
                raise TooManyWrongCodesError(max(1, math.ceil(left))) from None
            self.missed()
            raise
        return code
