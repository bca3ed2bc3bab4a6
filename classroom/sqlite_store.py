"""A class kept in one SQLite file: one machine, any number of app processes and threads, nothing to install.

WAL mode lets students' reads go on while one answer is written; every write is one `BEGIN IMMEDIATE` transaction
with synchronous=FULL, so an answer acknowledged with True is on disk before `answer` returns, and a killed process
loses none. A connection lives for one call (Streamlit serves sessions on threads; sqlite3 connections must not be
shared across them, and opening one costs well under a millisecond).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from classroom.rules import (
    IDLE_SECONDS,
    MOST_DEVICES,
    MOST_REQUESTS,
    ClassEnded,
    ClassNotFound,
    ClassStatus,
    Clock,
    check_answer,
    check_key,
    check_key_hash,
    check_name,
    check_student,
    deadline_of,
    new_code,
    new_pairing_number,
    new_teacher_key,
    normalise_code,
    question_json,
    summary_row,
)

BUSY_MS = 10_000  # how long a write waits for another process's write before giving up
PURGE_EVERY = 600.0  # seconds between sweeps for idle classes (besides the sweep at each create)

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, number INTEGER NOT NULL,
    revealed INTEGER NOT NULL, ended INTEGER NOT NULL, touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS questions (  -- tally: the question's counts as JSON, once it is closed; NULL while open
    code TEXT NOT NULL, number INTEGER NOT NULL, question TEXT NOT NULL, tally TEXT, PRIMARY KEY (code, number)
);
CREATE TABLE IF NOT EXISTS answers (  -- the current question's answers only
    code TEXT NOT NULL, student TEXT NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (code, student)
);
CREATE TABLE IF NOT EXISTS names (code TEXT NOT NULL, student TEXT NOT NULL, name TEXT NOT NULL,
    PRIMARY KEY (code, student));
CREATE TABLE IF NOT EXISTS members (  -- who joined: one row a student, whatever their tabs and reloads
    code TEXT NOT NULL, student TEXT NOT NULL, PRIMARY KEY (code, student)
);
CREATE TABLE IF NOT EXISTS requests (  -- a teacher's second device asking to control the class: its key's hash
    code TEXT NOT NULL, number TEXT NOT NULL, key_hash TEXT NOT NULL, asked REAL NOT NULL, PRIMARY KEY (code, number)
);
"""
# Columns added after the first release: a file made by it gets them on opening (ALTER TABLE keeps its rows).
LATER_COLUMNS = {"teacher_seen": "REAL NOT NULL DEFAULT 0", "deadline": "REAL NOT NULL DEFAULT 0"}


