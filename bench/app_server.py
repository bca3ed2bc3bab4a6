"""The app's server and the browser as the benchmark scripts start them: one way, always cleaned up.

from bench.app_server import free_port, launch_chromium, settle, start_server, stop_server, wait_until_healthy
for browser, started, health in cold_starts(port, runs): ...                  (cold-start benchmarks)
git_state()                                        (the commit a report measured, said in its header)
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from bench.script_runs import watch_runs

ROOT = Path(__file__).resolve().parents[1]
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # One renderer process per site within a context: a page opened beside one of the app's already open shares
    # its process and the JavaScript compiled there (bench/warm_browser.py keeps one open in idle contexts). Pages of
    # different contexts (different users) never share a process.
    "--process-per-site",
]

_CHILDREN: list[subprocess.Popen] = []


def start_server(
    port: int,
    *,
    usage_stats: bool = False,
    prefix: tuple[str, ...] = (),
    root: Path = ROOT,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port in its own process group, stopped at exit whatever happens.
    `prefix` goes before the command (e.g. taskset); usage statistics on make Streamlit report each script run's
    execution time (its page_profile message). `root` is the checkout whose app.py runs (another one's, to compare).
    `env` is added to this process's environment for the server alone (e.g. the live class's store)."""
    if not port_is_free(port):
        raise RuntimeError(f"port {port} is in use; pick another with --port")
    stats = f"--browser.gatherUsageStats={str(usage_stats).lower()}"
    process = subprocess.Popen(
        [
            *prefix,
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless=true",
            "--server.address=127.0.0.1",
            f"--server.port={port}",
            stats,
        ],
        cwd=root,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    _CHILDREN.append(process)
    return process


def wait_until_healthy(port: int, server: subprocess.Popen, timeout_s: float = 120, poll_s: float = 0.1) -> None:
    """Returns as soon as /_stcore/health answers; raises if the server dies or stays silent."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        if server.poll() is not None:
            raise RuntimeError("the server exited during start-up")
        if not port_is_free(port, timeout_s=1):
            return
        time.sleep(poll_s)
    raise RuntimeError(f"no answer from port {port}'s /_stcore/health in {timeout_s:g} s")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # the server's own process group (start_new_session=True)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
    if process in _CHILDREN:
        _CHILDREN.remove(process)


def launch_chromium(playwright: object, executable: str | None = None) -> object:
    """Debian's Chromium (or `executable`, a wrapper around it), headless, with FLAGS, from a sync or an async
    Playwright (await the result of the latter). Never `playwright install`'s download: the machines' own browser."""
    return playwright.chromium.launch(executable_path=executable or shutil.which("chromium"), headless=True, args=FLAGS)


def headless_shell() -> str | None:
    """Debian's chromium-headless-shell where it is installed (the tests' browser: .ci/run installs it), else None
    (Chromium itself). The same Blink as Chromium's, without the full browser's window machinery: about a tenth less
    CPU per page (measured on the figure walk: 64 CPU-s against 69 and 74). The benchmarks of what a user feels keep
    the full Chromium."""
    return shutil.which("chromium-headless-shell")


# Settled: the script has stopped (the app's script state, no status widget), no element is stale, every chart is
# drawn (Plotly has laid it out), and the page's DOM has not changed for QUIET_MS (a rerun's charts redraw after the
# page settles). A MutationObserver keeps the time of the last change; QUIET_START_JS restarts that clock when a wait
# begins, so that a click whose rerun has not shown yet cannot pass for a page that settled before it.
QUIET_MS = 600
QUIET_START_JS = "() => { window.__lastChange = performance.now(); }"
SETTLED_JS = """
(quiet) => {
  if (!window.__quietWatch) {
    window.__quietWatch = true;
    window.__lastChange = window.__lastChange || performance.now();
    new MutationObserver(() => { window.__lastChange = performance.now(); })
      .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
    return false;
  }
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testScriptState !== 'notRunning') return false;  // Streamlit's own mark of a script run
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if ([...document.querySelectorAll('.js-plotly-plot')].some(p => !p._fullLayout)) return false;
  return performance.now() - window.__lastChange >= quiet;
}
"""


def settle(page: object, quiet_ms: int = QUIET_MS, timeout_ms: int = 90_000) -> None:
    """Until the page has settled (SETTLED_JS), the quiet counted from now: waits on conditions, not on fixed
    sleeps. Not for a page that redraws on a timer (a training run's live view, a live class's panel): its DOM
    never stays quiet."""
    page.evaluate(QUIET_START_JS)
    page.wait_for_function(SETTLED_JS, arg=quiet_ms, timeout=timeout_ms, polling=100)


def redrawn(*pages: object, runs: int = 2) -> None:
    """Until the app's server has finished `runs` more script runs for each page (its own or a fragment's, counted
    from its messages: bench/script_runs.py): what the server held when this was called is drawn. For a page that
    redraws every second (a training run's, a live class's), which never stays quiet long enough for settle."""
    counted = [(counter, counter.now()) for counter in map(watch_runs, pages)]
    for counter, before in counted:
        counter.wait_for(before + runs, timeout_s=30)


# Streamlit scrolls inside its main area, so a page's height is that area's, not the window's.
PAGE_HEIGHT_JS = """() => Math.max(document.documentElement.scrollHeight, ...[...document.querySelectorAll(
  '[data-testid="stMain"], [data-testid="stAppScrollToBottomContainer"]')].map(e => e.scrollHeight))"""
MAX_HEIGHT = 16_000  # px: Chromium draws taller windows, but a screenshot past this is rarely useful and slow


def page_height(page: object) -> int:
    """The height in px the whole page takes (PAGE_HEIGHT_JS), for a window made as tall as it."""
    return int(page.evaluate(PAGE_HEIGHT_JS))


def cold_starts(port: int, runs: int) -> Iterator[tuple[object, float, float]]:
    """Chromium is launched first (a user's browser is already up); then, per run, a fresh `streamlit run` on
    port. Yields (browser, perf_counter at the server's start, seconds until it answered its health check); the
    server is stopped after each run, the browser at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for _ in range(runs):
                started = time.perf_counter()
                server = start_server(port)
                try:
                    wait_until_healthy(port, server, poll_s=0.02)
                    yield browser, started, time.perf_counter() - started
                finally:
                    stop_server(server)
        finally:
            browser.close()


def first_chart_recorder(times: dict[str, float], key: str, started: float) -> Callable[[object], None]:
    """A websocket-frame callback that writes into times[key] the seconds since `started` when the first message
    carrying a Plotly chart arrives. By message type, not size: a 32-word page's charts are under 50 kB each."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    def on_frame(payload: object) -> None:
        if key in times or not isinstance(payload, bytes):
            return
        message = ForwardMsg.FromString(payload)
        if message.WhichOneof("type") == "delta" and message.delta.new_element.WhichOneof("type") == "plotly_chart":
            times[key] = time.perf_counter() - started

    return on_frame


def free_port() -> int:
    """A port no process listens on now (the system's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_is_free(port: int, timeout_s: float = 0.5) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=timeout_s)
    except OSError:
        return True
    return False


def git_state(root: Path = ROOT) -> str:
    """The commit of the checkout at `root` (the one whose app runs), and whether it has uncommitted edits."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"commit {git('rev-parse', '--short', 'HEAD') or '?'}{' + uncommitted edits' if dirty else ''}"


def stop_all() -> None:
    while _CHILDREN:
        stop_server(_CHILDREN[-1])


atexit.register(stop_all)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
