"""A class across real processes, as behind deploy/serve.py: students split over two Python processes all count, and a
process killed with SIGKILL loses no answer it acknowledged (SQLite file; Redis started by test_classroom_store)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from classroom import ClassStore, open_store
from tests.test_classroom_store import QUESTION, redis_url

ROOT = Path(__file__).parents[1]
pytestmark = pytest.mark.slow  # subprocesses (and a redis-server)
redis_url = redis_url  # the same fixture: a redis-server of this module's own

# A process of students: argv = url, code, first student, how many (0: until killed). Prints "ok <i>" once answer()
# returned True for student i, i.e. once the store acknowledged it.
STUDENTS = """
import sys
from classroom import open_store
url, code, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = open_store(url)
choices = ["the", "animal", "street", "it"]
i = first
while count == 0 or i < first + count:
    if store.answer(code, f"student-{i}", choices[i % 4], name=f"name {i}"):
        print("ok", i, flush=True)
    i += 1
"""


def students(url: str, code: str, first: int, count: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", STUDENTS, url, code, str(first), str(count)]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)


@pytest.fixture(params=["sqlite", "redis"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/classes.db"
    found: str = request.getfixturevalue("redis_url")
    open_store(found).client.flushdb()  # type: ignore[attr-defined]
    return found


def test_sixty_students_over_two_processes_all_count(url: str) -> None:
    store = open_store(url)
    code, _ = store.create(QUESTION)
    processes = [students(url, code, 0, 30), students(url, code, 30, 30)]
    outputs = [process.communicate(timeout=60)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0]
    assert sum(line.startswith("ok") for out in outputs for line in out.splitlines()) == 60
    assert store.tally(code) == {"animal": 15, "it": 15, "street": 15, "the": 15}
    assert store.status(code).answers == 60


def test_a_killed_process_loses_no_acknowledged_answer(url: str) -> None:
    store = open_store(url)
    code, _ = store.create(QUESTION)
    process = students(url, code, 0, 0)  # answers until killed
    assert process.stdout is not None
    acknowledged = [int(process.stdout.readline().split()[1]) for _ in range(40)]
    process.send_signal(signal.SIGKILL)  # mid-stream: likely inside a transaction
    process.wait(timeout=10)
    assert acknowledged == list(range(40))
    choices: list[str] = QUESTION["choices"]  # type: ignore[assignment]
    assert all(store.my_answer(code, f"student-{i}") == choices[i % 4] for i in acknowledged)
    assert store.status(code).answers >= 40
    after = open_store(url)  # the file (or server) still works for everyone else
    assert after.answer(code, "student-late", "it") and after.my_answer(code, "student-late") == "it"
    _check_integrity(after)


def _check_integrity(store: ClassStore) -> None:
    if hasattr(store, "path"):
        import sqlite3

        with sqlite3.connect(store.path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_app_processes_starting_together_on_a_new_file_all_work(tmp_path: Path) -> None:
    """deploy/serve.py starts its processes at once: each makes the schema and WAL mode on a file none has seen.
    Three new files, six processes each: a race between them (two adding the same column) failed 1 start in 3."""
    opens = "import sys; from classroom import open_store; print(open_store(sys.argv[1]).create({'q': 1})[0])"
    for attempt in range(3):
        url = f"sqlite:///{tmp_path}/fresh{attempt}.db"
        command = [sys.executable, "-c", opens, url]
        starts = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) for _ in range(6)]
        codes = [process.communicate(timeout=60)[0].strip() for process in starts]
        assert [process.returncode for process in starts] == [0] * 6
        store = open_store(url)
        assert all(store.question(code) == {"q": 1} for code in codes)
