"""The class-load benchmark (bench/class_load.py) against a real `streamlit run app.py`, briefly: it must keep
speaking the protocol Streamlit speaks, so that it cannot rot silently. No browser: its clients draw nothing."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import pytest

from bench.app_server import port_is_free, start_server, stop_server, wait_until_healthy
from bench.class_load import run_class
from bench.st_client import Tab
from tests.conftest import run_async

PORTS = range(8741, 8750)  # the benchmarks' ports

pytestmark = pytest.mark.slow  # servers and subprocesses: `pytest -m 'not slow'` skips them


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    port = next(p for p in PORTS if port_is_free(p))
    process = start_server(port)
    try:
        wait_until_healthy(port, process)
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        stop_server(process)


def test_a_tab_types_and_reruns_a_fragment(server: tuple[str, int]) -> None:
    async def visit() -> None:
        tab = Tab(server[0], timeout_s=60)
        await tab.connect()
        try:
            assert (await tab.open("similarity")).ok
            typed = await tab.set({"similarity_sentence": "the zebra sleeps under the tree"})
            assert typed.ok and "zebra" in tab.widgets["similarity_S"].proto.spec  # the typed words are drawn
            assert (await tab.switch("heads")).ok
            assert tab.widgets["heads_W1"].fragment_id  # read off the server's deltas: the switch is in a fragment
            flipped = await tab.set({"heads_W1": False})
            assert flipped.ok and flipped.received_bytes < typed.received_bytes  # only the fragment was sent again
        finally:
            await tab.close()

    run_async(visit())


def test_two_students_get_every_action_finished(server: tuple[str, int]) -> None:
    url, pid = server
    result = run_async(run_class(url, clients=2, duration=3, warmup=0, seed=3, server_pid=pid, timeout_s=30))
    records = result["records"]
    assert result["errors"] == []
    assert {r["client"] for r in records} == {0, 1} and all(r["seconds"] > 0 for r in records)
    assert result["actions"]["open"]["count"] == 2 and result["actions"]["all"]["count"] >= 4
    assert result["server"]["rss_peak_mb"] > 100 and result["server"]["cores_mean"] > 0


def test_an_old_fill_the_blank_link_opens_its_sentence_on_a_real_server(server: tuple[str, int]) -> None:
    """A link shared when Fill the blank's parameters were fill_… (now fill_blank_…), as a fresh tab opens it."""

    async def visit() -> None:
        tab = Tab(server[0], timeout_s=60)
        await tab.connect()
        try:
            tab.query_string = urllib.parse.urlencode({"fill_sentence": "بسم الله [MASK] الرحيم", "fill_k": "3"})
            assert (await tab.open("fill_blank")).ok
            assert tab.value("fill_blank_sentence") == "بسم الله [MASK] الرحيم"
            assert "fill_blank_k=3" in tab.query_string and "fill_sentence" not in tab.query_string
        finally:
            await tab.close()

    run_async(visit())
