"""A class on one server: N students, each a browser tab that speaks Streamlit's protocol and draws nothing.

    python -m bench.class_load --clients 30 --duration 90 --trainers 2 --out docs/runs/class_load_30.json

Each student (bench/st_client.py) opens a page, types its own sentence (English or Arabic, one per student),
flips switches (on the Multi-head page inside an st.fragment: a fragment rerun), and moves between pages, thinking
2–5 s between actions (seeded). A trainer pastes a text on the Train page, starts a tiny model for 15 s and watches
it: the live view reruns itself every second, as a browser's run_every timer asks it to. The latency of an action
is the time from sending its rerun_script to the script_finished that ends the run; only actions started after
the warm-up count. The server's process tree is sampled every 0.2 s from /proc: CPU (cores used) and RSS.
A browser load test on 2 cores measures Chromium (docs/class-load.md); these clients cost the server only its work.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.app_server import start_server, stop_server, wait_until_healthy
from bench.class_report import report, summarise
from bench.proc_sampler import ProcessTreeSampler
from bench.st_client import DisconnectedError, Tab

PAGES = ["similarity", "trainable", "heads"]  # the pages a student works on, each with a sentence box
TOGGLES = {
    "similarity": ["similarity_softmax", "similarity_scale"],
    "trainable": ["trainable_W1", "trainable_softmax"],
    "heads": ["heads_W1", "heads_W2"],
}
NOUNS_EN = [
    "cat",
    "dog",
    "student",
    "teacher",
    "sister",
    "bird",
    "old man",
    "river",
    "school",
    "book",
    "garden",
    "city",
    "moon",
    "letter",
    "window",
    "bread",
]
NOUNS_AR = [
    "الولد",
    "البنت",
    "المعلم",
    "الكتاب",
    "المدرسة",
    "البيت",
    "النهر",
    "القمر",
    "الشمس",
    "الطريق",
    "المدينة",
    "الباب",
    "الرسالة",
    "الحديقة",
]
VERBS_EN, VERBS_AR = ["sees", "reads", "likes", "finds", "walks to", "writes"], ["يرى", "يقرأ", "يحب", "يكتب", "يجد"]


@dataclass
class Action:
    client: int
    kind: str  # open, switch, type, toggle, toggle in fragment, train: start, train: live tick
    page: str
    started: float  # seconds since the benchmark began
    seconds: float
    received_bytes: int
    error: str = ""  # "", "exception: …", "timeout", "disconnect", "page not found", "compile error"


@dataclass
class TrainingRun:
    client: int
    started: float  # seconds since the benchmark began, when Start was pressed
    seconds: float  # until the live view ended (or the benchmark did)
    budget_s: float  # the training time asked for on the form
    ended: bool  # False: still running when the benchmark stopped


FULL = "This class server is full"  # the title of ui/capacity.py's page for a student it cannot take
TRAIN_MINUTES = 0.25  # what a trainer asks for on the Train page: 15 s


def sentence_for(client: int, rng: random.Random) -> str:
    """Odd clients write Arabic, even ones English; the client's number makes every sentence its own."""
    if client % 2:
        noun = lambda: rng.choice(NOUNS_AR)  # noqa: E731
        return f"{rng.choice(VERBS_AR)} {noun()} {noun()} في {noun()} رقم {client}"
    noun = lambda: rng.choice(NOUNS_EN)  # noqa: E731
    return f"the {noun()} {rng.choice(VERBS_EN)} the {noun()} near the {noun()} number {client}"


def training_text(rng: random.Random, lines: int = 40) -> str:
    return "\n".join(
        f"the {rng.choice(NOUNS_EN)} {rng.choice(VERBS_EN)} the {rng.choice(NOUNS_EN)}" for _ in range(lines)
    )


