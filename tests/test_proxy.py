"""Many classes on many processes: deploy/serve.py's two app processes behind nginx, as students would meet them.

Skips, saying why, when nginx is missing; with REQUIRE_BROWSER=1 (`.ci/run`, which installs nginx) that is a
failure. Students are bench/st_client.py tabs (a page load over HTTP, then Streamlit's websocket, cookies kept as
a browser keeps them), and the run's Chromium (tests/conftest.py). The servers are this module's own: nginx in front of
two app processes is the point.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest

from bench.class_load import run_class
from bench.st_client import Run, Tab
from deploy.serve import answers_health, find_nginx
from tests.conftest import run_async
from tests.test_browser import ARABIC, tick_labels, wait_for_charts

ROOT = Path(__file__).resolve().parents[1]

# Three ports each (nginx, two apps), apart from the benchmarks' 8741–8749 and 8611–8613.
PORTS = range(8760, 8790, 3)

pytestmark = pytest.mark.slow  # servers and subprocesses: `pytest -m 'not slow'` skips them


@dataclass
class Proxy:
    url: str
    upstreams: set[str]  # what X-Served-By says for each app process
    run_dir: Path
    log: Path  # serve.py's own output


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture(scope="module")
def proxy() -> Iterator[Proxy]:
    if find_nginx() is None:
        reason = "nginx is not installed (apt-get install nginx)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    port = next(p for p in PORTS if all(_free(p + i) for i in range(3)))
    with tempfile.TemporaryDirectory(prefix="test-proxy-") as folder:
        # Under /tmp and world-readable, as serve.py's own default: nginx's workers run as nobody under root.
        os.chmod(folder, 0o755)
        run_dir, log = Path(folder) / "run", Path(folder) / "serve.log"
        command = [sys.executable, "deploy/serve.py", "--processes", "2", f"--port={port}", f"--run-dir={run_dir}"]
        with log.open("wb") as out:
            serve = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            while not answers_health("127.0.0.1", port):
                if serve.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"serve.py did not start: {log.read_text()}")
                time.sleep(0.2)
            yield Proxy(f"http://127.0.0.1:{port}", {f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}"}, run_dir, log)
        finally:
            serve.send_signal(signal.SIGTERM)  # serve.py stops nginx and both apps itself
            try:
                serve.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait()


def open_tabs(url: str, count: int) -> list[tuple[Tab, Run] | BaseException]:
    """count students at once, each loading the Similarity page and leaving; a failure is returned, not raised."""

    async def one() -> tuple[Tab, Run]:
        tab = Tab(url, timeout_s=60)
        await tab.connect()
        try:
            return tab, await tab.open("similarity")
        finally:
            await tab.close()

    async def all_of_them() -> list[tuple[Tab, Run] | BaseException]:
        return await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)

    return run_async(all_of_them())


def test_tabs_spread_over_both_processes_and_each_stays_on_its_own(proxy: Proxy) -> None:
    opened = open_tabs(proxy.url, 8)
    # A first visit goes to a random process: eight in a row on one happens once in 128, so a few more tabs.
    while len({visit[0].served_by for visit in opened if isinstance(visit, tuple)}) < 2 and len(opened) < 24:
        opened += open_tabs(proxy.url, 4)
    assert all(isinstance(visit, tuple) for visit in opened), opened
    assert all(run.ok for _, run in opened), [run.exceptions for _, run in opened]
    assert {tab.served_by for tab, _ in opened} == proxy.upstreams  # both processes teach
    for tab, _ in opened:  # the page and its websocket came from one process, tied by the cookie set on the page
        assert tab.page_served_by == tab.served_by and set(tab.cookies) == {"ae_route"}


def test_a_student_who_reconnects_comes_back_to_the_same_process_and_finds_their_sentence(proxy: Proxy) -> None:
    sentence = "the zebra number seven sleeps under the tree"

    async def visit() -> None:
        tab = Tab(proxy.url, timeout_s=60)
        await tab.connect()
        assert (await tab.open("similarity")).ok
        assert (await tab.set({"similarity_sentence": sentence})).ok
        await tab.close()
        first = tab.served_by
        for _ in range(5):  # the connection drops; the browser reconnects with its cookie and its session's id
            tab = Tab(proxy.url, timeout_s=60, cookies=tab.cookies, session_id=tab.session_id)
            await tab.connect()
            try:
                assert tab.served_by == first
                assert (await tab.open("similarity")).ok  # no sentence sent: the session still has it
                assert tab.value("similarity_sentence") == sentence
                assert "zebra" in tab.widgets["similarity_S"].proto.spec
            finally:
                await tab.close()

    run_async(visit())


def test_a_new_seat_link_draws_a_new_process_for_a_student_stuck_on_a_full_one(proxy: Proxy) -> None:
    """The "server is full" page (ui/capacity.py) links to ?new_seat=1: nginx then ignores the student's cookie,
    hashes on a new one and sets it, so the student can land on another process; without it they never move."""

    async def visit() -> None:
        tab = Tab(proxy.url, timeout_s=60)
        await tab.connect()
        await tab.close()
        stuck, cookies = tab.served_by, dict(tab.cookies)
        for _ in range(3):  # a reload keeps the cookie, and with it the (full) process
            again = Tab(proxy.url, timeout_s=60, cookies=cookies)
            await again.connect()
            await again.close()
            assert again.served_by == stuck and again.cookies == cookies
        for _ in range(20):  # each new seat is a new random draw: another process within a few (1 in 2 each)
            moved = Tab(proxy.url, timeout_s=60, cookies=cookies)
            await moved.connect(query="new_seat=1")
            await moved.close()
            assert moved.cookies["ae_route"] != cookies["ae_route"]  # a new cookie every time
            assert moved.page_served_by == moved.served_by  # and its websocket follows the page to the new process
            if moved.served_by != stuck:
                break
        assert moved.served_by != stuck

    run_async(visit())


@pytest.mark.browser
def test_a_real_browser_through_the_proxy_draws_an_arabic_sentence(proxy: Proxy, browser: object) -> None:
    """Chromium through nginx: the page, its assets and Streamlit's websocket."""
    with contextlib.closing(browser.new_context(viewport={"width": 1400, "height": 2400})) as context:
        page = context.new_page()
        response = page.goto(f"{proxy.url}/similarity?{urlencode({'similarity_sentence': ARABIC})}")
        assert response.headers["x-served-by"] in proxy.upstreams
        wait_for_charts(page)
        assert [text for _, text in tick_labels(page, "x", 1)] == ARABIC.split()[::-1]  # right to left
        assert page.locator("[data-testid='stException']").count() == 0
        assert "ae_route" in {cookie["name"] for cookie in page.context.cookies()}  # set by nginx


