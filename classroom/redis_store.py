"""A class kept in Redis: several machines (or several `deploy/serve.py` instances) share one class.

Seven keys a class, all named `attention:class:{CODE}:…` (the braces keep them on one node of a Redis Cluster) and
all expiring IDLE_SECONDS after the class's last write (every write sets the TTL again):
    meta       hash: key_hash, number, revealed, ended, teacher_seen, deadline
    questions  hash: number → the question's JSON
    tallies    hash: number → a closed question's counts as JSON (written at next_question and end)
    answers    hash: student → answer, the current question only
    names      hash: student → display name
    members    hash: student → 1, every student who joined (one each, whatever their tabs)
    requests   hash: pairing number → "<key hash> <asked at>", a teacher's second device waiting to be allowed
An answer is one Lua script (check the state, store it, refresh the TTLs: atomic on the server); the teacher's moves
are WATCH/MULTI/EXEC transactions, retried if a student's answer lands in between.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import redis

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
    tally_of,
)

PREFIX = "attention:class:"
PARTS = ("meta", "questions", "tallies", "answers", "names", "members", "requests")
TIMEOUT = 5.0  # seconds a call waits on the server before raising redis.TimeoutError

# KEYS: the six parts; ARGV: key_hash, question JSON, ttl in ms, now, deadline. 1 if made, 0 if the code is taken.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'key_hash', ARGV[1], 'number', 1, 'revealed', 0, 'ended', 0, 'teacher_seen', ARGV[4],
  'deadline', ARGV[5])
redis.call('HSET', KEYS[2], 1, ARGV[2])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
"""

# KEYS: the six parts; ARGV: student, answer, name or '', the question number the answer was checked against,
# ttl in ms, now. 1 stored, 0 revealed, ended or past the timer, -1 no such class, -2 the question changed meanwhile.
ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local state = redis.call('HMGET', KEYS[1], 'number', 'revealed', 'ended', 'deadline')
if state[2] == '1' or state[3] == '1' then return 0 end
if state[4] and tonumber(state[4]) > 0 and tonumber(ARGV[6]) > tonumber(state[4]) then return 0 end
if state[1] ~= ARGV[4] then return -2 end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[6], ARGV[1], 1)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[5], ARGV[1], ARGV[3]) end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return 1
"""

# KEYS: meta, questions, answers, members. false for no class, else {number, revealed, ended, question JSON,
# answers, joined, teacher_seen, deadline}.
STATE = """
local state = redis.call('HMGET', KEYS[1], 'number', 'revealed', 'ended', 'teacher_seen', 'deadline')
if not state[1] then return false end
return {state[1], state[2], state[3], redis.call('HGET', KEYS[2], state[1]) or '', redis.call('HLEN', KEYS[3]),
  redis.call('HLEN', KEYS[4]), state[4] or '0', state[5] or '0'}
"""

# KEYS: the six parts; ARGV: student, name or '', ttl in ms. 1 joined, 0 ended, -1 no such class.
JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'ended') == '1' then return 0 end
redis.call('HSET', KEYS[6], ARGV[1], 1)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[5], ARGV[1], ARGV[2]) end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
"""


