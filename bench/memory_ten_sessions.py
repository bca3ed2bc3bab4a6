"""Server memory with ten concurrent browser sessions, with and without a training run on the Train page.

    .venv/bin/python -m bench.memory_ten_sessions              # both scenarios, about 3 minutes
    .venv/bin/python -m bench.memory_ten_sessions --only plain        # or --only training

Each scenario starts its own `streamlit run app.py` (port 8612) and samples the server's RSS (its process and any
children: psutil when installed, else /proc/<pid>/status VmRSS) every 0.2 s; VmHWM, the kernel's own peak, is
reported too. One Chromium (Playwright) opens one session first, then ten at once, each in its own context: the
five pages that take a sentence, twice each, one Arabic and one English sentence of 64 tokens (the app's cap, the
largest heatmaps); each session types its sentence and flips a control. In the training scenario the tenth session
starts a 0.25-minute run on the Train page (Qurʾān, the default) instead, and the scenario waits for it to finish.
The server inherits this process's environment (e.g. MALLOC_ARENA_MAX=2 to try glibc's arena limit).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import threading
import time
from pathlib import Path

from bench.app_server import launch_chromium, start_server, stop_all, stop_server, wait_until_healthy

LIMIT_MB = 1024.0
SAMPLE_S = 0.2
TIMEOUT_MS = 240_000  # per browser step: ten sessions on 2 cores are slow
BOX = "Your sentence (any language; Arabic reads right to left)"
# page → the control each session flips after typing: ("toggle"|"button"|"slider", its label)
CONTROLS = {
    "similarity": ("toggle", "Softmax each row"),
    "trainable": ("toggle", "W1 (query)"),
    "heads": ("toggle", "trained W1"),
    "fill_blank": ("slider", "How many guesses"),
    "word_order": ("button", "Shuffle the words"),
}
ENGLISH = (
    "Students went to the old school by the river and the teacher read them a story about a cat that sat on "
    "the mat while the dog slept near the door , and then they all walked home across the bridge before the rain "
    "came down on the quiet town in the evening light"
)

# ---------------------------------------------------------------------------------------------------------------
# Memory of a process tree


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found += children
        frontier += children
    return found


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(pid: int) -> float:
    try:
        import psutil
    except ImportError:
        return sum(_status_kb(p, "VmRSS") for p in [pid, *_descendants(pid)]) / 1024
    try:
        root = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / 2**20
    except psutil.Error:
        return 0.0


class Sampler(threading.Thread):
    """RSS of a process tree every SAMPLE_S seconds; `mark(label)` names the phase the samples belong to."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.phase, self.samples = pid, "start", []
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.is_set():
            self.samples.append((time.perf_counter(), self.phase, tree_rss_mb(self.pid)))
            self._stopping.wait(SAMPLE_S)

    def mark(self, phase: str) -> None:
        self.phase = phase

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=5)

    def now(self, seconds: float = 1.0) -> float:
        """Median RSS over the next `seconds`."""
        started = time.perf_counter()
        time.sleep(seconds)
        return statistics.median(rss for t, _, rss in self.samples if t >= started)

    def peak(self, *phases: str) -> float:
        return max((rss for _, phase, rss in self.samples if phase in phases), default=float("nan"))


# ---------------------------------------------------------------------------------------------------------------
# Browser sessions


async def wait_for_charts(page: object, timeout_ms: int | None = None) -> None:
    await page.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=timeout_ms or TIMEOUT_MS)
    await settle(page, timeout_ms)


async def settle(page: object, timeout_ms: int | None = None) -> None:
    """Until the script run is over: no stale element and no running indicator."""
    await page.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]') && "
        "!document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=timeout_ms or TIMEOUT_MS,
    )


async def sentence_session(browser: object, base: str, page_name: str, text: str, log: list[str]) -> object:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    started = time.perf_counter()
    language = "Arabic" if text[0] >= "\u0600" else "English"
    kind, label = CONTROLS[page_name]
    context = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await context.new_page()
    step = "open the page"
    try:
        await page.goto(f"{base}/{page_name}")
        await wait_for_charts(page)
        step = "type the sentence"
        box = page.get_by_label(BOX)
        await box.fill(text)
        await box.press("Enter")
        with contextlib.suppress(PlaywrightTimeout):  # Plotly may hide a crowded tick label: then settle() only
            await page.wait_for_function(
                "w => [...document.querySelectorAll('.js-plotly-plot .ytick text, .js-plotly-plot .xtick text')]"
                ".some(e => w.some(word => e.textContent.includes(word)))",
                arg=text.split()[:3],
                timeout=30_000,
            )
        await settle(page)
        step = f"{kind} '{label}'"
        if kind == "toggle":
            await page.get_by_text(label, exact=True).click()
        elif kind == "button":
            await page.get_by_role("button", name=label).click()
        else:
            await page.locator("[data-testid='stSlider'] input[type=range]").first.focus()
            await page.keyboard.press("ArrowRight")
        await asyncio.sleep(0.5)
        await settle(page)
    except Exception as error:  # one stuck session must not hide the others' numbers
        shot = Path(f"/tmp/memory_ten_sessions-{page_name}-{language}.png")
        with contextlib.suppress(Exception):
            await page.screenshot(path=str(shot))
        log.append(f"{page_name:<11} {language:<8} FAILED at {step}: {type(error).__name__} (screenshot {shot})")
        return context
    errors = await page.locator("[data-testid='stException']").count()
    log.append(
        f"{page_name:<11} {language:<8} typed + {kind} '{label}': "
        f"{time.perf_counter() - started:.1f} s{', EXCEPTION on page' if errors else ''}"
    )
    return context


