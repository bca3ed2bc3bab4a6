"""bench/phone_speed.py's measures on two checkouts at once, run by run in turn: before and after on a shared machine.

    git worktree add /work/before <old commit>
    .venv/bin/python bench/phone_speed_ab.py /work/before /work/main --runs 3 --out docs/runs/phone_speed_ab.txt

Sequential runs of phone_speed.py an hour apart met load averages from 6 to 13 on the 2 shared cores, which moved
every time by more than the change measured. Here each checkout has its own server, both started before any run, and
every run of one is followed by the same run of the other, so both meet the same load.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import app_server  # bench/ is on the path
import phone_speed as bench
from app_server import FLAGS, free_port, stop_server, wait_until_healthy


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({', '.join(f'{v:.1f}' for v in values)})" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path, help="two checkouts of the app (e.g. a worktree and this one)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each link, profile and checkout")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument("--table", type=Path, help="print a report this script wrote as a Markdown table, and stop")
    args = parser.parse_args()
    if args.table:
        print(as_table(args.table))
        return
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    servers = []
    for root in args.roots:
        app_server.ROOT = root.resolve()  # start_server runs `streamlit run app.py` in app_server.ROOT
        port = free_port()
        servers.append((root, port, app_server.start_server(port)))
    say(f"phone_speed_ab: {', '.join(str(root) for root in args.roots)}; {args.runs} runs each, in turn")
    say(f"start: {bench._load()}")
    try:
        for _, port, server in servers:
            wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True, args=FLAGS)
            for link in bench.LINKS:
                phone = {root: bench.Times() for root, _, _ in servers}
                laptop = {root: bench.Times() for root, _, _ in servers}
                for _, port, _ in servers:  # the server loads its models and fills its caches
                    bench.quiz_run(browser, f"http://127.0.0.1:{port}", link, bench.LAPTOP, 1, bench.Times())
                    bench.lesson_run(browser, f"http://127.0.0.1:{port}", link, bench.LAPTOP, 1, bench.Times())
                failed = []
                for _ in range(args.runs):
                    for run, profile, throttle, times in (
                        (bench.quiz_run, bench.PHONE, 4, phone),
                        (bench.lesson_run, bench.PHONE, 4, phone),
                        (bench.lesson_run, bench.LAPTOP, 1, laptop),
                    ):
                        for root, port, _ in servers:
                            try:
                                run(browser, f"http://127.0.0.1:{port}", link, profile, throttle, times[root])
                            except PlaywrightError as error:
                                failed.append(f"{root} {run.__name__}: {str(error)[:80]}")
                say(f"\n{link.name} (median, then every run)")
                for root, _, _ in servers:
                    say(f"  {root}")
                    say(f"    phone question       {_median(phone[root].question)}")
                    say(f"    phone Reveal         {_median(phone[root].reveal)}")
                    say(f"    phone first heatmap  {_median(phone[root].first_heatmap)}")
                    say(f"    laptop first heatmap {_median(laptop[root].first_heatmap)}")
                say(f"  ({bench._load()})")
                for failure in failed:
                    say(f"  failed (not in the times above): {failure}")
            browser.close()
    finally:
        for _, _, server in servers:
            stop_server(server)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def as_table(report: Path) -> str:
    """The report's rows as Markdown, one row per link and measure, a column per checkout (numbers as written)."""
    rows: dict[tuple[str, str], dict[str, str]] = {}
    roots: list[str] = []
    link = root = ""
    for line in report.read_text(encoding="utf-8").splitlines():
        if line.endswith("(median, then every run)"):
            link = line.removesuffix(" (median, then every run)")
        elif line.startswith("  /"):
            root = line.strip()
            roots += [root] if root not in roots else []
        elif line.startswith("    "):
            what, value = re.match(r"\s+(.+?)\s+(\d.*|-)$", line).groups()
            rows.setdefault((link, what), {})[root] = value
    table = [f"| link | measure | {' | '.join(roots)} |", "|---|---|" + "---|" * len(roots)]
    table += [f"| {link} | {what} | {' | '.join(v.get(r, '–') for r in roots)} |" for (link, what), v in rows.items()]
    return "\n".join(table)


if __name__ == "__main__":
    main()
