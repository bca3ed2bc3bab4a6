"""A store that does not answer, said as one error: StoreUnavailableError, whatever keeps the class.

Redis stopped or unreachable raises redis's ConnectionError or TimeoutError; a SQLite file locked past its wait or on a
failing disk raises sqlite3.OperationalError. A page should not know which store it has, and must never show either
as a traceback (issue 33): `Guarded` wraps a store so that each of its calls raises StoreUnavailableError instead,
with a sentence a page can show in the reader's language. What the store acknowledged (an answer's True) was
committed; a call that raised wrote nothing the caller may count on, so the page says so and tries again.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import Any

from classroom.rules import StoreUnavailableError


def _backend_faults() -> tuple[type[BaseException], ...]:
    faults: list[type[BaseException]] = [sqlite3.OperationalError, ConnectionError, TimeoutError]
    try:
        import redis.exceptions

        faults += [redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.BusyLoadingError]
    except ImportError:  # a SQLite-only install
        pass
    return tuple(faults)


FAULTS = _backend_faults()


class Guarded:
    """`store`'s every public method, its backend's faults raised as StoreUnavailableError (the cause kept)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __repr__(self) -> str:
        return f"Guarded({self._store!r})"

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name.startswith("_") or not callable(found):
            return found
        return _guarded(found)


def _guarded(call: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(call)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except FAULTS as fault:
            raise StoreUnavailableError() from fault

    return guarded
