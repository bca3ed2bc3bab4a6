"""Where a phone's wait goes: a JavaScript CPU profile of one quiz's Reveal or one lesson link, on a phone at 4×.

    .venv/bin/python -m bench.phone_profile --link 1 --what reveal --out docs/runs/phone_profile_reveal.txt

The page of bench/phone_speed.py's link (0 Similarity, 1 Trainable, 2 Multi-head), opened as its phone opens it; the
DevTools protocol's Profiler samples the page's main thread from the Reveal click (or the navigation) until the map
is drawn. Printed: the time to the drawn map, the samples' total, the functions with the most time of their own, and
each script's inclusive time (a script counted once per sample however deep it recurs). Run it from a checkout's
bench/ to profile that checkout (it starts `streamlit run app.py` there).
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path
from urllib.parse import urlencode

from bench import phone_speed
from bench.app_server import free_port, git_state, launch_chromium, start_server, stop_server, wait_until_healthy


def profile(page: object, cdp: object, link: phone_speed.Link, base: str, what: str) -> tuple[float, dict]:
    if what == "lesson":
        cdp.send("Profiler.start")
        page.goto(f"{base}/{link.page}?{urlencode(link.lesson())}", wait_until="commit")
        drawn, started = phone_speed._wait(page, phone_speed.DRAWN, ".js-plotly-plot"), 0.0
    else:
        page.goto(f"{base}/{link.page}?{urlencode(link.quiz)}", wait_until="commit")
        box = page.locator("[data-testid='stSelectbox']").filter(has_text=phone_speed.PICK_BOX)
        box.locator("input").wait_for(timeout=90_000)
        page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=60_000)
        box.locator("input").click()
        page.keyboard.type(link.pick)
        page.get_by_role("option", name=link.pick, exact=True).click()
        time.sleep(3)  # the guess's rerun, and the chart code a quiz loads while the student reads
        cdp.send("Profiler.start")
        started = page.evaluate("performance.now()")
        page.get_by_role("button", name="Reveal", exact=True).click()
        drawn = phone_speed._wait(page, phone_speed.DRAWN, f"[class*='st-key-{link.page}_quiz_map'] .js-plotly-plot")
    return (drawn - started) / 1000, cdp.send("Profiler.stop")["profile"]


def summary(seconds: float, prof: dict, say: object) -> None:
    nodes = {node["id"]: node for node in prof["nodes"]}
    parent = {child: node["id"] for node in prof["nodes"] for child in node.get("children", [])}
    spent: collections.Counter = collections.Counter()
    for sample, delta in zip(prof["samples"], prof["timeDeltas"], strict=True):
        spent[sample] += delta
    own: collections.Counter = collections.Counter()
    by_script: collections.Counter = collections.Counter()
    for sample, us in spent.items():
        frame = nodes[sample]["callFrame"]
        own[(frame["functionName"] or "(anonymous)", frame["url"].split("/")[-1])] += us
        seen, node = set(), sample
        while node in nodes:
            script = nodes[node]["callFrame"]["url"].split("/")[-1] or "(no script: the engine, GC, idle)"
            if nodes[node]["callFrame"]["functionName"] == "(root)":  # every sample's root: not a script
                break
            if script not in seen:
                by_script[script] += us
                seen.add(script)
            node = parent.get(node)
    say(f"drawn after {seconds:.2f} s; {sum(spent.values()) / 1e6:.2f} s of samples")
    say("most time of their own (ms):")
    for (name, script), us in own.most_common(15):
        say(f"  {us / 1000:7.0f}  {name}  {script}")
    say("by script, inclusive (ms):")
    for script, us in by_script.most_common(12):
        say(f"  {us / 1000:7.0f}  {script}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--link", type=int, default=1, help="0 Similarity, 1 Trainable, 2 Multi-head")
    parser.add_argument("--what", choices=["reveal", "lesson"], default="reveal")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    link = phone_speed.LINKS[args.link]
    say(f"phone_profile: {git_state()}, {link.name}, {args.what}; {phone_speed._load()}")
    port = free_port()
    server = start_server(port)
    try:
        wait_until_healthy(port, server)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = launch_chromium(p)
            phone_speed.lesson_run(
                browser, base, link, phone_speed.LAPTOP, 1, phone_speed.Times()
            )  # models loaded, caches filled
            context = browser.new_context(**phone_speed.PHONE, locale="en-US")
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
            summary(*profile(page, cdp, link, base, args.what), say)
            browser.close()
    finally:
        stop_server(server)
    say(f"end: {phone_speed._load()}")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
