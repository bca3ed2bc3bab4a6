"""A live class through the faults a classroom meets (issue 33), every tab at Streamlit's protocol level.

    python -m bench.live_class_faults --students 20 --out docs/runs/live_class_faults.json

Each setup (--setups; the servers as bench/live_class.py starts them: `sqlite` one deploy/serve.py with two app
processes behind nginx; `redis` two serve.py sharing a redis-server, which here keeps an append-only file so that a
restart keeps the class, as a school's Redis would):

1. the teacher starts a class on the Multi-head quiz; every student joins and answers (each tab keeps the cookies
   the app's browser-memory script writes, as a browser does: bench/st_client.py);
2. every student reloads (a new session with the same cookies): back in the class without the Join form, her answer
   shown as Received; the teacher's panel still counts each student once;
3. the teacher's own app process is killed (SIGKILL; serve.py starts it again) and the teacher's tab reconnects,
   as the browser does: the time until its panel shows the class again, in control;
4. redis only: redis-server is stopped mid-class, a third of the students change their answer during the outage
   (the page says the answer is not sent yet), redis-server starts again and the pages send those answers by
   themselves;
5. the teacher reveals; every student's page shows the answer.

Counted: answers lost (a student's last answer, as her page said Received, against the store's), students counted
twice (the panel's Joined and Answers against the class), tracebacks shown on any page (an exception element in any
run), the teacher's seconds from the kill to control. Prints a line per check and exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from bench.live_class import QUIZ, after, spawn, start_fleet, stop, wait_for
from bench.st_client import DisconnectedError, Run, Tab
from classroom import open_store

RECEIVED, NOT_SENT, REVEALED = "Received", "Not sent yet", "attends most to"


@dataclass
class Watch:
    """What every page showed: runs, and the tracebacks among them."""

    runs: int = 0
    tracebacks: list[str] = field(default_factory=list)

    def saw(self, run: Run | None) -> Run | None:
        if run is not None:
            self.runs += 1
            self.tracebacks += run.exceptions
        return run


async def reconnect(tab: Tab, url: str) -> Tab:
    """The same browser opening a new session (a reload, or the reconnect after its process died): its cookies."""
    await tab.close()
    again = Tab(url, timeout_s=60, cookies=tab.cookies)
    await again.connect()
    return again


@dataclass
class Pupil:
    index: int
    url: str
    tab: Tab
    word: str = ""  # her last answer, as her page said Received
    key: str = ""


async def join(index: int, url: str, code: str, watch: Watch) -> Pupil:
    tab = Tab(url, timeout_s=60)
    await tab.connect()
    tab.query_string = urlencode({"code": code})
    watch.saw(await tab.open("join"))
    submit = next(
        k
        for k, w in tab.widgets.items()
        if w.kind == "button" and w.proto.is_form_submitter and w.proto.form_id == "join_form"
    )
    watch.saw(await tab.set({"join_code": code, "join_name": f"s{index}", submit: True}))
    return Pupil(index, url, tab, key=f"join_pick_{code}_1")


async def answer(pupil: Pupil, word: str, watch: Watch) -> str:
    """Pick `word`: "received", "pending" (the page says not sent yet) or what else the page said."""
    run = watch.saw(await pupil.tab.set({pupil.key: word}))
    texts = " ".join(run.texts) if run else ""
    if RECEIVED in texts:
        pupil.word = word
        return "received"
    return "pending" if NOT_SENT in texts else "other"


async def tick_until(pupil: Pupil, done: str, watch: Watch, seconds: float) -> bool:
    """Tick the page's fragment every second until a run shows `done` (or `seconds` pass)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        if pupil.tab.auto_rerun is None:
            continue
        try:
            run = watch.saw(await pupil.tab.tick())
        except (TimeoutError, DisconnectedError):
            continue
        if run is not None and any(done in text for text in run.texts):
            return True
    return False


async def teacher_panel(tab: Tab, watch: Watch) -> tuple[str | None, str | None, str | None]:
    """(code, joined, answers) as the panel's next tick writes them."""
    run = watch.saw(await tab.tick()) if tab.auto_rerun else None
    texts = run.texts if run else []
    return after(texts, "Join with the code"), after(texts, "Joined"), after(texts, "Answers")