@pytest.mark.browser
def test_a_downloaded_model_uploads_through_the_proxy(proxy: Proxy, browser: object, tmp_path: Path) -> None:
    """A model zip of 12 MB: over nginx's default body cap of 1 MB, under the app's 60 MB (client_max_body_size)."""
    model = tmp_path / "model.zip"
    with zipfile.ZipFile(model, "w") as archive:  # the shipped model's files, as "Download my model" packs them
        for name in ("model.safetensors", "config.json", "vocabulary.json", "tokenizer.json"):
            archive.write(ROOT / "attention_core" / "shipped" / "arabic" / name, f"my-attention-model/{name}")
    assert model.stat().st_size > 2**20
    with contextlib.closing(browser.new_context(viewport={"width": 1400, "height": 2400})) as context:
        page = context.new_page()
        page.goto(f"{proxy.url}/train")
        page.get_by_text("Load a model you downloaded earlier").click()
        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Download my model")
        uploader.locator("input[type=file]").set_input_files(str(model))
        page.get_by_text("Loaded model.zip").wait_for(timeout=60_000)
        assert page.locator("[data-testid='stException']").count() == 0


def test_a_killed_app_process_is_restarted_and_teaches_again(proxy: Proxy) -> None:
    port = min(int(upstream.rsplit(":", 1)[1]) for upstream in proxy.upstreams)
    pid_file = proxy.run_dir / f"app-{port}.pid"
    killed = int(pid_file.read_text())
    os.killpg(killed, signal.SIGKILL)  # its process group: what a crash or the OOM killer leaves
    deadline, seen = time.monotonic() + 60, set()
    while "answers again" not in proxy.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    while seen != proxy.upstreams and time.monotonic() < deadline:
        # One address per answer: "a, b" is nginx trying the restarted process and falling back on the other.
        seen |= {visit[0].served_by for visit in open_tabs(proxy.url, 4) if isinstance(visit, tuple) and visit[1].ok}
    assert seen == proxy.upstreams, proxy.log.read_text()
    assert int(pid_file.read_text()) != killed
    assert f"the app on port {port} exited (code -9); restarting it" in proxy.log.read_text()


def test_a_short_class_through_the_proxy_has_no_errors(proxy: Proxy) -> None:
    result = run_async(run_class(proxy.url, clients=4, duration=5, warmup=0, seed=5, timeout_s=30))
    assert result["errors"] == []
    assert result["actions"]["open"]["count"] == 4