class Student:
    def __init__(self, index: int, url: str, rng: random.Random, clock: Clock, *, trainer: bool, timeout_s: float):
        self.index, self.url, self.rng, self.clock, self.trainer = index, url, rng, clock, trainer
        self.timeout_s = timeout_s
        self.sentences = [sentence_for(index, rng), sentence_for(index, rng) + (" أيضا" if index % 2 else " too")]
        self.actions: list[Action] = []
        self.training_runs: list[TrainingRun] = []
        self.seated = False  # False until the server admitted this tab's session (ui/capacity.py)
        self.typed = 0
        self.page = rng.choice(PAGES)
        self.tab: Tab | None = None

    async def act(self, kind: str, step) -> bool:
        """Time one interaction; a failure is recorded, and a lost connection reconnects and reopens the page.
        False when the server said it is full (ui/capacity.py): that is an answer, recorded as its own kind."""
        started, seconds, size, error, admitted = self.clock.now(), 0.0, 0, "", True
        try:
            run = await step()
            seconds, size = run.seconds, run.received_bytes
            if any(FULL in text for text in run.texts):
                kind, admitted = "told: server full", False
            error = (
                f"exception: {run.exceptions[0]}"
                if run.exceptions
                else "page not found"
                if run.not_found
                else "compile error"
                if run.compile_error
                else ""
            )
        except TimeoutError:
            seconds, error = self.timeout_s, "timeout"
            admitted = await self._settle()
        except (DisconnectedError, OSError) as problem:
            seconds, error = self.clock.now() - started, f"disconnect: {type(problem).__name__}"
            admitted = await self._reconnect()
        self.actions.append(Action(self.index, kind, self.page, started, seconds, size, error))
        self.seated = admitted
        return admitted

    async def take_a_seat(self, until: float) -> bool:
        """Open the page; told that the server is full, do as the page asks: wait, then reload (a new session: the
        refused one never held a seat). False when the benchmark ended first."""
        while not await self.act("open", lambda: self.tab.open(self.page)):
            await self.tab.close()
            await asyncio.sleep(self.rng.uniform(10, 20))
            if self.clock.now() >= until:
                return False
            self.tab = Tab(self.url, timeout_s=self.timeout_s, cookies=self.tab.cookies)
            await self.tab.connect()
        return True

    async def _settle(self) -> bool:
        try:
            await self.tab.wait_finished(60)
            return True
        except (TimeoutError, DisconnectedError):
            return await self._reconnect()

    async def _reconnect(self) -> bool:
        """A new tab on the same page (a new session, as after a lost connection); False if it found no seat."""
        await self.tab.close()
        self.tab = Tab(self.url, timeout_s=self.timeout_s, cookies=self.tab.cookies)
        await self.tab.connect()
        return not any(FULL in text for text in (await self.tab.open(self.page)).texts)

    async def think(self) -> None:
        await asyncio.sleep(self.rng.uniform(2, 5))

    async def run(self, until: float) -> None:
        self.tab = Tab(self.url, timeout_s=self.timeout_s)
        await self.tab.connect()
        if not await self.take_a_seat(until):
            return
        while self.clock.now() < until:
            if not self.seated and not await self.take_a_seat(until):  # e.g. a reconnect found the server full
                break
            try:
                if self.trainer and self.rng.random() < 0.3:
                    await self.train(until)
                else:
                    await self.think()
                    await self.student_step()
            except (KeyError, StopIteration) as missing:  # a widget the last run did not draw: say so, go on
                error = f"protocol: {missing!r} was not drawn"
                self.actions.append(Action(self.index, "missing widget", self.page, self.clock.now(), 0, 0, error))
                await self.act("open", lambda: self.tab.open(self.page))  # reload the page by its URL
        await self.tab.close()

    async def student_step(self) -> None:
        roll, widgets = self.rng.random(), self.tab.widgets
        key = f"{self.page}_sentence"
        if roll < 0.25 and key in widgets:
            self.typed += 1
            typed = self.sentences[self.typed % 2]
            await self.act("type", lambda: self.tab.set({key: typed}))
        elif roll < 0.7 and any(t in widgets for t in TOGGLES.get(self.page, [])):
            toggle = self.rng.choice([t for t in TOGGLES[self.page] if t in widgets])
            kind = "toggle in fragment" if widgets[toggle].fragment_id else "toggle"
            value = not self.tab.value(toggle)
            await self.act(kind, lambda: self.tab.set({toggle: value}))
        else:
            self.page = self.rng.choice([p for p in PAGES if p != self.page])
            await self.act("switch", lambda: self.tab.switch(self.page))

    async def train(self, until: float) -> None:
        """Paste a text, pick the tiny model and 15 s, start, and watch the live view until the run ends."""
        if self.page != "train":
            self.page = "train"
            await self.act("switch", lambda: self.tab.switch("train"))
        widgets = self.tab.widgets
        paste = next(o for o in widgets["train_corpus"].proto.options if o.startswith("paste"))
        await self.think()
        await self.act("train: form", lambda: self.tab.set({"train_corpus": paste}))
        tiny = next(o for o in self.tab.widgets["train_preset"].proto.options if o.startswith("tiny"))
        form = {"train_paste": training_text(self.rng), "train_preset": tiny, "train_minutes": TRAIN_MINUTES}
        await self.act("train: form", lambda: self.tab.set(form))
        pressed = self.clock.now()
        await self.act("train: start", lambda: self.tab.set({"train_start": True}))
        live = self.tab.auto_rerun is not None  # False: the run did not start (e.g. the server's run limit)
        while self.tab.auto_rerun is not None and self.clock.now() < until:
            interval = self.tab.auto_rerun[0]
            before = self.clock.now()
            await self.act("train: live tick", self.tab.tick)
            await asyncio.sleep(max(0.0, interval - (self.clock.now() - before)))
        # The whole run as its student lives it: from pressing Start to the full rerun that ends the live view
        # (preparing the text, training for its budget, the last evaluation and saving included).
        if live:
            ended, seconds = self.tab.auto_rerun is None, self.clock.now() - pressed
            self.training_runs.append(TrainingRun(self.index, pressed, seconds, TRAIN_MINUTES * 60, ended))
        self.page = self.rng.choice(PAGES)
        await self.act("switch", lambda: self.tab.switch(self.page))