def app_pid(run_dir: Path, served_by: str) -> int | None:
    port = served_by.rsplit(":", 1)[-1]
    pid_file = run_dir / f"app-{port}.pid"
    return int(pid_file.read_text()) if pid_file.is_file() else None


async def lesson(
    setup: str, urls: list[str], store_url: str, folder: Path, redis: dict, args: argparse.Namespace
) -> dict:
    watch, rng = Watch(), random.Random(args.seed)
    teacher = Tab(urls[0], timeout_s=60)
    await teacher.connect()
    teacher.query_string = urlencode(QUIZ)
    watch.saw(await teacher.open("heads"))
    run = watch.saw(await teacher.set({"live_start": True}))
    code = after(run.texts, "Join with the code") if run else None
    if not code:
        raise RuntimeError("no class code on the teacher's panel")
    pupils = list(await asyncio.gather(*(join(i, urls[i % len(urls)], code, watch) for i in range(args.students))))
    choices = list(pupils[0].tab.widgets[pupils[0].key].proto.options)
    first = await asyncio.gather(*(answer(p, rng.choice(choices), watch) for p in pupils))

    # 2. Every student reloads: the same browser, a new session.
    for pupil in pupils:
        pupil.tab = await reconnect(pupil.tab, pupil.url)
        pupil.tab.query_string = urlencode({"code": code})
    reloaded = await asyncio.gather(*(p.tab.open("join") for p in pupils))
    for run in reloaded:
        watch.saw(run)
    back_without_form = sum(  # her word as the page writes it (Markdown-escaped: "\\[CLS\\]")
        1
        for p, r in zip(pupils, reloaded, strict=True)
        if p.key in p.tab.widgets and any(RECEIVED in t and p.word in t.replace("\\", "") for t in r.texts)
    )
    _, joined_after_reload, answers_after_reload = await teacher_panel(teacher, watch)

    # 3. The teacher's own app process dies; the browser reconnects to the app (nginx: another process, or the same
    # one restarted by serve.py).
    run_dir = folder / "serve-0"
    pid = app_pid(run_dir, teacher.served_by or teacher.page_served_by)
    served_before = teacher.served_by or teacher.page_served_by
    killed_at = time.monotonic()
    if pid is not None:
        os.killpg(pid, signal.SIGKILL)
    back_in_control = None
    while time.monotonic() - killed_at < 60:
        try:
            teacher = await reconnect(teacher, urls[0])
            teacher.query_string = urlencode(QUIZ)
            run = watch.saw(await teacher.open("heads"))
        except (OSError, TimeoutError, DisconnectedError):
            await asyncio.sleep(0.5)
            continue
        if run is not None and after(run.texts, "Join with the code") == code and "live_reveal" in teacher.widgets:
            back_in_control = time.monotonic() - killed_at
            break
        await asyncio.sleep(0.5)
    # The students the dead process served reconnect too (every page's websocket broke or was moved).
    for pupil in pupils:
        pupil.tab = await reconnect(pupil.tab, pupil.url)
        pupil.tab.query_string = urlencode({"code": code})
        watch.saw(await pupil.tab.open("join"))

    # 4. Redis stops mid-class and starts again; a third of the students change their answer meanwhile.
    outage: dict[str, object] = {}
    if setup == "redis":
        stop(redis["process"])
        changing = pupils[: max(1, len(pupils) // 3)]
        picks = {p.index: rng.choice([c for c in choices if c != p.word]) for p in changing}
        said = await asyncio.gather(*(answer(p, picks[p.index], watch) for p in changing))
        _, _, during = await teacher_panel(teacher, watch)
        await asyncio.sleep(args.outage)
        redis["process"] = spawn(redis["command"], redis["env"], folder / "redis.log")
        wait_for(redis["port"], redis["process"], folder / "redis.log", 20)
        sent = await asyncio.gather(*(tick_until(p, RECEIVED, watch, 20) for p in changing))
        for pupil, ok in zip(changing, sent, strict=True):
            if ok:
                pupil.word = picks[pupil.index]
        outage = {
            "changed_during_outage": len(changing),
            "said_not_sent_yet": sum(1 for w in said if w == "pending"),
            "said_received_while_down": sum(1 for w in said if w == "received"),
            "sent_once_back": sum(sent),
            "panel_answers_during_outage": during,
        }

    # 5. The reveal, on every page.
    await asyncio.sleep(1.0)
    if "live_reveal" not in teacher.widgets:
        watch.saw(await teacher.tick())
    watch.saw(await teacher.set({"live_reveal": True}))
    revealed = await asyncio.gather(*(tick_until(p, REVEALED, watch, 20) for p in pupils))
    tally = open_store(store_url).tally(code)
    said_received = {p.word for p in pupils}
    expected: dict[str, int] = {}
    for pupil in pupils:
        if pupil.word:
            expected[pupil.word] = expected.get(pupil.word, 0) + 1
    await teacher.close()
    for pupil in pupils:
        await pupil.tab.close()
    lost = sum(max(0, n - tally.get(word, 0)) for word, n in expected.items())
    return {
        "students": len(pupils),
        "first_answers_received": sum(1 for f in first if f == "received"),
        "reloaded_back_in_class_with_their_answer": back_without_form,
        "panel_after_reload": {"joined": joined_after_reload, "answers": answers_after_reload},
        "teacher_process_killed": {"pid": pid, "served_by": served_before, "now_served_by": teacher.served_by},
        "teacher_back_in_control_s": back_in_control,
        "redis_outage": outage,
        "revealed_on_every_page": sum(revealed),
        "store_tally": tally,
        "expected_tally": expected,
        "answers_lost": lost,
        "counted_twice": max(0, sum(tally.values()) - len(pupils)),
        "tracebacks": watch.tracebacks[:10],
        "tracebacks_count": len(watch.tracebacks),
        "runs": watch.runs,
        "words_said_received": sorted(said_received - {""}),
    }


def checks(result: dict) -> dict[str, bool]:
    n = result["students"]
    control = result["teacher_back_in_control_s"]
    return {
        "0 answers lost": result["answers_lost"] == 0 and result["first_answers_received"] == n,
        "0 students counted twice": result["counted_twice"] == 0
        and result["panel_after_reload"] == {"joined": str(n), "answers": str(n)},
        "every reloaded student back in class with her answer": result["reloaded_back_in_class_with_their_answer"] == n,
        "0 tracebacks shown": result["tracebacks_count"] == 0,
        "teacher back in control within 5 s": control is not None
        and control <= 5.0
        and result["teacher_process_killed"]["pid"] is not None,
        "the reveal on every page": result["revealed_on_every_page"] == n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20, help="students, each a websocket session of its own")
    parser.add_argument("--setups", default="sqlite,redis", help="which setups to run, in order: sqlite, redis")
    parser.add_argument("--processes", type=int, default=2, help="sqlite setup: app processes behind the one nginx")
    parser.add_argument("--instance-processes", type=int, default=1, help="redis setup: app processes a serve.py")
    parser.add_argument("--max-sessions", type=int, help="ATTENTION_MAX_SESSIONS for every app process")
    parser.add_argument("--outage", type=float, default=5.0, help="seconds redis-server stays stopped")
    parser.add_argument("--seed", type=int, default=0, help="seeds the words picked")
    parser.add_argument("--out", type=Path, help="write every setup's results as JSON here")
    args = parser.parse_args()
    results, missed = {}, False
    for setup in args.setups.split(","):
        with tempfile.TemporaryDirectory(prefix=f"live-class-faults-{setup}-") as folder:
            os.chmod(folder, 0o755)
            started: list = []
            redis = {}
            try:
                redis: dict = {}
                started, urls, store = start_fleet(setup, Path(folder), args, persist=True, redis=redis)
                result = asyncio.run(lesson(setup, urls, store, Path(folder), redis, args))
            finally:
                for process in reversed(started):
                    stop(process)
                if setup == "redis" and redis.get("process") is not None:
                    stop(redis["process"])
        result["checks"] = checks(result)
        results[setup] = result
        missed |= not all(result["checks"].values())
        print(f"== {setup}: {json.dumps({k: v for k, v in result.items() if k != 'checks'}, ensure_ascii=False)}")
        for name, ok in result["checks"].items():
            print(f"   {name}: {'met' if ok else 'MISSED'}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
