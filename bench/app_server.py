"""The app's server and the browser as the benchmark scripts start them: one way, always cleaned up.

from app_server import FLAGS, free_port, start_server, stop_server, wait_until_healthy   (bench/ is the script's folder)
for browser, started, health in cold_starts(port, runs): ...                  (cold-start benchmarks)
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
from collections.abc import Callable, Iterator
from pathlib import Path

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
]

_CHILDREN: list[subprocess.Popen] = []


def start_server(
    port: int, *, usage_stats: bool = False, prefix: tuple[str, ...] = (), root: Path = ROOT
) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port in its own process group, stopped at exit whatever happens.
    `prefix` goes before the command (e.g. taskset); usage statistics on make Streamlit report each script run's
    execution time (its page_profile message). `root` is the checkout whose app.py runs (another one's, to compare)."""
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


def cold_starts(port: int, runs: int) -> Iterator[tuple[object, float, float]]:
    """Chromium is launched first (a user's browser is already up); then, per run, a fresh `streamlit run` on
    port. Yields (browser, perf_counter at the server's start, seconds until it answered its health check); the
    server is stopped after each run, the browser at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True, args=FLAGS)
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


def stop_all() -> None:
    while _CHILDREN:
        stop_server(_CHILDREN[-1])


atexit.register(stop_all)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
