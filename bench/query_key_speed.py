"""The query–key map (issue 15, point 3): its own cost, and the reruns of the pages that draw it.

    .venv/bin/python -m bench.query_key_speed                                   # both parts (about a minute)
    .venv/bin/python -m bench.query_key_speed --out docs/runs/query_key_speed.txt   # also keep the report

1. The map called directly, per step (median of --reps after a warm-up): query_key_map (the PCA of [V1; V2] and the
   strongest pairs), query_key_figure (the scatter, labels placed), and the figure's JSON (plotly.io.to_json, what
   st.plotly_chart sends), on the head a page would show: the shipped Arabic model's layer 1, head 1 (32 words, 33
   tokens with [CLS]), MiniLM's layer 1, head 3 (32 pieces with [CLS] and [SEP]; and 512, its longest input), and
   Trainable attention's one head over 32 words (the page's default settings). Also the variance each map keeps.
2. The pages (Streamlit AppTest, as bench/heads_apart_speed.py measures them): the rerun after changing the number
   of lines (1 ↔ 2) and after switching W1 off and on, on Multi-head (Arabic 32 words, MiniLM 32 pieces) and on
   Trainable attention (32 words). AppTest reruns the whole page script; a browser reruns only Multi-head's
   `one_head` fragment (the map is inside it), so each row also gives the time inside that fragment, and the time
   inside show_query_key_map itself. Budgets: ≤ 50 ms Arabic, ≤ 100 ms MiniLM (Trainable: 50 ms, a full rerun).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path

from bench.app_server import git_state
from bench.english_speed import english_sentence
from bench.heads_apart_speed import (
    REPORT,
    _fragment_spent,
    _script_spent,
    median_ms,
    say,
    time_fragments,
    watch_script_runs,
)
from bench.interaction_speed import quran_sentence

ROOT = Path(__file__).resolve().parents[1]

APP = str(ROOT / "app.py")
# ---------------------------------------------------------------------------------------------------------------
# 1. The map called directly


def heads_case(model: object, text: str, layer: int, head: int) -> tuple[object, ...]:
    from attention_core.figures.heatmaps import word_labels
    from attention_core.models.head_view import head_view
    from attention_core.story.text import tokenize

    tokens = tokenize(text)
    analysis = model.analyze(tokens)  # type: ignore[attr-defined]
    view = head_view(model, tokens, layer, head, inputs=analysis.inputs)  # type: ignore[arg-type]
    return view.V1, view.V2, view.weights, word_labels(analysis.labels, analysis.known)


def trainable_case(text: str) -> tuple[object, ...]:
    from attention_core.figures.heatmaps import word_labels
    from attention_core.story.embeddings import embed_sentence
    from attention_core.story.text import tokenize
    from attention_core.story.trainable import TrainableSettings, trainable_heads

    embedded = embed_sentence(tokenize(text))
    record = trainable_heads(embedded.V, TrainableSettings())[0]
    return record.V1, record.V2, record.weights, word_labels(embedded.labels, embedded.known)


def report_core(reps: int) -> None:
    import plotly.io

    from attention_core.figures.query_key_map import query_key_figure
    from attention_core.models.pretrained import load_minilm
    from attention_core.models.trained import load_model
    from attention_core.story.query_key_map import query_key_map

    arabic, english = load_model(), load_minilm()
    cases = [
        ("Arabic (shipped) L1 H1", "32 words", heads_case(arabic, quran_sentence(32), 0, 0)),
        ("MiniLM-L6 L1 H3", "32 pieces", heads_case(english, english_sentence(32), 0, 2)),
        ("MiniLM-L6 L1 H3", "512 pieces", heads_case(english, english_sentence(512), 0, 2)),
        ("Trainable, 1 head", "32 words", trainable_case(quran_sentence(32))),
    ]
    say(f"\n## 1. The map called directly (ms, median of {reps} after a warm-up)")
    header = (
        f"{'head':<23} {'sentence':<10} {'n':>4} {'d_h':>4} {'kept':>5} {'map':>6} {'figure':>7} {'to_json':>8} "
        f"{'total':>6} {'JSON kB':>8}"
    )
    say(header)
    say("-" * len(header))
    for name, size, (V1, V2, weights, labels) in cases:
        qk = query_key_map(V1, V2, weights, 1)
        figure = query_key_figure(qk, labels)
        spent = {
            "map": median_ms(lambda V1=V1, V2=V2, w=weights: query_key_map(V1, V2, w, 1), reps),
            "figure": median_ms(lambda qk=qk, labels=labels: query_key_figure(qk, labels), reps),
            "to_json": median_ms(lambda figure=figure: plotly.io.to_json(figure, validate=False), reps),
        }
        size_kb = len(plotly.io.to_json(figure, validate=False)) / 1000
        say(
            f"{name:<23} {size:<10} {V1.shape[0]:>4} {V1.shape[1]:>4} {qk.kept:>5.2f} {spent['map']:>6.1f} "
            f"{spent['figure']:>7.1f} {spent['to_json']:>8.1f} {sum(spent.values()):>6.1f} {size_kb:>8.1f}"
        )
    say(
        "n = the points of each cloud (the model's tokens: [CLS], and MiniLM's [SEP]); kept = the variance the plane "
        "keeps; map = query_key_map (PCA of the 2n points in float64, strongest pairs, nearest keys); figure = "
        "query_key_figure (labels placed greedily; past 40 words no labels); to_json = plotly.io.to_json."
    )


# ---------------------------------------------------------------------------------------------------------------
# 2. The pages' reruns, through AppTest

_map_spent: list[float] = []


def time_the_map() -> None:
    """Time show_query_key_map inside the page (the pages import it by name on every run, so the module's
    attribute is what they get)."""
    import ui.query_key_view as view

    real = view.show_query_key_map
    if getattr(real, "__timed__", False):
        return

    @functools.wraps(real)
    def timed(*args: object, **kwargs: object) -> object:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            _map_spent.append(time.perf_counter() - started)

    timed.__timed__ = True  # type: ignore[attr-defined]
    view.show_query_key_map = timed


def app_cases() -> list[tuple[str, str, str, str, str, float, str | None]]:
    """(page, model, sentence label, sentence, what changes, budget ms, the fragment a browser reruns)."""
    arabic_model = "Arabic: classical + modern model (shipped)"
    ar, en = quran_sentence(32), english_sentence(32)
    return [
        ("heads", arabic_model, "Arabic 32 words", ar, "lines", 50, "one_head"),
        ("heads", arabic_model, "Arabic 32 words", ar, "W1", 50, "one_head"),
        ("heads", "", "MiniLM 32 pieces", en, "lines", 100, "one_head"),
        ("heads", "", "MiniLM 32 pieces", en, "W1", 100, "one_head"),
        ("trainable", "", "Arabic 32 words", ar, "lines", 50, None),
        ("trainable", "", "Arabic 32 words", ar, "W1", 50, None),
    ]


def measure(page: str, model: str, sentence: str, change: str, reps: int) -> dict[str, float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=600).run()
    at = at.switch_page(f"pages/{page}.py").run()
    at = at.text_input(key=f"{page}_sentence").set_value(sentence).run()
    assert not model or at.sidebar.caption, "the model follows the sentence's script (Arabic: the shipped model)"

    def act(i: int) -> object:
        if change == "lines":
            return at.radio(key=f"{page}_qk_lines").set_value(1 + i % 2).run()
        return at.toggle(key=f"{page}_W1").set_value(i % 2 == 1).run()

    act(0)  # warm-up
    times, script, fragment, inside = [], [], [], []
    for i in range(1, reps + 1):
        _script_spent.clear()
        _fragment_spent.clear()
        _map_spent.clear()
        started = time.perf_counter()
        act(i)
        times.append(time.perf_counter() - started)
        script.append(sum(_script_spent))
        fragment.append(_fragment_spent.get("one_head", float("nan")))
        inside.append(sum(_map_spent))
    if at.exception:
        raise RuntimeError(f"{page} {change}: {at.exception[0].value}")
    return {
        "ms": 1000 * statistics.median(times),
        "script": 1000 * statistics.median(script),
        "fragment": 1000 * statistics.median(fragment),
        "map": 1000 * statistics.median(inside),
    }


def report_app(reps: int) -> None:
    time_fragments()
    watch_script_runs()
    time_the_map()
    say(f"\n## 2. One rerun after changing the map's lines or W1 (AppTest, ms, median of {reps} after a warm-up)")
    header = (
        f"{'page':<10} {'sentence':<17} {'change':<6} {'AppTest':>7} {'script':>7} {'fragment':>8} {'map':>6} "
        f"{'budget':>6} {'verdict':<7}"
    )
    say(header)
    say("-" * len(header))
    for page, model, label, sentence, change, budget, fragment in app_cases():
        print(f"  {page}: {change}, {label} …", file=sys.stderr, flush=True)
        r = measure(page, model, sentence, change, reps)
        browser = r["fragment"] if fragment else r["script"]  # what a browser's rerun costs the server
        verdict = "pass" if browser <= budget else "OVER"
        shown = f"{r['fragment']:.0f}" if fragment else "–"
        say(
            f"{page:<10} {label:<17} {change:<6} {r['ms']:>7.0f} {r['script']:>7.0f} {shown:>8} {r['map']:>6.1f} "
            f"{budget:>6.0f} {verdict:<7}"
        )
    say(
        "AppTest = one rerun as AppTest runs it (the whole page script, its polling and parsing); script = the "
        "script's run in its own thread; fragment = inside Multi-head's one_head fragment, which is all a browser "
        "reruns there (– : Trainable attention has no fragment, a browser reruns the whole script); map = inside "
        "show_query_key_map (the map, its figure, st.plotly_chart, the caption). The verdict compares what a browser "
        "reruns (fragment, or script) with the budget."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured calls or reruns per row (after a warm-up)")
    parser.add_argument("--skip-core", action="store_true", help="skip part 1 (the map called directly)")
    parser.add_argument("--skip-app", action="store_true", help="skip part 2 (the pages' reruns in AppTest)")
    parser.add_argument("--out", type=Path, help="also write the report to this file (nothing is written otherwise)")
    args = parser.parse_args()
    import torch

    say(
        f"# query_key_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch "
        f"threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )
    if not args.skip_core:
        report_core(args.reps)
    if not args.skip_app:
        report_app(args.reps)
    say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