class Clock:
    def __init__(self) -> None:
        self.zero = time.perf_counter()

    def now(self) -> float:
        return time.perf_counter() - self.zero


async def run_class(
    url: str,
    *,
    clients: int,
    duration: float,
    warmup: float,
    seed: int,
    trainers: int = 0,
    server_pid: int | None = None,
    timeout_s: float = 30.0,
) -> dict:
    """The whole benchmark against a running server; returns what main() prints and writes as JSON."""
    clock = Clock()
    students = [
        Student(i, url, random.Random(seed * 1000 + i), clock, trainer=i < trainers, timeout_s=timeout_s)
        for i in range(clients)
    ]
    until = warmup + duration
    sampler = ProcessTreeSampler(server_pid) if server_pid else None

    async def arrive(student: Student) -> None:  # a class arrives over the first seconds, not all at once
        await asyncio.sleep(student.rng.uniform(0, min(5.0, warmup)))
        await student.run(until)

    sampling = asyncio.create_task(sampler.sample_until(clock, warmup, until)) if sampler else None
    await asyncio.gather(*(arrive(s) for s in students))
    if sampling:
        await sampling
    measured = [a for s in students for a in s.actions if a.started >= warmup]
    arrival = [a for s in students for a in s.actions if a.started < warmup]  # the class arriving, not counted
    errors = [asdict(a) for a in measured if a.error]
    return {
        "clients": clients,
        "trainers": trainers,
        "duration_s": duration,
        "warmup_s": warmup,
        "seed": seed,
        "url": url,
        "actions": summarise(measured),
        "warmup_actions": summarise(arrival) if arrival else {},
        "errors": errors,
        "server": sampler.summary() if sampler else None,
        "records": [asdict(a) for a in measured],
        # Every run started after the warm-up began counts: a trainer's first run often starts inside it.
        "training_runs": [asdict(run) for s in students for run in s.training_runs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=10, help="students, each its own websocket session")
    parser.add_argument("--trainers", type=int, default=0, help="how many of the students also train on Train")
    parser.add_argument("--duration", type=float, default=90, help="seconds measured, after the warm-up")
    parser.add_argument(
        "--warmup",
        type=float,
        default=30,
        help="seconds of load before measuring starts (the class arriving at a fresh server)",
    )
    parser.add_argument("--port", type=int, default=8741, help="port of the server this script starts")
    parser.add_argument("--url", help="a running server to load instead (its CPU is measured with --server-pid)")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's pid, to sample its process tree")
    parser.add_argument("--seed", type=int, default=0, help="seeds every student's sentence and think times")
    parser.add_argument("--timeout", type=float, default=30, help="seconds after which an action is a timeout")
    parser.add_argument("--out", type=Path, help="write the results (and every action) as JSON to this file")
    args = parser.parse_args()
    server = None
    if args.url is None:
        server = start_server(args.port)
        wait_until_healthy(args.port, server)
    url, pid = args.url or f"http://127.0.0.1:{args.port}", args.server_pid or (server.pid if server else None)
    try:
        result = asyncio.run(
            run_class(
                url,
                clients=args.clients,
                duration=args.duration,
                warmup=args.warmup,
                seed=args.seed,
                trainers=args.trainers,
                server_pid=pid,
                timeout_s=args.timeout,
            )
        )
    finally:
        if server is not None:
            stop_server(server)
    print(report(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.exit(1 if result["errors"] else 0)


if __name__ == "__main__":
    main()
