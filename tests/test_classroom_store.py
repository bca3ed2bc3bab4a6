"""The live class's store (classroom/, issue 26) as the pages and the checks outside the app use it: every test runs on
a real SQLite file and on a real redis-server started here (skipped when Debian's redis-server is missing; with
REQUIRE_BROWSER=1, as `.ci/run` sets, that is a failure). Nothing lost, and no one where they don't belong."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from classroom import ClassEnded, ClassNotFound, ClassStatus, ClassStore, open_store
from classroom.rules import CODE_ALPHABET, IDLE_SECONDS
from classroom.words import Worded

QUESTION = {
    "link": "similarity?similarity_quiz=true&similarity_quiz_row=it",
    "row": "it",
    "choices": ["the", "animal", "street", "it"],
    "model_answer": "animal",
}
SECOND = {"row": "ذهب", "choices": ["الله", "من", "ذهب"], "model_answer": "من"}


def find_redis_server() -> str | None:
    found = shutil.which("redis-server")
    return found or ("/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of its own on a free loopback port, nothing saved to disk; stopped by its PID."""
    binary = find_redis_server()
    if binary is None:
        reason = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="test-redis-") as folder:
        command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        server = subprocess.Popen([*command, "--dir", folder], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2) as connection:
                        connection.sendall(b"PING\r\n")
                        if connection.recv(16).startswith(b"+PONG"):
                            break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=10)


