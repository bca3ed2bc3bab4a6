"""bench/phone_speed.py's measures on two checkouts at once, run by run in turn: before and after on a shared machine.

    git worktree add /work/before <old commit>
    .venv/bin/python -m bench.phone_speed_ab /work/before /work/main --runs 3 --out docs/runs/phone_speed_ab.txt

Sequential runs of phone_speed.py an hour apart met load averages from 6 to 13 on the 2 shared cores, which moved
every time by more than the change measured. Here each checkout has its own server, both started before any run, and
every run of one is followed by the same run of the other, so both meet the same load.
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

from bench import phone_speed
from bench.app_server import free_port, launch_chromium, start_server, stop_server, wait_until_healthy


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
        port = free_port()
        servers.append((root, port, start_server(port, root=root.resolve())))  # `streamlit run app.py` in root
    say(f"phone_speed_ab: {', '.join(str(root) for root in args.roots)}; {args.runs} runs each, in turn")
    say(f"start: {phone_speed._load()}")
    try:
        for _, port, server in servers:
            wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            for link in phone_speed.LINKS:
                phone = {root: phone_speed.Times() for root, _, _ in servers}
                laptop = {root: phone_speed.Times() for root, _, _ in servers}
                for _, port, _ in servers:  # the server loads its models and fills its caches
                    phone_speed.quiz_run(
                        browser, f"http://127.0.0.1:{port}", link, phone_speed.LAPTOP, 1, phone_speed.Times()
                    )
                    phone_speed.lesson_run(
                        browser, f"http://127.0.0.1:{port}", link, phone_speed.LAPTOP, 1, phone_speed.Times()
                    )
                failed = []
                for _ in range(args.runs):
                    for run, profile, throttle, times in (
                        (phone_speed.quiz_run, phone_speed.PHONE, 4, phone),
                        (phone_speed.lesson_run, phone_speed.PHONE, 4, phone),
                        (phone_speed.lesson_run, phone_speed.LAPTOP, 1, laptop),
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
                say(f"  ({phone_speed._load()})")
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
