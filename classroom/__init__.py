"""A live class (issue 26): the teacher asks, every student answers from a phone, the class's answers meet the model's.

A service beside attention_core (it never imports streamlit): the store that holds a class outside any one app
process (store.py: the contract every store keeps, typed), the question it holds (question.py: one record per kind
of question, to and from the store's JSON), and the pure parts the pages use (limits.py, plan.py, summary.py, qr.py).

    from classroom import open_store
    store = open_store()                      # the default SQLite file, or ATTENTION_CLASS_STORE
    code, teacher_key = store.create({"sentence": "...", "row": "it", "choices": [...]})
    store.answer(code, student_id, "street")  # True: stored for good

docs/classroom.md ("The store") says where things live and what is kept.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import cast

from classroom.faults import Guarded
from classroom.rules import IDLE_SECONDS, ClassEnded, ClassNotFound, ClassStatus, Clock, StoreUnavailableError
from classroom.sqlite_store import SqliteStore
from classroom.store import ClassStore

__all__ = [
    "ClassEnded",
    "ClassNotFound",
    "ClassStatus",
    "ClassStore",
    "SqliteStore",
    "StoreUnavailableError",
    "default_url",
    "open_store",
]

STORE_ENV = "ATTENTION_CLASS_STORE"  # a store's URL: sqlite:///path.db or redis://host:port/0
FOLDER_ENV = "ATTENTION_CLASS_DIR"  # the folder of the default SQLite file
FILE_NAME = "classes.db"


def default_url() -> str:
    """ATTENTION_CLASS_STORE if set; else a SQLite file in ATTENTION_CLASS_DIR, or in the user's cache folder
    ($XDG_CACHE_HOME or ~/.cache)/attention-explainer/classes.db."""
    if os.environ.get(STORE_ENV):
        return os.environ[STORE_ENV]
    if os.environ.get(FOLDER_ENV):
        folder = Path(os.environ[FOLDER_ENV]).expanduser()
    else:
        folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attention-explainer"
    return f"sqlite:///{(folder / FILE_NAME).absolute()}"


def open_store(url: str | None = None, *, clock: Clock = time.time, idle_seconds: float = IDLE_SECONDS) -> ClassStore:
    """The store at `url`: "sqlite:///relative.db", "sqlite:////absolute/path.db" (as SQLAlchemy writes them), or
    "redis://host:port/0" ("rediss://" and "unix://" too); None → default_url(). `clock` and `idle_seconds` are for
    tests (a Redis store's keys expire by the server's own clock). Every call of the store returned raises
    StoreUnavailableError when its backend does not answer (classroom/faults.py)."""
    url = url or default_url()
    scheme = url.partition("://")[0].lower()
    if scheme == "sqlite":
        path = url[len("sqlite:///") :]
        if url[: len("sqlite:///")].lower() != "sqlite:///" or not path or path == ":memory:":
            raise ValueError(f"A SQLite store is a file: sqlite:///path/to/classes.db, not {url!r}.")
        return _guarded(SqliteStore(path, clock=clock, idle_seconds=idle_seconds))
    if scheme in ("redis", "rediss", "unix"):
        from classroom.redis_store import RedisStore  # only a Redis store needs the redis package

        return _guarded(RedisStore(url, clock=clock, idle_seconds=idle_seconds))
    raise ValueError(f"Unknown class store {url!r}: use sqlite:///path.db or redis://host:port/0.")


def _guarded(store: ClassStore) -> ClassStore:
    """`store` (checked by mypy against the ClassStore contract here) with its backend's faults said as one error."""
    return cast(ClassStore, Guarded(store))