class SqliteStore:
    """The ClassStore contract (classroom/store.py) over a SQLite file at `path`."""

    def __init__(self, path: str | Path, *, clock: Clock = time.time, idle_seconds: float = IDLE_SECONDS) -> None:
        self.path = Path(path)
        self.clock = clock
        self.idle_seconds = idle_seconds
        self._last_purge = float("-inf")
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a folder made here is the user's alone
        if not self.path.exists():  # names live here: readable by this user only (the WAL inherits the mode)
            self.path.touch(mode=0o600)
        with closing(self._connect()) as connection:
            connection.execute("PRAGMA journal_mode=WAL")  # kept in the file: once is enough
            connection.executescript(SCHEMA)
            # Several processes open a new file at once (deploy/serve.py): the look at the columns and the ALTER
            # are one write transaction, or two processes both see a column missing and the second ALTER fails.
            connection.execute("BEGIN IMMEDIATE")
            have = {row[1] for row in connection.execute("PRAGMA table_info(classes)")}
            for column, kind in LATER_COLUMNS.items():
                if column not in have:
                    connection.execute(f"ALTER TABLE classes ADD COLUMN {column} {kind}")
            connection.execute("COMMIT")

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    # The contract ---------------------------------------------------------------------------------------------

    def create(self, question: dict[str, Any]) -> tuple[str, str]:
        text = question_json(question)
        key, key_hash = new_teacher_key()
        with self._write(purge=True) as db:
            while True:  # a new code almost always; a taken one (1 in millions) draws again
                code = new_code()
                taken = db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone()
                if not taken:
                    break
            now = self.clock()
            db.execute(
                "INSERT INTO classes (code, key_hash, number, revealed, ended, touched, teacher_seen, deadline)"
                " VALUES (?, ?, 1, 0, 0, ?, ?, ?)",
                (code, key_hash, now, now, deadline_of(question, now)),
            )
            db.execute("INSERT INTO questions VALUES (?, 1, ?, NULL)", (code, text))
        return code, key

    def question(self, code: str) -> dict[str, Any]:
        with self._read() as db:
            code, row = self._open_class(db, code)
            return self._question(db, code, row["number"])

    def answer(self, code: str, student: str, answer: str, name: str | None = None) -> bool:
        student, name = check_student(student), check_name(name)
        with self._write() as db:
            code, row = self._class(db, code)
            if row["ended"] or row["revealed"] or (row["deadline"] and self.clock() > row["deadline"]):
                return False  # revealed, ended, or closed by the question's timer
            answer = check_answer(answer, self._question(db, code, row["number"]))
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", (code, student, answer))
            db.execute("INSERT OR IGNORE INTO members VALUES (?, ?)", (code, student))
            if name is not None:
                db.execute("INSERT OR REPLACE INTO names VALUES (?, ?, ?)", (code, student, name))
            self._touch(db, code)
        return True  # only here, after _write committed

    def join(self, code: str, student: str, name: str | None = None) -> str:
        student, name = check_student(student), check_name(name)
        with self._write() as db:
            code, _ = self._open_class(db, code)
            db.execute("INSERT OR IGNORE INTO members VALUES (?, ?)", (code, student))
            if name is not None:
                db.execute("INSERT OR REPLACE INTO names VALUES (?, ?, ?)", (code, student, name))
            self._touch(db, code)
        return code

    def lobby(self, code: str, teacher_key: str) -> tuple[int, list[str]]:
        with self._read() as db:
            code, row = self._class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            (joined,) = db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()
            names = db.execute("SELECT name FROM names WHERE code = ? ORDER BY name", (code,)).fetchall()
            return int(joined), [name for (name,) in names]

    def is_teacher(self, code: str, teacher_key: str) -> bool:
        try:
            with self._read() as db:
                code, row = self._open_class(db, code)
                check_key(code, teacher_key, row["key_hash"])
        except (ClassNotFound, PermissionError):
            return False
        return True

    def request_control(self, code: str, key_hash: str) -> str:
        key_hash = check_key_hash(key_hash)
        with self._write() as db:
            code, _ = self._open_class(db, code)
            taken = {n for (n,) in db.execute("SELECT number FROM requests WHERE code = ?", (code,))}
            number = new_pairing_number()
            while number in taken:
                number = new_pairing_number()
            db.execute("INSERT INTO requests VALUES (?, ?, ?, ?)", (code, number, key_hash, self.clock()))
            db.execute(
                "DELETE FROM requests WHERE code = ? AND number NOT IN"
                " (SELECT number FROM requests WHERE code = ? ORDER BY asked DESC LIMIT ?)",
                (code, code, MOST_REQUESTS),
            )
        return number

    def control_requests(self, code: str, teacher_key: str) -> list[str]:
        with self._read() as db:
            code, row = self._open_class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            found = db.execute("SELECT number FROM requests WHERE code = ? ORDER BY asked", (code,))
            return [number for (number,) in found.fetchall()]

    def allow_control(self, code: str, teacher_key: str, number: str) -> bool:
        with self._write() as db:
            code, row = self._open_class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            found = db.execute("SELECT key_hash FROM requests WHERE code = ? AND number = ?", (code, str(number)))
            request = found.fetchone()
            if request is None:
                return False
            keys = row["key_hash"].split()
            kept = " ".join([keys[0], *keys[1:][-(MOST_DEVICES - 2) :], request[0]])  # the teacher's key stays
            db.execute("UPDATE classes SET key_hash = ? WHERE code = ?", (kept, code))
            db.execute("DELETE FROM requests WHERE code = ? AND number = ?", (code, str(number)))
        return True

    def teacher_here(self, code: str, teacher_key: str) -> None:
        with self._write() as db:
            code, row = self._open_class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            db.execute("UPDATE classes SET teacher_seen = ? WHERE code = ?", (self.clock(), code))

    def tally(self, code: str) -> dict[str, int]:
        with self._read() as db:
            code, _ = self._open_class(db, code)
            return self._tally(db, code)

    def reveal(self, code: str, teacher_key: str) -> None:
        with self._write() as db:
            code, row = self._open_class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            db.execute("UPDATE classes SET revealed = 1 WHERE code = ?", (code,))
            self._touch(db, code)

    def revealed(self, code: str) -> bool:
        with self._read() as db:
            return bool(self._open_class(db, code)[1]["revealed"])

    def end(self, code: str, teacher_key: str) -> None:
        with self._write() as db:
            code, row = self._class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            if row["ended"]:
                return
            self._close_question(db, code, row["number"])
            db.execute("DELETE FROM names WHERE code = ?", (code,))
            db.execute("DELETE FROM members WHERE code = ?", (code,))
            db.execute("DELETE FROM requests WHERE code = ?", (code,))
            db.execute("UPDATE classes SET ended = 1 WHERE code = ?", (code,))
            self._touch(db, code)
        self._checkpoint()

    def next_question(self, code: str, teacher_key: str, question: dict[str, Any]) -> int:
        text = question_json(question)
        with self._write() as db:
            code, row = self._open_class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            self._close_question(db, code, row["number"])
            number = row["number"] + 1
            db.execute("INSERT INTO questions VALUES (?, ?, ?, NULL)", (code, number, text))
            now = self.clock()
            db.execute(
                "UPDATE classes SET number = ?, revealed = 0, teacher_seen = ?, deadline = ? WHERE code = ?",
                (number, now, deadline_of(question, now), code),
            )
            self._touch(db, code)
        return number

    def status(self, code: str) -> ClassStatus:
        with self._read() as db:
            code, row = self._class(db, code)
            if row["ended"]:
                return ClassStatus(row["number"], bool(row["revealed"]), True, 0, {})
            (count,) = db.execute("SELECT COUNT(*) FROM answers WHERE code = ?", (code,)).fetchone()
            (joined,) = db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()
            question = self._question(db, code, row["number"])
            return ClassStatus(
                row["number"],
                bool(row["revealed"]),
                False,
                count,
                question,
                joined=joined,
                teacher_seen=float(row["teacher_seen"]),
                deadline=float(row["deadline"]),
            )

    def my_answer(self, code: str, student: str) -> str | None:
        with self._read() as db:
            code, _ = self._open_class(db, code)
            found = db.execute("SELECT answer FROM answers WHERE code = ? AND student = ?", (code, student)).fetchone()
            return found[0] if found else None

    def named(self, code: str, teacher_key: str) -> int:
        with self._read() as db:
            code, row = self._class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            return int(db.execute("SELECT COUNT(*) FROM names WHERE code = ?", (code,)).fetchone()[0])

    def summary(self, code: str, teacher_key: str) -> list[dict[str, Any]]:
        with self._read() as db:
            code, row = self._class(db, code)
            check_key(code, teacher_key, row["key_hash"])
            found = db.execute("SELECT number, question, tally FROM questions WHERE code = ? ORDER BY number", (code,))
            return [
                summary_row(n, json.loads(q), json.loads(t) if t is not None else self._tally(db, code))
                for n, q, t in found.fetchall()
            ]

    # Transactions ---------------------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; _write and _read say BEGIN themselves.
        connection = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
        connection.row_factory = sqlite3.Row
        connection.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        connection.execute("PRAGMA synchronous = FULL")  # a commit is on disk (the WAL fsynced) when it returns
        connection.execute("PRAGMA secure_delete = ON")  # a deleted answer or name is overwritten, not left in the file
        return connection

    @contextmanager
    def _write(self, purge: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock at once (no deadlock between two readers turned writers);
        committed when the block ends, rolled back when it raises. Idle classes are purged in it when `purge` or
        every PURGE_EVERY seconds."""
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                purged = self._purge(db, force=purge)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        if purged:
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the WAL into the file and empty it, so that what a delete overwrote is not still in the WAL's older
        frames (best effort: a reader still looking at an older moment keeps those frames until it ends)."""
        with closing(self._connect()) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query in the block sees the same moment."""
        with closing(self._connect()) as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    # Rows -----------------------------------------------------------------------------------------------------

    def _class(self, db: sqlite3.Connection, typed: str) -> tuple[str, sqlite3.Row]:
        """The class's row (ended or not); ClassNotFound when there is none or it has idled out."""
        code = normalise_code(typed)
        row = db.execute("SELECT * FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or row["touched"] + self.idle_seconds <= self.clock():
            raise ClassNotFound(code)
        return code, row

    def _open_class(self, db: sqlite3.Connection, typed: str) -> tuple[str, sqlite3.Row]:
        code, row = self._class(db, typed)
        if row["ended"]:
            raise ClassEnded(code)
        return code, row

    def _question(self, db: sqlite3.Connection, code: str, number: int) -> dict[str, Any]:
        found = db.execute("SELECT question FROM questions WHERE code = ? AND number = ?", (code, number)).fetchone()
        return dict(json.loads(found[0]))

    def _tally(self, db: sqlite3.Connection, code: str) -> dict[str, int]:
        counts = db.execute(
            "SELECT answer, COUNT(*) AS n FROM answers WHERE code = ? GROUP BY answer ORDER BY n DESC, answer", (code,)
        )
        return {answer: n for answer, n in counts.fetchall()}

    def _close_question(self, db: sqlite3.Connection, code: str, number: int) -> None:
        """The current question's answers reduced to its tally; the answers themselves deleted."""
        tally = json.dumps(self._tally(db, code), ensure_ascii=False)
        db.execute("UPDATE questions SET tally = ? WHERE code = ? AND number = ?", (tally, code, number))
        db.execute("DELETE FROM answers WHERE code = ?", (code,))

    def _touch(self, db: sqlite3.Connection, code: str) -> None:
        db.execute("UPDATE classes SET touched = ? WHERE code = ?", (self.clock(), code))

    def _purge(self, db: sqlite3.Connection, force: bool = False) -> bool:
        """Delete every class idle for idle_seconds: its row, questions, answers and names. True if any was."""
        now = self.clock()
        if not force and now - self._last_purge < PURGE_EVERY:
            return False
        self._last_purge = now
        idle = "SELECT code FROM classes WHERE touched <= ?"
        for table in ("answers", "names", "members", "requests", "questions", "classes"):
            deleted = db.execute(f"DELETE FROM {table} WHERE code IN ({idle})", (now - self.idle_seconds,))
        return deleted.rowcount > 0
