"""Where a phone's first heatmap waits: a timeline of one lesson link on a phone at 4×, by the page's own clock.

    .venv/bin/python -m bench.phone_timeline --link 0 --runs 3

The link and the phone of bench/phone_speed.py. An init script, run before the app's own code, records (with
performance.now(), from the start of navigation): the first WebSocket message from the server, the first and last
message of the script's run (a message's arrival, not its drawing), the page's title drawn, Plotly's chunk fetched
(resource timing) and its first chart element, and the heatmap drawn (the SVG heatmap layer's image). Each mark is
the median of the runs; the gaps between marks show whether the server, the network or the phone's drawing waits.
"""

from __future__ import annotations

import argparse
import statistics
from urllib.parse import urlencode

from bench import phone_speed
from bench.app_server import free_port, git_state, launch_chromium, start_server, stop_server, wait_until_healthy

# Wraps WebSocket before the app opens one: every message's arrival time, in order.
RECORDER = """
window.__marks = {};
const mark = (name) => { if (!(name in window.__marks)) window.__marks[name] = performance.now(); };
window.__mark = mark;
const Native = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new Native(...args);
  socket.addEventListener('message', (event) => {
    mark('first message');
    window.__marks['last message'] = performance.now();
    const size = event.data.byteLength || event.data.size || 0;
    (window.__messages = window.__messages || []).push([performance.now(), size]);
  });
  return socket;
};
window.WebSocket.prototype = Native.prototype;
Object.assign(window.WebSocket, Native);
new MutationObserver(() => {
  if (document.querySelector('h1')) mark('title drawn');
  if (document.querySelector('[data-testid=stSelectbox], [data-testid=stTextArea], [data-testid=stTextInput]'))
    mark('first control drawn');
  if (document.querySelector('.katex')) mark('first formula drawn');
  if (document.querySelector('.js-plotly-plot')) mark('first chart element');
  if (document.querySelector('.heatmaplayer image, .heatmaplayer .hm')) mark('heatmap drawn');
  if (document.querySelector("[class*='st-key-first_paint_'] img")) mark('first paint element');
}).observe(document, { childList: true, subtree: true });
"""
CHUNKS = """() => Object.fromEntries(performance.getEntriesByType('resource')
  .filter(e => /(PlotlyChart|index|katex|Katex)[^/]*\\.js$/.test(e.name))
  .map(e => [e.name.split('/').pop().split('.')[0] + ' fetched', e.responseEnd]))"""


def one_run(browser: object, base: str, link: phone_speed.Link, verbose: bool = False) -> dict[str, float]:
    context, page = phone_speed._open(browser, phone_speed.PHONE, 4)
    try:
        page.add_init_script(RECORDER)
        page.goto(f"{base}/{link.page}?{urlencode(link.lesson())}", wait_until="commit")
        drawn = phone_speed._wait(page, phone_speed.DRAWN, phone_speed.FIRST_HEATMAP)
        page.wait_for_timeout(500)
        marks = {**page.evaluate("window.__marks"), **page.evaluate(CHUNKS)}
        marks["heatmap seen (phone_speed's clock)"] = drawn
        if verbose:
            bins: dict[float, list[int]] = {}
            for at, size in page.evaluate("window.__messages"):
                bins.setdefault(round(at / 1000, 1), []).append(size)
            for at, sizes in bins.items():
                print(f"    {at:.1f} s: {len(sizes)} messages, {sum(sizes):,} bytes")
        return marks
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--link", type=int, default=0, help="0 Similarity, 1 Trainable, 2 Multi-head")
    parser.add_argument("--runs", type=int, default=3, help="measured runs (after one unmeasured warm-up)")
    parser.add_argument("--messages", action="store_true", help="print every message's arrival and size")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    link = phone_speed.LINKS[args.link]
    port = free_port()
    server = start_server(port)
    try:
        wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            base = f"http://127.0.0.1:{port}"
            one_run(browser, base, link)  # the server loads its model and fills its caches
            runs = [one_run(browser, base, link, verbose=args.messages) for _ in range(args.runs)]
            browser.close()
    finally:
        stop_server(server)
    print(f"phone_timeline: {git_state()}, {link.name}, {args.runs} runs; {phone_speed._load()}")
    names = sorted({name for run in runs for name in run}, key=lambda n: statistics.median(r.get(n, 1e9) for r in runs))
    for name in names:
        values = [run[name] / 1000 for run in runs if name in run]
        print(f"  {statistics.median(values):6.2f} s  {name}  ({', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
