"""What only the Redis store does (classroom/redis_store.py), on a real redis-server started by the test: prefixed
keys that expire with the class and are refreshed by every write, two app machines sharing one class."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from classroom import ClassNotFound, StoreUnavailableError, open_store, redis_store
from classroom.redis_store import PREFIX, RedisStore
from classroom.rules import IDLE_SECONDS
from tests.test_classroom_store import QUESTION, redis_url

pytestmark = pytest.mark.slow  # a redis-server
redis_url = redis_url  # the same fixture: a redis-server of this module's own


def test_every_key_is_prefixed_and_expires_twelve_hours_after_the_last_write(redis_url: str) -> None:
    store = open_store(redis_url)
    client = store.client  # type: ignore[attr-defined]
    client.flushdb()
    code, key = store.create(QUESTION)
    store.answer(code, "ann", "it", name="Ann")
    keys = sorted(client.scan_iter("*"))
    parts = ("meta", "questions", "answers", "names", "members")  # answering is joining too
    assert keys == sorted(f"{PREFIX}{{{code}}}:{part}" for part in parts)
    for name in keys:
        assert IDLE_SECONDS * 1000 - 5000 < client.pttl(name) <= IDLE_SECONDS * 1000
        client.pexpire(name, 60_000)  # as if the class had idled for 11 h 59 min
    store.reveal(code, key)  # a write: every key lives 12 more hours
    assert all(client.pttl(name) > IDLE_SECONDS * 1000 - 5000 for name in keys)
    store.tally(code), store.status(code)  # reads refresh nothing
    client.pexpire(keys[0], 60_000)
    store.status(code)
    assert client.pttl(keys[0]) <= 60_000


def until(condition: Any, timeout_s: float = 10) -> None:
    """Polls condition() until it is true; fails after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)


def test_an_idle_class_expires_on_the_server(redis_url: str) -> None:
    store = open_store(redis_url, idle_seconds=1.0)
    client = store.client  # type: ignore[attr-defined]
    code, _ = store.create(QUESTION)
    meta = f"{PREFIX}{{{code}}}:meta"
    until(lambda: client.pttl(meta) < 500)  # half of the class's idle second has gone
    left = client.pttl(meta)
    assert store.answer(code, "ann", "it", name="Ann")  # a write: refreshes the whole second
    assert client.pttl(meta) > left
    assert store.tally(code) == {"it": 1}

    def gone() -> bool:
        try:
            store.status(code)
        except ClassNotFound:
            return True
        return False

    until(gone)  # nobody writes: the server expires the class by itself
    assert not list(client.scan_iter(f"*{code}*"))


def test_two_app_machines_share_one_class(redis_url: str) -> None:
    """Two serve.py instances each open their own store on the same Redis: one class, one tally."""
    here, there = open_store(redis_url), open_store(redis_url)
    code, key = here.create(QUESTION)
    assert there.answer(code.lower(), "ann", "street") and here.answer(code, "bob", "street")
    assert here.tally(code) == there.tally(code) == {"street": 2}
    there.reveal(code, key)
    assert here.revealed(code) and here.answer(code, "carl", "it") is False


def test_an_unreachable_server_is_an_error_not_a_silent_loss() -> None:
    """Said as the store's own error (a sentence a page shows), its cause redis's (issue 33: a raw traceback before)."""
    import redis

    store = open_store("redis://127.0.0.1:9/0")  # the discard port: nothing listens
    with pytest.raises(StoreUnavailableError, match="not answering") as raised:
        store.answer("ACDEF", "ann", "it")
    assert isinstance(raised.value.__cause__, redis.ConnectionError)


def test_an_answer_checked_against_the_last_question_is_checked_again(redis_url: str) -> None:
    """The one gap in a Redis answer: its word is checked against the question read, then the Lua script writes it.
    Here the teacher moves on exactly in that gap (a real second store, at the moment the first has read)."""
    teacher = open_store(redis_url)
    code, key = teacher.create({"choices": ["first", "both"]})

    class Interrupted(RedisStore):
        def _read(self, typed: str) -> tuple[str, int, bool, bool, dict[str, Any], int]:
            state = super()._read(typed)
            if state[1] == 1:
                teacher.next_question(code, key, {"choices": ["second", "both"]})
            return state

    student = Interrupted(redis_url)
    assert student.answer(code, "ann", "both")  # checked again against question 2, where "both" is a choice
    assert teacher.tally(code) == {"both": 1}
    assert [row["tally"] for row in teacher.summary(code, key)] == [{}, {"both": 1}]
    code, key = teacher.create({"choices": ["first", "both"]})
    with pytest.raises(ValueError, match="not one of this question's choices"):
        student.answer(code, "ann", "first")  # fine for question 1, not for question 2 which it would have landed in
    assert [row["tally"] for row in teacher.summary(code, key)] == [{}, {}]


def test_a_server_that_stops_answering_is_an_error_within_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Redis that accepts the connection and then says nothing (hung, or a firewall eating replies)."""
    import redis

    monkeypatch.setattr(redis_store, "TIMEOUT", 0.3)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        store = open_store(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError) as raised:
            store.answer("ACDEF", "ann", "it")
        assert isinstance(raised.value.__cause__, redis.TimeoutError)
        assert time.monotonic() - started < 3  # seconds, not a frozen session
