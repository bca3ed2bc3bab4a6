"""Who is in the class, and for how long a question stays open (issue 33), on a real SQLite file and a real
redis-server: a student joins once whatever their tabs and reloads (one student, one vote), the teacher's lobby counts
them and lists the names given (the teacher alone), a teacher key resumes control from any tab or process, the
teacher's screen checks in so students can be told it is away, and a question's timer closes its answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from classroom import ClassEnded, ClassStore, open_store
from classroom.rules import TEACHER_AWAY_SECONDS, TIMER_GRACE_SECONDS, ClassNotFound
from tests.test_classroom_store import QUESTION, HandClock, redis_url  # noqa: F401 (a fixture, used by name)


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.slow)])
def clocked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[ClassStore, HandClock]:
    clock = HandClock()
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path}/classes.db", clock=clock), clock
    store = open_store(request.getfixturevalue("redis_url"), clock=clock)
    store.client.flushdb()  # type: ignore[attr-defined]
    return store, clock


def test_a_student_joins_once_whatever_their_tabs_and_reloads(clocked: tuple[ClassStore, HandClock]) -> None:
    store, _ = clocked
    code, key = store.create(QUESTION)
    assert store.join(code.lower(), "ann", "Ann") == code
    store.join(code, "ann")  # a reload, a second tab, another process: the same browser's id
    store.join(code, "bob")
    assert store.status(code).joined == 2
    assert store.lobby(code, key) == (2, ["Ann"])
    store.answer(code, "ann", "street")
    store.answer(code, "ann", "animal")  # her second tab: replaces
    store.answer(code, "cem", "it")  # answering is joining too
    assert store.tally(code) == {"animal": 1, "it": 1} and store.status(code).joined == 3
    with pytest.raises(PermissionError):
        store.lobby(code, "not the key")
    store.end(code, key)
    with pytest.raises(ClassEnded):
        store.join(code, "dan")
    assert store.lobby(code, key) == (0, [])  # members and names are deleted with the class


def test_only_the_teacher_key_resumes_control_of_an_open_class(clocked: tuple[ClassStore, HandClock]) -> None:
    store, _ = clocked
    code, key = store.create(QUESTION)
    assert store.is_teacher(code, key) and store.is_teacher(code.lower(), key)
    wrong = key[:-1] + ("y" if key.endswith("x") else "x")  # one character off, whatever the key drawn
    assert not store.is_teacher(code, wrong) and not store.is_teacher("ACDEF" if code != "ACDEF" else "CDEFG", key)
    store.end(code, key)
    assert not store.is_teacher(code, key)  # an ended class has no one to resume


def test_students_can_tell_when_the_teachers_screen_is_away(clocked: tuple[ClassStore, HandClock]) -> None:
    store, clock = clocked
    code, key = store.create(QUESTION)
    assert store.status(code).teacher_away(clock()) == 0.0
    clock.now += TEACHER_AWAY_SECONDS + 40
    assert store.status(code).teacher_away(clock()) == pytest.approx(40)
    store.teacher_here(code, key)
    assert store.status(code).teacher_away(clock()) == 0.0
    with pytest.raises(PermissionError):
        store.teacher_here(code, "not the key")


def test_a_questions_timer_closes_its_answers_and_the_next_question_starts_its_own(
    clocked: tuple[ClassStore, HandClock],
) -> None:
    store, clock = clocked
    code, key = store.create(QUESTION | {"seconds": 30})
    assert store.status(code).seconds_left(clock()) == pytest.approx(30 + TIMER_GRACE_SECONDS)
    clock.now += 30
    assert store.answer(code, "ann", "street")  # within the grace: the countdown read 0 on her phone
    clock.now += TIMER_GRACE_SECONDS + 0.5
    assert store.status(code).seconds_left(clock()) == 0.0
    assert not store.answer(code, "bob", "it")  # closed: not stored, and said so (False)
    assert store.tally(code) == {"street": 1}
    store.next_question(code, key, QUESTION)  # no timer
    assert store.status(code).seconds_left(clock()) is None
    clock.now += 3600
    assert store.answer(code, "bob", "it")


def test_an_unknown_code_is_not_joined(clocked: tuple[ClassStore, HandClock]) -> None:
    store, _ = clocked
    with pytest.raises(ClassNotFound):
        store.join("ACDEF", "ann")


def test_a_store_file_from_before_gets_the_new_columns_and_keeps_its_classes(tmp_path: Path) -> None:
    """A teacher's cache file made by the first release (no teacher_seen, deadline or members) opens as it is."""
    import sqlite3

    path = tmp_path / "classes.db"
    with sqlite3.connect(path) as old:
        old.executescript(
            "CREATE TABLE classes (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, number INTEGER NOT NULL,"
            " revealed INTEGER NOT NULL, ended INTEGER NOT NULL, touched REAL NOT NULL);"
            "CREATE TABLE questions (code TEXT NOT NULL, number INTEGER NOT NULL, question TEXT NOT NULL, tally TEXT,"
            " PRIMARY KEY (code, number));"
        )
    clock = HandClock()
    store = open_store(f"sqlite:///{path}", clock=clock)
    code, key = store.create(QUESTION)
    store.join(code, "ann")
    assert store.status(code).joined == 1 and store.is_teacher(code, key)


def test_a_second_device_controls_the_class_once_the_teacher_allows_its_number(
    clocked: tuple[ClassStore, HandClock],
) -> None:
    """The teacher's phone makes its own key and sends only its hash; the projector's panel allows its number. No key
    is ever shown or stored in plain."""
    from classroom.rules import MOST_REQUESTS, hash_key

    store, clock = clocked
    code, key = store.create(QUESTION)
    phone_key = "a-key-the-phone-made-itself-0123456789"
    number = store.request_control(code, hash_key(phone_key))
    assert len(number) == 4 and number.isdigit()
    assert not store.is_teacher(code, phone_key)  # not before the teacher allows it
    assert store.control_requests(code, key) == [number]
    with pytest.raises(PermissionError):
        store.control_requests(code, phone_key)
    with pytest.raises(PermissionError):
        store.allow_control(code, phone_key, number)  # a device cannot allow itself
    assert not store.allow_control(code, key, "0000" if number != "0000" else "1111")
    assert store.allow_control(code, key, number)
    assert store.is_teacher(code, phone_key) and store.is_teacher(code, key)  # both control the class now
    store.reveal(code, phone_key)
    assert store.status(code).revealed and store.control_requests(code, key) == []
    with pytest.raises(ValueError):
        store.request_control(code, "not a hash")
    for k in range(MOST_REQUESTS + 2):  # a flood of requests keeps only the latest few
        clock.now += 1
        store.request_control(code, hash_key(f"device-{k}"))
    assert len(store.control_requests(code, key)) == MOST_REQUESTS
    store.end(code, phone_key)
    assert not store.is_teacher(code, key)
