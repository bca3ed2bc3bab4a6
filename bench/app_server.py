"""The app's server and the browser as the benchmark scripts start them: one way, always cleaned up.

from app_server import FLAGS, start_server, stop_server, wait_until_healthy   (bench/ is the script's folder)
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]  # fmt: skip

_CHILDREN: list[subprocess.Popen] = []


def start_server(port: int, *, usage_stats: bool = False, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port in its own process group, stopped at exit whatever happens.
    `prefix` goes before the command (e.g. taskset); usage statistics on make Streamlit report each script run's
    execution time (its page_profile message)."""
    if not port_is_free(port):
        raise RuntimeError(f"port {port} is in use; pick another with --port")
    stats = f"--browser.gatherUsageStats={str(usage_stats).lower()}"
    process = subprocess.Popen(
        [*prefix, sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}", stats],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
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
