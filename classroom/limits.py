"""Joining with wrong codes, slowed down per session: after 5 wrong codes in a minute, the next try waits.

Pure (no store, no streamlit): a page keeps one JoinLimiter in its session and asks it before looking a code up.
A new session starts afresh, so this slows a guesser rather than stopping one; what stops guessing is the code
space (23⁵ ≈ 6.4 million codes, a handful open at a time) together with this.
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
        """The normalised code once `look_up(code)` (e.g. store.question) finds the class. A ClassNotFound it (or a
        malformed code) raises counts as a wrong code and goes on up (an ended class does not count);
        TooManyWrongCodesError while this session must wait (nothing is looked up then)."""
        self.check()
        try:
            code = normalise_code(typed)
            look_up(code)
        except ClassEnded:
            raise  # a real code, typed right: the class is over, nothing was guessed
        except ClassNotFound:
            self.missed()
            raise
        return code