class RedisStore:
    """The ClassStore contract (classroom/store.py) over a Redis server at `url` (redis://host:port/0)."""

    def __init__(self, url: str, *, clock: Clock = time.time, idle_seconds: float = IDLE_SECONDS) -> None:
        # Timeouts: a Redis that stopped answering is an error on a page within seconds, not a frozen session.
        self.client = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, health_check_interval=30
        )
        self.clock = clock  # the timer's and the teacher's times (keys expire by the server's own clock)
        self.ttl_ms = max(1, math.ceil(idle_seconds * 1000))
        self._create = self.client.register_script(CREATE)
        self._answer = self.client.register_script(ANSWER)
        self._state = self.client.register_script(STATE)
        self._join = self.client.register_script(JOIN)

    def __repr__(self) -> str:
        return f"RedisStore({self.client!r})"

    def create(self, question: dict[str, Any]) -> tuple[str, str]:
        text = question_json(question)
        key, key_hash = new_teacher_key()
        while True:  # a taken code (1 in millions) draws again
            code = new_code()
            now = self.clock()
            args: list[str | int | float] = [key_hash, text, self.ttl_ms, now, deadline_of(question, now)]
            if self._create(keys=self._keys(code), args=args) == 1:
                return code, key

    def question(self, code: str) -> dict[str, Any]:
        return self._open(code)[1]

    def answer(self, code: str, student: str, answer: str, name: str | None = None) -> bool:
        student, name = check_student(student), check_name(name)
        while True:
            code, number, revealed, ended, question, _ = self._read(code)
            if ended or revealed:
                return False
            answer = check_answer(answer, question)
            args: list[str | int | float] = [student, answer, name or "", number, self.ttl_ms, self.clock()]
            stored = self._answer(keys=self._keys(code), args=args)
            if stored == -1:
                raise ClassNotFound(code)
            if stored != -2:  # -2: the teacher moved on between the check and the write; check the new question
                return bool(stored == 1)

    def join(self, code: str, student: str, name: str | None = None) -> str:
        student, name = check_student(student), check_name(name)
        code = normalise_code(code)
        joined = self._join(keys=self._keys(code), args=[student, name or "", self.ttl_ms])
        if joined == -1:
            raise ClassNotFound(code)
        if joined == 0:
            raise ClassEnded(code)
        return code

    def lobby(self, code: str, teacher_key: str) -> tuple[int, list[str]]:
        code = normalise_code(code)
        self._teacher(self.client, code, teacher_key, ended_ok=True)
        with self.client.pipeline() as pipe:
            pipe.hlen(self._key(code, "members"))
            pipe.hvals(self._key(code, "names"))
            joined, names = pipe.execute()
        return int(joined), sorted(_texts(names))

    def is_teacher(self, code: str, teacher_key: str) -> bool:
        try:
            self._teacher(self.client, normalise_code(code), teacher_key)
        except (ClassNotFound, PermissionError):
            return False
        return True

    def request_control(self, code: str, key_hash: str) -> str:
        key_hash = check_key_hash(key_hash)
        code = self._open(code)[0]
        requests = self._key(code, "requests")
        waiting = self.client.hgetall(requests)
        number = new_pairing_number()
        while number in waiting:
            number = new_pairing_number()
        oldest = sorted(waiting, key=lambda n: float(str(waiting[n]).split()[1]))[
            : max(0, len(waiting) + 1 - MOST_REQUESTS)
        ]
        with self.client.pipeline() as pipe:
            pipe.hset(requests, number, f"{key_hash} {self.clock()}")
            if oldest:
                pipe.hdel(requests, *oldest)
            pipe.pexpire(requests, self.ttl_ms)
            pipe.execute()
        return number

    def control_requests(self, code: str, teacher_key: str) -> list[str]:
        code = normalise_code(code)
        self._teacher(self.client, code, teacher_key)
        waiting = {str(n): str(kept) for n, kept in self.client.hgetall(self._key(code, "requests")).items()}
        return sorted(waiting, key=lambda n: float(waiting[n].split()[1]))

    def allow_control(self, code: str, teacher_key: str, number: str) -> bool:
        code = normalise_code(code)

        def allow(pipe: redis.client.Pipeline) -> bool:
            meta = self._teacher(pipe, code, teacher_key)
            request = pipe.hget(self._key(code, "requests"), str(number))
            if request is None:
                return False
            keys = meta["key_hash"].split()
            kept = " ".join([keys[0], *keys[1:][-(MOST_DEVICES - 2) :], str(request).split()[0]])
            pipe.multi()
            pipe.hset(self._key(code, "meta"), "key_hash", kept)
            pipe.hdel(self._key(code, "requests"), str(number))
            self._expire(pipe, code)
            return True

        watched = (self._key(code, "meta"), self._key(code, "requests"))
        return bool(self.client.transaction(allow, *watched, value_from_callable=True))  # type: ignore[arg-type]

    def teacher_here(self, code: str, teacher_key: str) -> None:
        code = normalise_code(code)
        self._teacher(self.client, code, teacher_key)
        self.client.hset(self._key(code, "meta"), "teacher_seen", self.clock())

    def tally(self, code: str) -> dict[str, int]:
        code = self._open(code)[0]
        return tally_of(_texts(self.client.hvals(self._key(code, "answers"))))

    def reveal(self, code: str, teacher_key: str) -> None:
        code = self._open(code)[0]

        def reveal(pipe: redis.client.Pipeline) -> None:
            self._teacher(pipe, code, teacher_key)
            pipe.multi()
            pipe.hset(self._key(code, "meta"), "revealed", 1)
            self._expire(pipe, code)

        self.client.transaction(reveal, self._key(code, "meta"))

    def revealed(self, code: str) -> bool:
        return self._open(code)[2]

    def end(self, code: str, teacher_key: str) -> None:
        code = normalise_code(code)

        def end(pipe: redis.client.Pipeline) -> None:
            meta = self._teacher(pipe, code, teacher_key, ended_ok=True)
            if meta["ended"] == "1":
                return
            tally = tally_of(_texts(pipe.hvals(self._key(code, "answers"))))
            pipe.multi()
            pipe.hset(self._key(code, "tallies"), meta["number"], json.dumps(tally, ensure_ascii=False))
            pipe.delete(*(self._key(code, part) for part in ("answers", "names", "members", "requests")))
            pipe.hset(self._key(code, "meta"), "ended", 1)
            self._expire(pipe, code)

        self.client.transaction(end, self._key(code, "meta"), self._key(code, "answers"))

    def next_question(self, code: str, teacher_key: str, question: dict[str, Any]) -> int:
        text = question_json(question)
        code = self._open(code)[0]

        def move(pipe: redis.client.Pipeline) -> int:
            meta = self._teacher(pipe, code, teacher_key)
            tally = tally_of(_texts(pipe.hvals(self._key(code, "answers"))))
            number = int(meta["number"]) + 1
            pipe.multi()
            pipe.hset(self._key(code, "tallies"), meta["number"], json.dumps(tally, ensure_ascii=False))
            pipe.delete(self._key(code, "answers"))
            pipe.hset(self._key(code, "questions"), number, text)
            now = self.clock()
            moved = {"number": number, "revealed": 0, "teacher_seen": now, "deadline": deadline_of(question, now)}
            for field, value in moved.items():
                pipe.hset(self._key(code, "meta"), field, value)
            self._expire(pipe, code)
            return number

        watched = (self._key(code, "meta"), self._key(code, "answers"))
        moved = self.client.transaction(move, *watched, value_from_callable=True)  # type: ignore[arg-type]
        return int(moved)  # type: ignore[arg-type]

    def status(self, code: str) -> ClassStatus:
        code = normalise_code(code)
        found = self._state(keys=[self._key(code, p) for p in ("meta", "questions", "answers", "members")])
        if not found:
            raise ClassNotFound(code)
        number, revealed, ended, question, count, joined, seen, deadline = found
        if ended == "1":
            return ClassStatus(int(number), revealed == "1", True, 0, {})
        return ClassStatus(
            int(number),
            revealed == "1",
            False,
            int(count),
            json.loads(question) if question else {},
            joined=int(joined),
            teacher_seen=float(seen),
            deadline=float(deadline),
        )

    def my_answer(self, code: str, student: str) -> str | None:
        code = self._open(code)[0]
        found = self.client.hget(self._key(code, "answers"), student)
        return str(found) if found is not None else None

    def named(self, code: str, teacher_key: str) -> int:
        code = normalise_code(code)
        self._teacher(self.client, code, teacher_key, ended_ok=True)
        return int(self.client.hlen(self._key(code, "names")))

    def summary(self, code: str, teacher_key: str) -> list[dict[str, Any]]:
        code = normalise_code(code)
        with self.client.pipeline() as pipe:  # MULTI/EXEC: one moment of the class
            pipe.hgetall(self._key(code, "meta"))
            pipe.hgetall(self._key(code, "questions"))
            pipe.hgetall(self._key(code, "tallies"))
            pipe.hvals(self._key(code, "answers"))
            meta, questions, tallies, answers = pipe.execute()
        if not meta:
            raise ClassNotFound(code)
        check_key(code, teacher_key, meta["key_hash"])
        return [
            summary_row(int(n), json.loads(questions[n]), json.loads(tallies[n]) if n in tallies else tally_of(answers))
            for n in sorted(questions, key=int)
        ]

    # Keys and reads -------------------------------------------------------------------------------------------

    def _key(self, code: str, part: str) -> str:
        return f"{PREFIX}{{{code}}}:{part}"

    def _keys(self, code: str) -> list[str]:
        return [self._key(code, part) for part in PARTS]

    def _expire(self, pipe: redis.client.Pipeline, code: str) -> None:
        for key in self._keys(code):
            pipe.pexpire(key, self.ttl_ms)

    def _read(self, typed: str) -> tuple[str, int, bool, bool, dict[str, Any], int]:
        """(code, question number, revealed, ended, question, answers) read at one moment."""
        code = normalise_code(typed)
        found = self._state(keys=[self._key(code, p) for p in ("meta", "questions", "answers", "members")])
        if not found:
            raise ClassNotFound(code)
        number, revealed, ended, question, count = found[:5]
        question = json.loads(question) if question else {}
        return code, int(number), revealed == "1", ended == "1", question, int(count)

    def _open(self, typed: str) -> tuple[str, dict[str, Any], bool]:
        """(code, question, revealed) of a class that is neither unknown nor ended."""
        code, _, revealed, ended, question, _ = self._read(typed)
        if ended:
            raise ClassEnded(code)
        return code, question, revealed

    def _teacher(
        self, client: redis.Redis | redis.client.Pipeline, code: str, teacher_key: str, ended_ok: bool = False
    ) -> dict[str, str]:
        """The class's meta once the teacher key is checked (under WATCH when `client` is a pipeline)."""
        meta: dict[str, str] = client.hgetall(self._key(code, "meta"))  # type: ignore[assignment]
        if not meta:
            raise ClassNotFound(code)
        if meta["ended"] == "1" and not ended_ok:
            raise ClassEnded(code)
        check_key(code, teacher_key, meta["key_hash"])
        return meta


def _texts(values: list[Any]) -> list[str]:
    """A reply's values as text (the client decodes them; the types say bytes or str)."""
    return [str(value) for value in values]
