"""Minimal pairs (issue 15, point 2): the server's work for one rerun of the Minimal pairs page.

    .venv/bin/python -m bench.pairs_speed                                   # about half a minute
    .venv/bin/python -m bench.pairs_speed --out docs/runs/pairs_speed.txt   # also keep the report

Two pairs of 32 typed words each, B = A with one word swapped: Qurʾān text with a [MASK] as the sixth word (the
shipped Arabic model: guesses of both, 3 × 4 heads) and English (MiniLM: 6 × 12 heads, word pieces pooled to words,
[CLS] and [SEP]). For each, as bench/heads_apart_speed.py measures (Streamlit AppTest: `.run()` executes the page
script in this process), the median of --reps reruns after a warm-up of: picking another head (a browser reruns only
the `one_head` fragment), typing a new sentence B (a full rerun: both sentences through the model, aligned, the head
map, the picked head's A | B | B − A), and switching [CLS]/[SEP] off. Budgets: 50 ms Arabic, 100 ms MiniLM.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.app_server import git_state
from bench.english_speed import FILLER
from bench.heads_apart_speed import (
    REPORT,
    _fragment_spent,
    _script_spent,
    say,
    time_fragments,
    watch_script_runs,
)
from bench.interaction_speed import quran_sentence, with_blank

ROOT = Path(__file__).resolve().parents[1]

APP = str(ROOT / "app.py")


def swapped(text: str, at: int, word: str) -> str:
    """The sentence with its word `at` replaced: sentence B of the pair."""
    words = text.split()
    return " ".join([*words[:at], word, *words[at + 1 :]])


Act = Callable[[object, int], object]  # (AppTest, i) → AppTest after the i-th interaction and its rerun


def pick_head(options: list[str]) -> Act:
    return lambda at, i: at.selectbox(key="pairs_head").set_value(options[i % len(options)]).run()


def type_b(variants: list[str]) -> Act:
    """A new sentence B at every rerun (the page keeps its last four analyses: a B seen before would cost nothing)."""
    return lambda at, i: at.text_input(key="pairs_sentence_b").input(variants[i]).run()


def special(at: object, i: int) -> object:
    return at.toggle(key="pairs_special").set_value(i % 2 == 1).run()  # type: ignore[attr-defined]


def measure(a: str, b: str, act: Act, fragment: str | None, reps: int) -> dict[str, float]:
    """The median of `reps` reruns of `act`, opened on the pair (a, b) and warmed up with act(at, 1)."""
    from streamlit.testing.v1 import AppTest

    # Through app.py, as a browser's session runs: its frame sets one torch thread for the script (ui/server.py).
    at = AppTest.from_file(APP, default_timeout=600).run()  # cold: excluded
    at = at.switch_page("pages/pairs.py").run()
    at.text_input(key="pairs_sentence").input(a)
    at = at.text_input(key="pairs_sentence_b").input(b).run()
    at = act(at, 1)  # warm-up
    times, script, inside = [], [], []
    for i in range(2, reps + 2):
        _script_spent.clear()
        _fragment_spent.clear()
        started = time.perf_counter()
        at = act(at, i)
        times.append(time.perf_counter() - started)
        script.append(sum(_script_spent))
        inside.append(_fragment_spent[fragment] if fragment else float("nan"))
    if at.exception:  # type: ignore[attr-defined]
        raise RuntimeError(at.exception[0].value)  # type: ignore[attr-defined]
    return {
        "ms": 1000 * statistics.median(times),
        "best": 1000 * min(script),
        "script": 1000 * statistics.median(script),
        "fragment": 1000 * statistics.median(inside),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured reruns per interaction (after a warm-up)")
    parser.add_argument("--out", type=Path, help="also write the report to this file (nothing is written otherwise)")
    args = parser.parse_args()
    import torch

    from attention_core.story.text import tokenize

    watch_script_runs()
    time_fragments()
    arabic = with_blank(quran_sentence(32))
    english = " ".join(FILLER[:32])
    n = args.reps + 2  # sentences B: one for the page's first run, one for the warm-up, one per measured rerun
    arabic_words = list(dict.fromkeys(quran_sentence(400, skip_lines=300).split()))[:n]
    english_words = [f"{word}s" for word in dict.fromkeys(FILLER)][:n]  # plurals: none of them is in sentence A
    assert len(arabic_words) == len(english_words) == n, "not enough distinct words for --reps"
    pairs = [  # (model, budget ms, A, the B's typed in turn, heads to pick in turn)
        ("Arabic (shipped)", 50, arabic, [swapped(arabic, 10, w) for w in arabic_words], ["L1 H1", "L3 H4"]),
        ("MiniLM-L6", 100, english, [swapped(english, 10, w) for w in english_words], ["L1 H1", "L6 H12"]),
    ]
    say(
        f"# pairs_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, one torch "
        f"thread in the page's script (ui/server.py; {torch.get_num_threads()} here), load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    say(f"One rerun of Minimal pairs after an interaction (AppTest, median of {args.reps} after a warm-up)")
    header = (
        f"{'model':<17} {'words':>5} {'interaction':<22} {'median ms':>9} {'script':>6} {'best':>5} {'fragment':>8} "
        f"{'budget':>6} {'verdict':<7}"
    )
    say(header)
    say("-" * len(header))
    for model, budget, a, bs, heads in pairs:
        assert len(tokenize(a)) == 32 and all(len(tokenize(b)) == 32 for b in bs)
        cases = [
            ("pick another head", pick_head(heads), "one_head"),
            ("type sentence B", type_b(bs), None),
            ("[CLS]/[SEP] off / on", special, None),
        ]
        for name, act, fragment in cases:
            print(f"  {model}: {name} …", file=sys.stderr, flush=True)
            r = measure(a, bs[0], act, fragment, args.reps)
            # A browser reruns only the fragment for a head picked; anything else reruns the whole script.
            server = r["fragment"] if fragment else r["script"]
            verdict = "pass" if server <= budget else "OVER"
            fragment_ms = f"{r['fragment']:.0f}" if fragment else "–"
            say(
                f"{model:<17} {32:>5} {name:<22} {r['ms']:>9.0f} {r['script']:>6.0f} {r['best']:>5.0f} "
                f"{fragment_ms:>8} {budget:>6} {verdict:<7}"
            )
    say(
        "median ms = one rerun as AppTest runs it (the whole script, AppTest's polling and parsing included); script = "
        "the script's own run in its thread (the server's work of a full rerun), best = its fastest; fragment = the "
        "time inside one_head, which is all a browser reruns when a head is picked. The verdict compares the "
        "server's work of what a browser reruns (fragment for a head picked, script otherwise) with the budget."
    )
    say(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
