"""What the Arabic interface costs a rerun (issue 16): each page typed into at 32 Arabic words, in English and in
Arabic, through app.py as a link opens it (the language switch and the right-to-left style are in the frame).

    .venv/bin/python -m bench.language_speed --out docs/runs/language_speed.txt

In Arabic every string is looked up in the catalog, every figure's words are translated as it is drawn
(ui.i18n.translated_figure), options go through their labels, and tables turn their columns round; the rest of the
page is the same work. Median of --reps reruns after a warm-up, one torch thread as the server computes; the table
and its columns are bench/heads_apart_speed.py's.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from bench import heads_apart_speed
from bench.app_server import git_state
from bench.heads_apart_speed import Case, say, typing
from bench.interaction_speed import quran_sentence, with_blank

ROOT = Path(__file__).resolve().parents[1]

INTERFACES = {"English interface": "en", "Arabic interface": "ar"}
PAGES = ("similarity", "trainable", "heads", "fill_blank", "word_order")  # Minimal pairs: bench/pairs_speed.py


def language_cases() -> list[Case]:
    cases = []
    for page in PAGES:
        pair = (quran_sentence(32), quran_sentence(32, skip_lines=200))
        if page == "fill_blank":
            pair = (with_blank(pair[0]), with_blank(pair[1]))
        for interface in INTERFACES:
            cases.append(Case(page, interface, pair[1], "type a sentence", typing(f"{page}_sentence", pair), 50, None))
    return cases


def open_in_language(case: Case) -> object:
    """The page as a link opens it, ?lang= included, framed by app.py."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["lang"] = INTERFACES[case.language]
    at.query_params[f"{case.page}_sentence"] = case.sentence
    return heads_apart_speed.set_up(at.switch_page(f"pages/{case.page}.py").run(), case)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured reruns per case (after a warm-up)")
    parser.add_argument("--only", default="", help="cases whose 'page interaction interface' contains this text")
    parser.add_argument("--profile", choices=["over", "all", "none"], default="none", help="cProfile some cases")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # as the server's page runs compute (ui.server.one_torch_thread)
    say(
        f"# language_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch threads "
        f"{torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )
    heads_apart_speed.report_app(args.reps, args.profile, 25, args.only, language_cases(), open_in_language)
    say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(heads_apart_speed.REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
