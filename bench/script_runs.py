"""The script runs the app's server has finished for a page, counted from the messages it sends the page.

A test that waits for a rerun nothing on the page shows (a window resized, a panel that redraws every second) cannot
watch the page's DOM for it: Streamlit's mark of a run (data-test-script-state on stApp) goes running and back to
notRunning in React's state, and when the browser is busy React draws both in one commit, so the DOM never changes
(seen: 5 resizes in 243 under the ten-sessions test's load, while the server's messages held the whole run:
docs/runs/resize_rerun_count.txt). The server's own word is its ForwardMsg `script_finished`, on the page's
websocket: counted here.

Pages are watched from their creation (bench.warm_browser does it for every page it opens): Playwright reports a
websocket only when it opens.

    runs = watch_runs(page)            # before page.goto
    before = runs.now()
    page.set_viewport_size(…)
    runs.wait_for(before + 1)          # the server has finished one more run for this page
"""

from __future__ import annotations

import time
import weakref
from typing import Any

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# A run that drew all it had: a whole script's or a fragment's (one stopped early for a rerun drew only part of it).
DRAWN = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
SMALL_FRAME = 512  # bytes: a script_finished message is about 50; larger frames are deltas, never parsed


def finished_run(payload: str | bytes) -> bool:
    """Whether a frame from the server is its message that a run (script or fragment) finished drawing."""
    if isinstance(payload, str) or len(payload) > SMALL_FRAME:
        return False
    message = ForwardMsg()
    try:
        message.ParseFromString(payload)
    except Exception:  # not a ForwardMsg (another socket of the page): not a run
        return False
    return message.WhichOneof("type") == "script_finished" and message.script_finished in DRAWN


class ScriptRuns:
    """The runs finished for one page since it was watched, counted on its websockets to the app's server."""

    def __init__(self, page: Any) -> None:
        self.finished = 0
        self._page = page
        self._sockets: list[Any] = []
        page.on("websocket", self._opened)

    def _opened(self, socket: Any) -> None:
        self._sockets.append(socket)
        socket.on("framereceived", self._received)

    def _received(self, payload: str | bytes) -> None:
        if finished_run(payload):
            self.finished += 1

    def now(self) -> int:
        """The runs finished up to now: after a round trip to the page, so that a message the page has received
        already (its run drawn) is counted, not taken for a later run."""
        self._page.evaluate("() => 0")
        return self.finished

    def wait_for(self, finished: int, timeout_s: float = 90.0) -> None:
        """Until `finished` runs are counted (Playwright's handlers count while it waits for the next frame)."""
        deadline = time.monotonic() + timeout_s
        while self.finished < finished:
            left_ms = (deadline - time.monotonic()) * 1000
            missing = f"the app's server finished {self.finished} runs for the page, not {finished}, in {timeout_s} s"
            if left_ms <= 0 or not self._sockets:
                raise TimeoutError(missing)
            try:
                self._sockets[-1].wait_for_event("framereceived", predicate=finished_run, timeout=left_ms)
            except Exception as error:  # Playwright's own timeout, or the socket closed
                if self.finished < finished:
                    raise TimeoutError(missing) from error


_WATCHED: weakref.WeakKeyDictionary[Any, ScriptRuns] = weakref.WeakKeyDictionary()


def watch_runs(page: Any) -> ScriptRuns:
    """The page's run counter, started now if it was not watched yet (before its first goto: see the docstring)."""
    if page not in _WATCHED:
        _WATCHED[page] = ScriptRuns(page)
    return _WATCHED[page]
