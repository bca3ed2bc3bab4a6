"""The floor under a phone's first heatmap: Streamlit and Plotly alone, against the app's lesson link, by turns.

    .venv/bin/python -m bench.phone_floor --runs 5 --out docs/runs/phone_floor.txt

Three servers at once, measured in turns so they meet the same load: the app (bench/phone_speed.py's Similarity
lesson link: its first heatmap as a picture, figures/first_paint.py, and its first interactive chart), a
one-heatmap page (a title and one 8 × 64 heatmap like Similarity's V, built by the app's own heatmap(): nothing
else) and a title-only page (Streamlit's own start, no chart). Each is opened on the phone of bench/phone_speed.py
(390 × 844, touch, a phone's User-Agent, CPU ×4 through the DevTools protocol), a fresh context each run; printed:
the median (every run) of the first heatmap drawn (the title drawn, for the title-only page), by the page's own
clock from the start of navigation. The one-heatmap page is the least any Streamlit page with a Plotly
heatmap can take on this machine: what the app takes above it is what the app can still cut.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from bench import phone_speed
from bench.app_server import free_port, git_state, launch_chromium, start_server, stop_server, wait_until_healthy

ROOT = Path(__file__).resolve().parents[1]
# The page's code is written out below (a file Streamlit runs); it builds Similarity's first figure itself.
ONE_HEATMAP_PAGE = """
import streamlit as st
from attention_core.figures.heatmaps import dimension_labels, heatmap
import torch

st.title("One heatmap")
torch.manual_seed(0)
V = torch.randn({n}, {d})
st.plotly_chart(heatmap(V, [f"w{{i}}" for i in range({n})], dimension_labels({d}), kind="signed", columns="dimensions"))
"""
TITLE_ONLY_PAGE = 'import streamlit as st\nst.title("Title only")\nst.write("Nothing else.")\n'
TITLE = "sel => document.querySelector(sel) ? performance.now() : false"


def serve(script: Path, port: int) -> subprocess.Popen:
    """`streamlit run script` on port; the script imports attention_core from this checkout (PYTHONPATH)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.headless=true",
            "--server.address=127.0.0.1",
            f"--server.port={port}",
            "--browser.gatherUsageStats=false",
        ],
        cwd=script.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def one_run(browser: object, url: str, script: str, selector: str) -> float:
    context, page = phone_speed._open(browser, phone_speed.PHONE, 4)
    try:
        page.goto(url, wait_until="commit")
        return float(phone_speed._wait(page, script, selector)) / 1000
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="measured runs of each page (after one warm-up)")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    link = phone_speed.LINKS[0]
    with tempfile.TemporaryDirectory() as folder:
        one, title = Path(folder, "one_heatmap.py"), Path(folder, "title_only.py")
        # Similarity's first heatmap on the lesson's sentence: V, its words × the model's 64 dimensions.
        one.write_text(ONE_HEATMAP_PAGE.format(n=8, d=64), encoding="utf-8")
        title.write_text(TITLE_ONLY_PAGE, encoding="utf-8")
        ports = [free_port() for _ in range(3)]
        servers = [start_server(ports[0]), serve(one, ports[1]), serve(title, ports[2])]
        app = f"/{link.page}?{urlencode(link.lesson())}"
        pages = [
            ("the app: " + link.name + " (its picture)", app, phone_speed.DRAWN, phone_speed.FIRST_HEATMAP),
            ("the app: " + link.name + " (its interactive chart)", app, phone_speed.DRAWN, ".js-plotly-plot"),
            ("one heatmap, nothing else", "/", phone_speed.DRAWN, ".js-plotly-plot"),
            ("a title only (no chart)", "/", TITLE, "h1"),
        ]
        times: list[list[float]] = [[] for _ in pages]
        ports = [ports[0], *ports]  # the app's two rows are one server
        try:
            for port, server in zip(ports[1:], servers, strict=True):
                wait_until_healthy(port, server)
            with sync_playwright() as p:
                browser = launch_chromium(p)
                for run in range(args.runs + 1):
                    for i, (_, path, script, selector) in enumerate(pages):
                        t = one_run(browser, f"http://127.0.0.1:{ports[i]}{path}", script, selector)
                        if run:  # the first turn warms the servers' caches
                            times[i].append(t)
                browser.close()
        finally:
            for server in servers:
                stop_server(server)
    lines = [
        f"phone_floor: {git_state()}, {args.runs} runs each, by turns; phone 390 × 844, touch, CPU ×4; "
        + phone_speed._load()
    ]
    for (name, *_), values in zip(pages, times, strict=True):
        drawn = "title drawn" if "title" in name else "first heatmap"
        every = ", ".join(f"{v:.2f}" for v in values)
        lines.append(f"  {statistics.median(values):5.2f} s  {drawn:<13}  {name}  ({every})")
    lines.append(f"end: {phone_speed._load()}")
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