class HandClock:
    """A clock a test turns by hand (a SQLite store reads it; Redis keys expire by the server's own clock)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.slow)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ClassStore:
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path}/classes.db")
    url = request.getfixturevalue("redis_url")
    opened = open_store(url)
    opened.client.flushdb()  # type: ignore[attr-defined]
    return opened


def stored_bytes(store: ClassStore) -> bytes:
    """Everything the store holds, as bytes: the SQLite file and its WAL, or every Redis key and value."""
    if hasattr(store, "path"):
        return b"".join(p.read_bytes() for p in store.path.parent.glob(store.path.name + "*"))
    client = store.client  # type: ignore[attr-defined]
    dump = []
    for key in client.scan_iter("*"):
        dump += [key, json.dumps(client.hgetall(key), ensure_ascii=False)]
    return "\n".join(dump).encode()


def test_a_class_opens_on_its_question_with_a_short_unambiguous_code(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    assert len(code) == 5 and set(code) <= set(CODE_ALPHABET) and not set(code) & set("0O1IL")
    assert store.question(code) == QUESTION
    assert store.status(code) == ClassStatus(1, False, False, 0, QUESTION)
    assert store.tally(code) == {} and not store.revealed(code)
    assert store.question(f" {code[:2].lower()}-{code[2:].lower()} ") == QUESTION  # as a student types it
    assert len(key) >= 30 and key not in (store.create(QUESTION)[1], code)


def test_the_teacher_key_is_kept_only_as_a_hash(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    store.answer(code, "student-1", "it")
    assert key.encode() not in stored_bytes(store)
    assert key not in json.dumps([store.question(code), store.status(code).__dict__, store.tally(code)])


def test_a_second_answer_replaces_the_first(store: ClassStore) -> None:
    code, _ = store.create(QUESTION)
    assert store.answer(code, "ann", "street") and store.answer(code, "bob", "street")
    assert store.tally(code) == {"street": 2}
    assert store.answer(code, "ann", "animal")
    assert store.tally(code) == {"animal": 1, "street": 1}
    assert store.my_answer(code, "ann") == "animal" and store.my_answer(code, "carl") is None
    assert store.status(code).answers == 2


def test_bad_answers_and_names_get_a_clear_message_and_change_nothing(store: ClassStore) -> None:
    code, _ = store.create(QUESTION)
    with pytest.raises(ValueError, match="not one of this question's choices"):
        store.answer(code, "ann", "mat")
    with pytest.raises(ValueError, match="at most 20 characters"):
        store.answer(code, "ann", "it", name="x" * 21)
    for student in ("", "s" * 101):
        with pytest.raises(ValueError, match="student id"):
            store.answer(code, student, "it")
    with pytest.raises(ValueError, match="cannot be empty"):
        store.answer(code, "ann", "  ")
    assert store.tally(code) == {}
    assert store.answer(code, "ann", "it", name=f"  {'x' * 20}  ")  # 20 once stripped
    free, _ = store.create({"row": "it"})  # no choices: any word
    assert store.answer(free, "ann", "anything")


@pytest.mark.parametrize(
    "question", [[1, 2], {"choices": []}, {"choices": "it"}, {"x": float("nan")}, {"x": "y" * 20000}]
)
def test_a_bad_question_is_refused_with_a_message(store: ClassStore, question: object) -> None:
    with pytest.raises(ValueError, match="question"):
        store.create(question)  # type: ignore[arg-type]


def test_a_wrong_teacher_key_is_refused_and_changes_nothing(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    _, other_key = store.create(QUESTION)
    store.answer(code, "ann", "it", name="Ann")
    before = (store.status(code), store.tally(code), store.summary(code, key), store.named(code, key))
    moves = [
        (store.reveal, ()),
        (store.end, ()),
        (store.next_question, (SECOND,)),
        (store.summary, ()),
        (store.named, ()),
    ]
    for wrong in ("", "ann", other_key, key[:-1], key.upper(), None):  # a student has at most their own id
        for move, rest in moves:
            with pytest.raises(PermissionError, match="Only the teacher"):
                move(code, wrong, *rest)  # type: ignore[operator]
    assert (store.status(code), store.tally(code), store.summary(code, key), store.named(code, key)) == before
    assert store.answer(code, "bob", "it")  # still open


def test_after_the_reveal_answers_are_refused(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    store.answer(code, "ann", "it")
    store.reveal(code, key)
    assert store.revealed(code) and store.status(code).revealed
    assert store.answer(code, "ann", "animal") is False and store.answer(code, "bob", "it") is False
    assert store.tally(code) == {"it": 1} and store.my_answer(code, "ann") == "it"


@pytest.mark.parametrize("typed", ["ACDEF", "acdef", "", "ABCDE", "0OIL1", "ACDEFG", "ACD EF G", "' OR 1=1 --"])
def test_an_unknown_code_gives_a_clear_error_everywhere(store: ClassStore, typed: str) -> None:
    store.create(QUESTION)
    if typed.upper() == "ACDEF":
        store = _without_code(store, "ACDEF")
    for call in (
        lambda: store.question(typed),
        lambda: store.answer(typed, "ann", "it"),
        lambda: store.tally(typed),
        lambda: store.revealed(typed),
        lambda: store.status(typed),
        lambda: store.my_answer(typed, "ann"),
        lambda: store.reveal(typed, "key"),
        lambda: store.end(typed, "key"),
        lambda: store.summary(typed, "key"),
    ):
        with pytest.raises(ClassNotFound) as error:
            call()
        assert "class" in str(error.value) and "code" in str(error.value)
        assert isinstance(error.value.args[0], Worded)  # translatable by the page
        assert not isinstance(error.value, ClassEnded)


def _without_code(store: ClassStore, code: str) -> ClassStore:
    """The store, made sure it has no class `code` (a random code could be it, one time in millions)."""
    try:
        store.status(code)
    except ClassNotFound:
        return store
    pytest.skip(f"the random code happened to be {code}")


def test_an_ended_class_says_so_and_takes_no_more(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    store.answer(code, "ann", "it")
    store.end(code, key)
    store.end(code, key)  # twice: nothing more to do
    for read in (store.question, store.tally, store.revealed):
        with pytest.raises(ClassEnded, match="has ended"):
            read(code)
    with pytest.raises(ClassEnded):
        store.reveal(code, key)
    with pytest.raises(ClassEnded):
        store.next_question(code, key, SECOND)
    assert store.answer(code, "bob", "it") is False
    assert store.status(code) == ClassStatus(1, False, True, 0, {})
    assert store.summary(code, key)[0]["tally"] == {"it": 1}


def test_ending_deletes_every_answer_and_name(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    if hasattr(store, "path"):  # another app process's connection: the WAL is not folded back when ours closes
        other = sqlite3.connect(store.path)
        other.execute("SELECT COUNT(*) FROM classes").fetchone()
    for i in range(5):
        assert store.answer(code, f"student-secret-{i}", "street", name=f"Nadia-{i}")
    store.next_question(code, key, SECOND)
    assert store.answer(code, "student-secret-9", "من", name="Nadia-9")
    assert b"Nadia-9" in stored_bytes(store) and b"student-secret-9" in stored_bytes(store)
    store.end(code, key)
    kept = stored_bytes(store)
    assert b"Nadia" not in kept and b"student-secret" not in kept
    if hasattr(store, "path"):
        with sqlite3.connect(store.path) as db:
            assert db.execute("SELECT COUNT(*) FROM answers").fetchone() == (0,)
            assert db.execute("SELECT COUNT(*) FROM names").fetchone() == (0,)
        other.close()
    else:
        client = store.client  # type: ignore[attr-defined]
        assert not list(client.scan_iter(f"*{code}*answers")) and not list(client.scan_iter(f"*{code}*names"))
    assert store.named(code, key) == 0


def test_a_class_is_a_sequence_of_questions_and_its_summary_names_no_one(store: ClassStore) -> None:
    code, key = store.create(QUESTION)
    for student, word in [("ann", "street"), ("bob", "animal"), ("carl", "street")]:
        store.answer(code, student, word, name=student.title())
    store.reveal(code, key)
    assert store.next_question(code, key, SECOND) == 2
    assert store.status(code) == ClassStatus(2, False, False, 0, SECOND)
    assert store.tally(code) == {} and store.my_answer(code, "ann") is None
    with pytest.raises(ValueError, match="choices"):
        store.answer(code, "ann", "street")  # the first question's word
    assert store.answer(code, "ann", "من")
    summary = store.summary(code, key)
    assert [(row["number"], row["tally"], row["answers"], row["model_answer"]) for row in summary] == [
        (1, {"street": 2, "animal": 1}, 3, "animal"),
        (2, {"من": 1}, 1, "من"),
    ]
    assert summary[1]["question"] == SECOND
    text = json.dumps(summary, ensure_ascii=False)
    assert not any(who in text for who in ("ann", "bob", "carl", "Ann", "Bob", "Carl"))
    assert store.named(code, key) == 3


def test_sixty_students_on_threads_all_count(store: ClassStore) -> None:
    """Streamlit serves each session on a thread: 60 at once, each answering twice (the second replaces)."""
    code, _ = store.create(QUESTION)
    acknowledged: list[bool] = []

    def student(i: int) -> None:
        store.answer(code, f"s{i}", "street")
        acknowledged.append(store.answer(code, f"s{i}", QUESTION["choices"][i % 4]))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert acknowledged == [True] * 60
    assert store.tally(code) == {"animal": 15, "it": 15, "street": 15, "the": 15}


def test_moving_on_while_students_answer_loses_no_acknowledged_answer(store: ClassStore) -> None:
    """The teacher's Next question lands among answers: each acknowledged one is in exactly one question's tally."""
    code, key = store.create({"choices": ["first"]})
    acknowledged = {"first": 0, "second": 0}
    lock = threading.Lock()

    def student(i: int) -> None:
        for word in ("first", "second"):  # the first question's word, or the second's once it is asked
            try:
                if store.answer(code, f"s{i}-{word}", word):
                    with lock:
                        acknowledged[word] += 1
                    return
            except ValueError:
                continue

    threads = [threading.Thread(target=student, args=(i,)) for i in range(80)]
    for thread in threads[:40]:
        thread.start()
    store.next_question(code, key, {"choices": ["second"]})
    for thread in threads[40:]:
        thread.start()
    for thread in threads:
        thread.join()
    first, second = (row["tally"] for row in store.summary(code, key))
    assert (first.get("first", 0), second.get("second", 0)) == (acknowledged["first"], acknowledged["second"])
    assert sum(acknowledged.values()) == 80


def test_a_class_idle_for_twelve_hours_is_deleted(tmp_path: Path) -> None:
    clock = HandClock()
    store = open_store(f"sqlite:///{tmp_path}/classes.db", clock=clock)
    code, _ = store.create(QUESTION)
    store.answer(code, "ann", "it", name="Ann")
    clock.now += IDLE_SECONDS - 1
    assert store.answer(code, "bob", "it")  # a write: the class lives 12 more hours from here
    clock.now += IDLE_SECONDS - 1
    assert store.tally(code) == {"it": 2}
    clock.now += 1
    with pytest.raises(ClassNotFound, match="no class"):
        store.status(code)
    with pytest.raises(ClassNotFound):
        store.answer(code, "carl", "it")
    store.create(QUESTION)  # sweeps idle classes out of the file
    with sqlite3.connect(tmp_path / "classes.db") as db:
        counts = [
            db.execute(f"SELECT COUNT(*) FROM {t} WHERE code = ?", (code,)).fetchone()[0]
            for t in ("classes", "questions", "answers", "names")
        ]
    assert counts == [0, 0, 0, 0]
    assert b"Ann" not in stored_bytes(store)


def test_open_store_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATTENTION_CLASS_STORE", raising=False)
    monkeypatch.setenv("ATTENTION_CLASS_DIR", str(tmp_path / "here"))
    store = open_store()
    assert store.path == tmp_path / "here" / "classes.db"  # type: ignore[attr-defined]
    code, _ = store.create(QUESTION)
    monkeypatch.setenv("ATTENTION_CLASS_STORE", f"sqlite:///{tmp_path}/other.db")
    assert open_store().path == tmp_path / "other.db"  # type: ignore[attr-defined]
    assert open_store(f"sqlite:///{tmp_path}/here/classes.db").question(code) == QUESTION
    monkeypatch.delenv("ATTENTION_CLASS_DIR")
    monkeypatch.delenv("ATTENTION_CLASS_STORE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert open_store().path == tmp_path / "home" / ".cache" / "attention-explainer" / "classes.db"  # type: ignore[attr-defined]
    for bad in ("sqlite://", "sqlite:///:memory:", "postgres://x", "classes.db"):
        with pytest.raises(ValueError, match="store"):
            open_store(bad)


def test_the_service_imports_neither_streamlit_nor_torch() -> None:
    """A student's process opens a class without the app's heavy parts (and the service never draws)."""
    modules = "classroom, classroom.plan, classroom.limits, classroom.summary, classroom.qr, classroom.redis_store"
    check = (
        f"import sys, {modules}; print(sorted(m for m in ('streamlit', 'torch', 'attention_core') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", check], cwd=Path(__file__).parents[1], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_codes_come_in_as_phones_type_them(store: ClassStore) -> None:
    code, _ = store.create(QUESTION)
    arabic_digits = code.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))  # an Arabic keyboard's digits
    full_width = "".join(chr(ord(ch) + 0xFEE0) for ch in code)  # ＡＣＤ… from some phone keyboards
    for typed in (code.lower(), f" {code[:2]} - {code[2:]} ", arabic_digits, full_width):
        assert store.question(typed) == QUESTION
    assert store.answer(arabic_digits, "ann", "it", name="مریم‌السادات")  # a Persian name keeps its ZWNJ
    with pytest.raises(ValueError, match="control characters"):
        store.answer(code, "ann", "it", name="Ann\nBob")


def test_the_sqlite_file_and_its_folder_are_the_users_alone(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/new/classes.db")
    store.create(QUESTION)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o077 == 0 for p in (tmp_path / "new").iterdir())
