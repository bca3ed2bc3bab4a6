"""Server time per interaction on the real server, as a user causes it in Chromium.

    python -m bench.live_interaction [--reps 7] [--english]

AppTest (bench/interaction_speed.py) reruns a whole page even where the page puts its switches in an
`st.fragment`, and adds its own bookkeeping. Here a real `streamlit run app.py` serves a real browser, and the
script watches the websocket. The server is started with usage statistics on (for this benchmark only; nothing
leaves the machine, it has no internet) so that after every script run it sends a `page_profile` message with the
run's own execution time: that is the server time of the interaction, a fragment rerunning only itself. The
tracking behind that report wraps every `st.*` call, so the times are upper bounds (AppTest: about +30 ms on the
Multi-head page). The round trip (the browser's `rerun_script` request to the server's `script_finished`) is
printed beside it; on this
2-core machine it is mostly Chromium redrawing Plotly charts on the same cores. Median of --reps interactions
after a warm-up. --english: an English sentence of 32 word pieces, so the pages use MiniLM (target 100 ms).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import tempfile
import time
import urllib.parse
from functools import partial
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.app_server import launch_chromium, start_server, stop_server, wait_until_healthy

ARABIC_32 = (
    "الذين يؤمنون بالغيب ويقيمون الصلاة ومما رزقناهم ينفقون والذين يؤمنون بما انزل اليك وما انزل من قبلك "
    "وبالاخرة هم يوقنون اولئك على هدى من ربهم واولئك هم المفلحون ان الذين كفروا سواء عليهم"
)
# 30 words, one piece each: with [CLS] and [SEP], 32 pieces for MiniLM.
ENGLISH_32 = (
    "Students went to the old school by the river and the teacher read them a story about a cat that sat on the "
    "mat while the dog slept near the"
)
# page → (sentence key, label of the switch to flip)
PAGES = {
    "similarity": ("similarity_sentence", "Softmax each row"),
    "trainable": ("trainable_sentence", "W1 (query)"),
    "heads": ("heads_sentence", "trained W1"),
    "word_order": ("word_order_sentence", "Add positional encoding"),
}


class Timer:
    """Pairs each rerun request with the next script_finished on one page's websocket."""

    def __init__(self, page: object) -> None:
        self.sent: float | None = None
        self.spans: list[float] = []  # round trips, ms
        self.runs: list[tuple[float, bool]] = []  # (the script run's own execution time in ms, was a fragment run)
        page.on("websocket", self._watch)

    def _watch(self, socket_: object) -> None:
        socket_.on("framesent", self._sent)
        socket_.on("framereceived", self._received)

    def _sent(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes):
            message = BackMsg.FromString(payload)
            if message.WhichOneof("type") == "rerun_script":
                self.sent = time.perf_counter()

    def _received(self, payload: bytes | str) -> None:
        if not isinstance(payload, bytes):
            return
        message = ForwardMsg.FromString(payload)
        kind = message.WhichOneof("type")
        if kind == "page_profile":
            self.runs.append((message.page_profile.exec_time / 1000, message.page_profile.is_fragment_run))
        if kind == "script_finished" and self.sent is not None:
            self.spans.append(1000 * (time.perf_counter() - self.sent))
            self.sent = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--settle-ms", type=int, default=2000, help="pause after each interaction (browser drawing)")
    parser.add_argument("--english", action="store_true", help="an English sentence: the pages use MiniLM")
    args = parser.parse_args()
    sentence, target = (ENGLISH_32, 100) if args.english else (ARABIC_32, 50)
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # The server on core 0 and Chromium on core 1 (taskset): a user's browser does not draw on the server's CPU.
    pin = ("taskset", "-c", "0") if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else ()
    server = start_server(port, usage_stats=True, prefix=pin)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(port, server)
        with sync_playwright() as p:
            chromium = shutil.which("chromium")
            if pin:
                wrapper = Path(tempfile.mkdtemp()) / "chromium-on-core-1"
                wrapper.write_text(f'#!/bin/sh\nexec taskset -c 1 {chromium} "$@"\n')
                wrapper.chmod(0o755)
                chromium = str(wrapper)
            browser = launch_chromium(p, chromium)
            print(
                f"{'page':<12}{'interaction':<34}{'server ms':>10}{'min':>7}{'max':>7}  {'fragment':<9}"
                f"{'round trip ms':>14}  target: server ≤ {target} ms at 32 tokens"
            )
            for path, (key, switch) in PAGES.items():
                page = browser.new_page(viewport={"width": 1400, "height": 2000})
                timer = Timer(page)
                page.goto(f"{base}/{path}?{urllib.parse.urlencode({key: sentence})}")
                page.wait_for_selector(".js-plotly-plot", timeout=90_000)
                time.sleep(2)
                flip = page.locator("[data-testid='stMain'], [data-testid='stSidebar']").get_by_text(switch, exact=True)
                for name, act in (
                    (f"switch '{switch}'", flip.first.click),
                    ("type a sentence", partial(_retype, page, sentence)),
                ):
                    timer.spans.clear()
                    timer.runs.clear()
                    for _ in range(args.reps + 1):
                        act()
                        deadline = time.time() + 20
                        while timer.sent is not None and time.time() < deadline:
                            page.wait_for_timeout(20)
                        # Let Chromium finish drawing before the next interaction: on this 2-core machine the
                        # browser's drawing would otherwise take the server's CPU (a user's browser runs elsewhere).
                        page.wait_for_timeout(args.settle_ms)
                    spans = timer.spans[1:]  # the first is the warm-up
                    runs = [ms for ms, _ in timer.runs[1:]]
                    fragment = any(is_fragment for _, is_fragment in timer.runs[1:])
                    verdict = "pass" if statistics.median(runs) <= target else "FAIL"
                    print(
                        f"{path:<12}{name:<34}{statistics.median(runs):>10.0f}{min(runs):>7.0f}{max(runs):>7.0f}  "
                        f"{'yes' if fragment else 'no':<9}{statistics.median(spans):>14.0f}  {verdict}"
                    )
                page.close()
            browser.close()
    finally:
        stop_server(server)


_typed = [0]


def _retype(page: object, sentence: str) -> None:
    """A different 32-word sentence each time (the last word changes), as a user editing the text."""
    _typed[0] += 1
    box = page.get_by_label("Your sentence (any language; Arabic reads right to left)")
    last = ("كلمة" if sentence is ARABIC_32 else ["door", "wall", "gate", "tree"][_typed[0] % 4]) + (
        str(_typed[0]) if sentence is ARABIC_32 else ""
    )
    box.fill(sentence.rsplit(" ", 1)[0] + f" {last}")
    box.press("Enter")


if __name__ == "__main__":
    main()