async def training_session(browser: object, base: str, log: list[str]) -> object:
    started = time.perf_counter()
    context = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await context.new_page()
    await page.goto(f"{base}/train")
    await page.get_by_role("button", name="Start a new run").wait_for(timeout=TIMEOUT_MS)
    minutes = page.locator("input[aria-label='Minutes']")
    await minutes.fill("0.25")
    await minutes.press("Enter")
    await settle(page)
    await page.get_by_role("button", name="Start a new run").click()
    await page.get_by_text("Training…").first.wait_for(timeout=120_000)
    log.append(f"{'train':<11} {'Qurʾān':<8} run started after {time.perf_counter() - started:.1f} s")
    await page.get_by_text("Finished").first.wait_for(timeout=TIMEOUT_MS)
    log.append(f"{'train':<11} {'Qurʾān':<8} 0.25-minute run finished after {time.perf_counter() - started:.1f} s")
    return context


# ---------------------------------------------------------------------------------------------------------------


async def scenario(port: int, with_training: bool, sentences: dict[str, str]) -> dict[str, object]:
    from playwright.async_api import async_playwright

    base = f"http://127.0.0.1:{port}"
    server = start_server(port)
    sampler = Sampler(server.pid)
    sampler.start()
    result: dict[str, object] = {"log": []}
    try:
        await asyncio.to_thread(wait_until_healthy, port, server)
        time.sleep(1.0)
        result["baseline"] = sampler.now()
        async with async_playwright() as p:
            browser = await launch_chromium(p)
            try:
                sampler.mark("first page")
                first = await browser.new_context(viewport={"width": 1400, "height": 1600})
                page = await first.new_page()
                await page.goto(f"{base}/similarity")
                await wait_for_charts(page)
                result["first_page"] = await asyncio.to_thread(sampler.now, 2.0)
                sampler.mark("ten sessions")
                jobs = []
                pages = [name for name in CONTROLS for _ in range(2)]
                for i, name in enumerate(pages):
                    if with_training and i == len(pages) - 1:
                        jobs.append(training_session(browser, base, result["log"]))
                    else:
                        text = sentences["arabic" if i % 2 == 0 else "english"]
                        jobs.append(sentence_session(browser, base, name, text, result["log"]))
                started = time.perf_counter()
                contexts = await asyncio.gather(*jobs)
                result["sessions_s"] = time.perf_counter() - started
                await asyncio.sleep(3.0)  # all ten still open
                result["peak"] = sampler.peak("ten sessions")
                result["hwm"] = _status_kb(server.pid, "VmHWM") / 1024
                sampler.mark("closed")
                for context in [*contexts, first]:
                    await context.close()
            finally:
                await browser.close()
        result["after_close"] = await asyncio.to_thread(sampler.now, 5.0)
    finally:
        sampler.stop()
        stop_server(server)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8612)
    parser.add_argument("--only", choices=["plain", "training"], help="run one scenario (default: both)")
    args = parser.parse_args()
    from attention_core.story.text import tokenize
    from attention_core.training.corpora import load_corpus

    words = [t.surface for line in load_corpus("quran").train[:40] for t in tokenize(line)]
    sentences = {"arabic": " ".join(words[:64]), "english": ENGLISH}
    try:
        import psutil  # noqa: F401

        how = "psutil"
    except ImportError:
        how = "/proc/<pid>/status VmRSS"
    arenas = os.environ.get("MALLOC_ARENA_MAX")
    print(
        f"# memory_ten_sessions — {time.strftime('%Y-%m-%d %H:%M')}"
        f"{f', MALLOC_ARENA_MAX={arenas}' if arenas else ''}, RSS of the server process tree from {how}, "
        f"every {SAMPLE_S} s; sentences of {len(tokenize(sentences['arabic']))} (Arabic) and "
        f"{len(tokenize(ENGLISH))} (English) tokens"
    )
    scenarios = {None: [False, True], "plain": [False], "training": [True]}[args.only]
    rows = []
    for with_training in scenarios:
        name = "10 sessions + training run" if with_training else "10 sessions"
        print(f"\n## {name}", flush=True)
        result = asyncio.run(scenario(args.port, with_training, sentences))
        for line in result["log"]:
            print("  " + line)
        print(f"  all ten sessions done in {result['sessions_s']:.1f} s")
        rows.append((name, result))
    print(
        f"\n{'scenario':<28} {'baseline':>9} {'1st page':>9} {'peak 10':>9} {'VmHWM':>7} {'closed':>7} "
        f"{'< 1 GB':>7}   (MB)"
    )
    for name, r in rows:
        peak = max(r["peak"], r["hwm"])
        print(
            f"{name:<28} {r['baseline']:>9.0f} {r['first_page']:>9.0f} {r['peak']:>9.0f} {r['hwm']:>7.0f} "
            f"{r['after_close']:>7.0f} {'yes' if peak < LIMIT_MB else 'NO':>7}"
        )
    print(
        "baseline: after start, no session; 1st page: one session on /similarity; peak 10: highest sample with ten "
        "sessions open; VmHWM: the kernel's peak RSS of the server process; closed: 5 s after every session closed."
    )


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
