"""Guess, then reveal (issue 15): the reruns a quiz costs, on Multi-head, Similarity and Trainable attention.

    .venv/bin/python -m bench.guess_speed                                 # every case (about 1 minute)
    .venv/bin/python -m bench.guess_speed --out docs/runs/guess_speed.txt # also keep the report

A guess reruns only the quiz's fragment (ui.guess_view.guess_and_answer) in a browser, where AppTest reruns the whole
page: "fragment" is what a student waits for after a guess (the budgets: 50 ms at 32 Arabic words, 100 ms for MiniLM
at 32 pieces); Reveal reruns the whole page ("median ms" of a revealed case is close to that).
Measured, each after the quiz switch is on (and, for "revealed", after a guess and Reveal): picking another word
while the answer is hidden (the page stops before its heatmaps), the same once revealed (the whole page, plus the
quiz's map and bars), and moving a share slider once revealed. Also the rest of issue 15's interactions: the
causal switches of Similarity, Trainable attention and Fill the blank, and Word order's swap. Tables and columns as
in bench/heads_apart_speed.py.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from bench import heads_apart_speed
from bench.app_server import git_state
from bench.english_speed import english_sentence
from bench.heads_apart_speed import Act, Case, say
from bench.interaction_speed import quran_sentence, with_blank

ROOT = Path(__file__).resolve().parents[1]

SHARE = "share its attention out"


def quiz_on(page: str) -> Act:
    return lambda at, i: at.toggle(key=f"{page}_quiz").set_value(True).run()


def pick(page: str) -> Act:
    """Another word each time (the 2nd and 3rd of the sentence, in turn)."""
    return lambda at, i: (box := at.selectbox(key=f"{page}_quiz_pick")).set_value(box.options[2 + i % 2]).run()


def reveal(page: str) -> Act:
    return lambda at, i: at.button(key=f"{page}_quiz_reveal").click().run()


def share_mode(page: str) -> Act:
    return lambda at, i: at.radio(key=f"{page}_quiz_how").set_value(SHARE).run()


def slide(page: str) -> Act:
    def move(at: object, i: int) -> object:
        third_word = at.selectbox(key=f"{page}_quiz_row").options[2]
        return at.slider(key=f"{page}_quiz_share_{third_word}").set_value(3 + i % 2 * 4).run()

    return move


def open_page(case: Case) -> object:
    """The page opened as a link opens it (pages/x.py with its sentence in the query). Through app.py and
    switch_page, AppTest loses the page's first elements after Reveal's st.rerun inside the fragment (a browser
    does not: tests/test_browser.py clicks Reveal)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / f"{case.page}.py"), default_timeout=600)
    at.query_params[f"{case.page}_sentence"] = case.sentence
    return heads_apart_speed.set_up(at.run(), case)


def toggle(key: str) -> Act:
    return lambda at, i: at.toggle(key=key).set_value(i % 2 == 0).run()


def swap_with(at: object, i: int) -> object:
    box = at.selectbox(key="word_order_swap_b")  # type: ignore[attr-defined]
    return box.set_value(box.options[3 + i % 2]).run()


def swapping(at: object, i: int) -> object:
    return at.radio(key="word_order_how").set_value("swapping two words").run()  # type: ignore[attr-defined]


def look_ahead_and_order_cases() -> list[Case]:
    """Points 4 and 5 of issue 15: the causal switches (one more pass when on) and the word swap."""
    arabic = quran_sentence(32)
    ar = "Arabic 32 words"
    return [
        Case("similarity", ar, arabic, "causal switch", toggle("similarity_causal"), 50, None),
        Case("trainable", ar, arabic, "causal switch", toggle("trainable_causal"), 50, None),
        Case("fill_blank", ar, with_blank(arabic), "causal switch", toggle("fill_blank_causal"), 50, None),
        Case("word_order", ar, arabic, "swap another word", swap_with, 50, None, (swapping,)),
    ]


def quiz_cases() -> list[Case]:
    arabic, english = quran_sentence(32), english_sentence(32)
    ar, en = "Arabic 32 words", "MiniLM 32 pieces"
    cases = []
    for page, language, sentence, budget in (
        ("heads", ar, arabic, 50),
        ("heads", en, english, 100),
        ("similarity", ar, arabic, 50),
        ("trainable", ar, arabic, 50),
    ):
        hidden = (quiz_on(page),)
        revealed = (*hidden, pick(page), reveal(page))
        cases += [
            Case(page, language, sentence, "pick a word, hidden", pick(page), budget, "guess_and_answer", hidden),
            Case(page, language, sentence, "pick a word, revealed", pick(page), budget, "guess_and_answer", revealed),
        ]
    # Shares: softmax is on in the Multi-head page; 32 words are past the sixteen sliders, so 12 words here.
    short = " ".join(arabic.split()[:12])
    hidden = (quiz_on("heads"), share_mode("heads"), slide("heads"), reveal("heads"))
    cases.append(
        Case(
            "heads", "Arabic 12 words", short, "move a share, revealed", slide("heads"), 50, "guess_and_answer", hidden
        )
    )
    return cases + look_ahead_and_order_cases()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured reruns per case (after a warm-up)")
    parser.add_argument("--only", default="", help="cases whose 'page interaction sentence' contains this text")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # as the server's page runs compute (ui.server.one_torch_thread, called by app.py's frame)
    say(
        f"# guess_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch threads "
        f"{torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )
    heads_apart_speed.report_app(args.reps, "none", 20, args.only, quiz_cases(), open_page)
    say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(heads_apart_speed.REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
