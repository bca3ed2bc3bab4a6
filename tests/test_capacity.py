"""A full server says so (ui/capacity.py): at most ATTENTION_MAX_SESSIONS connected students per process, the next
one told to wait and reload, a seat freed when a tab closes; admitted students are never turned away."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.app_server import port_is_free, start_server, stop_server, wait_until_healthy
from bench.class_load import FULL
from bench.st_client import Tab
from tests.conftest import run_async
from ui.capacity import MAX_SESSIONS_ENV, Admission, max_sessions_from_environment


def test_admission_keeps_seats_for_admitted_sessions_and_frees_closed_ones() -> None:
    connected: set[str] = set()
    admission = Admission(2, connected.__contains__)
    for session in ("a", "b"):
        assert admission.admit(session)
        connected.add(session)
    assert not admission.admit("c")  # full
    assert admission.admit("a") and admission.admit("b")  # the admitted are never turned away
    connected.discard("a")  # a's tab closed
    assert admission.admit("c")  # c took a's seat
    connected.add("c")
    assert not admission.admit("a")  # a, back in a new tab, waits like anyone
    assert admission.connected == 2


def test_the_limit_comes_from_the_environment_and_a_wrong_one_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SESSIONS_ENV, "45")
    assert max_sessions_from_environment() == 45
    for wrong in ("0", "-3", "many", "2.5"):
        monkeypatch.setenv(MAX_SESSIONS_ENV, wrong)
        with pytest.raises(ValueError, match=MAX_SESSIONS_ENV):
            max_sessions_from_environment()


@pytest.fixture(scope="module")
def two_seat_server() -> Iterator[str]:
    port = next(p for p in range(8751, 8760) if port_is_free(p))
    before = os.environ.get(MAX_SESSIONS_ENV)
    os.environ[MAX_SESSIONS_ENV] = "2"
    try:
        process = start_server(port)
    finally:
        os.environ.pop(MAX_SESSIONS_ENV) if before is None else os.environ.__setitem__(MAX_SESSIONS_ENV, before)
    try:
        wait_until_healthy(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(process)


@pytest.mark.slow
def test_a_full_server_tells_the_third_student_and_takes_them_once_a_tab_closes(two_seat_server: str) -> None:
    async def visit() -> None:
        tabs = [Tab(two_seat_server, timeout_s=60) for _ in range(3)]
        for tab in tabs:
            await tab.connect()
        try:
            first, second = await tabs[0].open("similarity"), await tabs[1].open("similarity")
            assert first.ok and second.ok and "similarity_sentence" in tabs[1].widgets
            refused = await tabs[2].open("similarity")
            assert refused.ok and any(FULL in text for text in refused.texts)  # told, not an error
            assert "similarity_sentence" not in tabs[2].widgets  # and given no page to wait on
            assert any("(?new_seat=1)" in text for text in refused.texts)  # a link to another process behind nginx
            typed = await tabs[0].set({"similarity_sentence": "the seats are taken"})
            assert typed.ok and not any(FULL in text for text in typed.texts)  # the admitted keep working
            await tabs[1].close()  # a student leaves
            for _ in range(50):  # the server notices the closed websocket within moments
                retry = Tab(two_seat_server, timeout_s=60)
                await retry.connect()
                again = await retry.open("similarity")
                if not any(FULL in text for text in again.texts):
                    break
                await retry.close()
                await asyncio.sleep(0.2)
            assert "similarity_sentence" in retry.widgets  # the seat went to the next student
            await retry.close()
        finally:
            for tab in tabs:
                await tab.close()

    run_async(visit())


APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_a_page_that_took_long_says_the_server_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    import ui.capacity

    quick = AppTest.from_file(APP, default_timeout=60).run()
    assert not quick.exception and not quick.toast  # a page in time says nothing
    monkeypatch.setattr(ui.capacity, "SLOW_PAGE_S", 0.0)  # every page is "slow" now
    slow = AppTest.from_file(APP, default_timeout=60).run()
    assert not slow.exception and "the server is busy" in slow.toast[0].value
    assert slow.title  # and the page itself is all there


def test_a_wrong_seat_limit_is_named_on_the_page_not_as_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    from ui.capacity import _admission

    monkeypatch.setenv(MAX_SESSIONS_ENV, "thirty")
    _admission.clear()  # the server's seats are made once per process: make them again from this environment
    try:
        at = AppTest.from_file(APP, default_timeout=60).run()
        assert not at.exception and MAX_SESSIONS_ENV in at.error[0].value and "'thirty'" in at.error[0].value
    finally:
        monkeypatch.delenv(MAX_SESSIONS_ENV)
        _admission.clear()
