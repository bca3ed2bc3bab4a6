"""What many test files share: the app under AppTest, its figures as the browser receives them, and sentences; the
one app server and the one Chromium of a pytest process."""

from __future__ import annotations

import asyncio
import base64
import fcntl
import json
import os
import random
import shutil
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core.figures.heatmaps import UNKNOWN_MARK
from bench.app_server import free_port, headless_shell, launch_chromium, start_server, stop_server, wait_until_healthy
from bench.warm_browser import WarmBrowser

APP = str(Path(__file__).parents[1] / "app.py")
T = TypeVar("T")


@pytest.fixture(autouse=True)
def seeded() -> None:
    """Every test starts from the same random state, whatever ran before it and in whatever order: a test's
    torch.randn is the same numbers on every run (issue 32: an unseeded one failed once in a full run)."""
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


ENGLISH = "The cat sat on the mat"
ARABIC = "ذَهَبَ الطالبُ إلى المدرسةِ"
ARABIC_WORDS = ["ذَهَبَ", "الطالبُ", "إلى", "المدرسةِ"]


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    return at.switch_page(f"pages/{page}.py").run()


def open_link(page: str, **query: str | list[str]) -> AppTest:
    """A shared link to one page, its file run alone (as a server's first visit runs it: no app frame)."""
    at = AppTest.from_file(APP.replace("app.py", f"pages/{page}.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def open_framed_link(page: str, **query: str | list[str]) -> AppTest:
    """A shared link to one page, framed by app.py (its sidebar: the language switch, presentation mode)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(f"pages/{page}.py").run()


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def figure_of(at: AppTest, key: str) -> dict:
    """The figure of the chart drawn with `key` (ui.show.chart's key), as the browser receives it."""
    (found,) = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    return json.loads(found.proto.spec)


def values(figure: dict, trace: int = 0) -> np.ndarray:
    """A heatmap's z as numbers: Plotly sends a typed array {"dtype", "bdata", "shape"}, or plain lists. A scatter
    (the query–key map) has no z: its points, x then y (without the None between line segments)."""
    if "z" not in figure["data"][trace]:
        points = [figure["data"][trace][axis] for axis in ("x", "y")]
        return np.stack(
            [values({"data": [{"z": p if isinstance(p, dict) else [v for v in p if v is not None]}]}) for p in points]
        )
    z = figure["data"][trace]["z"]
    if not isinstance(z, dict):
        return np.asarray(z, dtype=np.float64)
    flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
    shape = z.get("shape")
    return flat.reshape([int(k) for k in shape.split(",")] if isinstance(shape, str) else shape or [-1])


def word_axes(at: AppTest) -> list[tuple[list[str], list[str]]]:
    """(x labels, y labels) of every word × word heatmap on the page, without the unknown-word mark."""
    axes = []
    for figure in figures(at):
        x, y = figure["layout"]["xaxis"].get("ticktext"), figure["layout"]["yaxis"].get("ticktext")
        if x and x == y:  # (a scatter, such as the query–key map, has no word ticks)
            axes.append(([w.removesuffix(UNKNOWN_MARK) for w in x], [w.removesuffix(UNKNOWN_MARK) for w in y]))
    return axes


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def hidden_word_pills(at: AppTest):
    """Fill the blank's "click a word to hide it" (its key follows the sentence)."""
    return next(p for p in at.pills if p.key.startswith("fill_blank_hidden_"))


def type_sentence(at: AppTest, page: str, text: str) -> AppTest:
    return at.text_input(key=f"{page}_sentence").input(text).run()


# --- The app's server and Chromium, one of each per pytest process (issue 36) ---------------------------------------
# Every browser test of the process shares them (under pytest-xdist each of the two workers has its own pair): a server
# started per module cost a start and a first page's model loading each time.
# A test therefore leaves no state behind that another could meet: a training run it started is stopped and seen to
# end (the server runs at most two at once), and the browser contexts it opened are handed back emptied (no cookie, no
# storage) at its end. A module that needs a server
# configured otherwise (a second process on the same store, a Redis store, nginx in front of two processes, a limit
# of two seats) starts that one itself and says why.


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not shutil.which("chromium"):
        return "Chromium is not installed (apt-get install chromium fonts-noto-core)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -r requirements-dev.txt)"
    return None


def skip_or_fail(reason: str) -> None:
    """A skip that says why; under REQUIRE_BROWSER=1 (CI: `.ci/run` installs everything) a failure."""
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def app_server(class_folder: Path, **env: str) -> Iterator[str]:
    """`streamlit run app.py` on a free port (the benchmarks' way: its own process group, stopped whatever happens),
    its live-class store a SQLite file in class_folder (never the user's own cache folder), `env` added; yields its
    address once it answers."""
    port = free_port()
    store = {"ATTENTION_CLASS_DIR": str(class_folder), "ATTENTION_CLASS_STORE": ""}
    process = start_server(port, env=store | env)
    try:
        wait_until_healthy(port, process, timeout_s=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(process)


@pytest.fixture(scope="session")
def class_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the session server's live-class store (tests/test_browser_live_class.py reads its database)."""
    return tmp_path_factory.mktemp("classes")


@pytest.fixture(scope="session")
def server(class_folder: Path) -> Iterator[str]:
    """The app's server for every browser test of the process. Skips, saying why, without Chromium or Playwright."""
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    yield from app_server(class_folder)


@pytest.fixture(scope="session")
def browser() -> Iterator[WarmBrowser]:
    """Debian's Chromium, headless (its headless shell where installed: bench.app_server.headless_shell), for the
    whole process, its contexts reused (bench/warm_browser.py): each test opens its own context or page as
    Playwright's Browser does, and is handed an emptied one of an earlier test (no cookie, no storage: a new
    visitor's) whose kept page has the app's JavaScript compiled already."""
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        warm = WarmBrowser(launch_chromium(p, headless_shell()))
        yield warm
        warm.close()


@pytest.fixture(autouse=True)
def contexts_handed_back(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a browser test (its own fixtures' ends included), every context it opened is emptied and handed back."""
    yield
    if "browser" in request.fixturenames:
        request.getfixturevalue("browser").release()


@pytest.fixture(autouse=True)
def machine_share(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under pytest-xdist (two workers, pyproject's addopts) a test marked `alone` asserts how long something took (a
    reveal reaching the phones within 2 s): it runs while the other worker waits between two of its tests. Every other
    test shares the machine. Two file locks in the folder both workers share: `gate` stops new tests from starting
    while an `alone` test waits for the running ones to end; `machine` is held shared by each test, alone by it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    alone = request.node.get_closest_marker("alone") is not None
    shared = tmp_path_factory.getbasetemp().parent
    with open(shared / "gate.lock", "a") as gate, open(shared / "machine.lock", "a") as machine:
        fcntl.flock(gate, fcntl.LOCK_EX)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        fcntl.flock(machine, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run in a thread of its own. Once the session's Chromium is up, Playwright's sync API keeps its event
    loop marked as running in the main thread between calls, and asyncio.run refuses to start there."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
