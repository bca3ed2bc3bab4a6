"""Server time per page interaction, where it goes at 512 tokens, and cold start to the first heatmap.

    .venv/bin/python -m bench.interaction_speed            # everything (about 5 minutes on 2 cores)
    .venv/bin/python -m bench.interaction_speed --skip-cold --reps 3

1. Interactions (Streamlit AppTest: `.run()` executes the page script in this process, which is the server's work
   for one rerun). For each page, with an Arabic sentence of 32 and of 512 tokens (Qurʾān āyāt joined), the wall
   time of one rerun after typing a sentence (two different sentences of that length, alternately) and after a
   toggle, median of --reps reruns after a warm-up. The pages cut sentences to attention_core.story.text.MAX_TOKENS;
   when that is under 512, "512 (cut to N)" rows measure the cut page and "512 (cap lifted)" rows patch the limit
   in this process only. Pages that read the trained model stop at its max_len (255 words + [CLS]), and so do
   Arabic sentences on the "automatic" word vectors: "512 random vec." rows switch Similarity, Trainable and Word
   order to random vectors to draw all 512 words. Fill the blank gets a [MASK] as its sixth word, so that its
   blank is inside the model's window.
   Each rerun is split into: model (TrainedModel.analyze/predict/sentence, heads.head_view), maths
   (attention_core.story.attention), heatmap figure building (figures.heatmap), Plotly's figure check
   (plotly.tools.return_figure_from_figure_or_data, called by st.plotly_chart), JSON (plotly.io.to_json, called by
   st.plotly_chart) and the CSV export (figure_table + DataFrame.to_csv, computed on every rerun by ui.show.chart).
2. The same steps at 512 tokens called directly, plus a lean heatmap (float32 numpy z, no per-cell hover text).
3. Cold start: `streamlit run app.py` as a subprocess; time until /_stcore/health answers and until the first
   `.js-plotly-plot` is visible in Chromium (Playwright) on /similarity with an Arabic sentence in the URL.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from bench.app_server import cold_starts, first_chart_recorder, git_state, stop_all

ROOT = Path(__file__).resolve().parents[1]

APP = str(ROOT / "app.py")
PAGES = ["similarity", "trainable", "heads", "fill_blank", "word_order", "idea"]
SENTENCE_KEY = {
    "similarity": "similarity_sentence",
    "trainable": "trainable_sentence",
    "heads": "heads_sentence",
    "fill_blank": "fill_blank_sentence",
    "word_order": "word_order_sentence",
}
TARGET_MS = {32: 50.0, 512: 300.0}
COLD_TARGET_S = 5.0
# ---------------------------------------------------------------------------------------------------------------
# Sentences from the Qurʾān


def quran_sentence(n_tokens: int, skip_lines: int = 0) -> str:
    from attention_core.story.text import tokenize
    from attention_core.training.corpora import load_corpus

    tokens = []
    for line in load_corpus("quran").train[skip_lines:]:
        tokens += tokenize(line)
        if len(tokens) >= n_tokens:
            break
    text = " ".join(t.surface for t in tokens[:n_tokens])
    assert len(tokenize(text)) == n_tokens, "sentence rebuilt to a different length"
    return text


# ---------------------------------------------------------------------------------------------------------------
# Per-step timers, patched into the modules the pages call (this process only; no file is changed)

STEPS = ["model", "maths", "heatmap", "fig check", "to_json", "csv"]
_spent: dict[str, float] = defaultdict(float)
_depth: dict[str, int] = defaultdict(int)


def _timed(step: str, function: Callable) -> Callable:
    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> object:
        if _depth[step]:  # nested call of the same step (attend_heads → attend): counted once
            return function(*args, **kwargs)
        _depth[step] += 1
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[step] += time.perf_counter() - started
            _depth[step] -= 1

    wrapper.__wrapped_step__ = step
    return wrapper


def _patch(owner: object, name: str, step: str) -> None:
    current = getattr(owner, name)
    if not hasattr(current, "__wrapped_step__"):
        setattr(owner, name, _timed(step, current))


def install_timers() -> None:
    import pandas as pd
    import plotly.io
    import plotly.tools

    import attention_core.figures.heatmaps as figures
    import attention_core.models.head_view as heads
    import attention_core.story.attention as attention
    import ui.head_grid
    import ui.show
    from attention_core.models.trained import TrainedModel

    for name in ("analyze", "predict", "sentence", "known_share"):
        _patch(TrainedModel, name, "model")
    for name in ("head_view", "compare_with_raw"):
        _patch(heads, name, "model")
    for name in ("attend", "attend_heads", "similarity", "unit_vectors", "random_projections"):
        _patch(attention, name, "maths")
    _patch(figures, "heatmap", "heatmap")
    _patch(ui.head_grid, "heatmap_grid", "heatmap")  # head_grid's own reference
    _patch(plotly.tools, "return_figure_from_figure_or_data", "fig check")
    _patch(plotly.io, "to_json", "to_json")
    _patch(ui.show, "figure_table", "csv")
    _patch(pd.DataFrame, "to_csv", "csv")


# ---------------------------------------------------------------------------------------------------------------
# 1. One rerun after an interaction, through AppTest


def interactions(page: str, sentences: tuple[str, str]) -> dict[str, Callable]:
    """name → a function (AppTest, i) → AppTest that makes the i-th interaction and reruns the script."""
    if page == "idea":  # the idea page has no controls: a rerun is all there is
        return {"rerun": lambda at, i: at.run()}
    key = SENTENCE_KEY[page]
    # set_value, not input(): AppTest's input() silently ignores text over the box's max_chars (2,000), and
    # 512 Qurʾān tokens are about 2,700 characters (a shared link's ?..._sentence= is not limited).
    found = {"type sentence": lambda at, i: at.text_input(key=key).set_value(sentences[i % 2]).run()}
    toggles = {"similarity": "similarity_softmax", "trainable": "trainable_W1", "heads": "heads_W1"}
    if page in toggles:
        found[f"toggle {toggles[page]}"] = lambda at, i: at.toggle(key=toggles[page]).set_value(i % 2 == 0).run()
    elif page == "fill_blank":
        found["slider fill_k"] = lambda at, i: at.slider(key="fill_blank_k").set_value(5 + i % 2 * 3).run()
    elif page == "word_order":
        found["button Shuffle"] = lambda at, i: at.button(key="word_order_shuffle").click().run()
    return found


def measure_page(page: str, sentences: tuple[str, str], reps: int, embedding: str | None = None) -> list[dict]:
    from streamlit.testing.v1 import AppTest

    rows = []
    for name, act in interactions(page, sentences).items():
        at = AppTest.from_file(APP, default_timeout=600).run()  # cold run: excluded
        at = at.switch_page(f"pages/{page}.py").run()
        if embedding:
            at = at.radio(key=SENTENCE_KEY[page].replace("_sentence", "_embedding")).set_value(embedding).run()
        if page != "idea":
            at = at.text_input(key=SENTENCE_KEY[page]).set_value(sentences[1]).run()
        at = act(at, 1)  # warm-up
        times, split = [], defaultdict(list)
        for i in range(reps):
            _spent.clear()
            started = time.perf_counter()
            at = act(at, i)
            times.append(time.perf_counter() - started)
            for step in STEPS:
                split[step].append(_spent[step])
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].value}")
        charts = at.get("plotly_chart")
        specs = [json.loads(c.proto.spec) for c in charts]
        rows.append(
            {
                "page": page,
                "interaction": name,
                "ms": 1000 * statistics.median(times),
                "split": {step: 1000 * statistics.median(v) for step, v in split.items()},
                "charts": len(charts),
                "json_mb": sum(len(c.proto.spec) for c in charts) / 1e6,
                "words": max((len(f["layout"]["meta"]["cols"]) for f in specs if "meta" in f["layout"]), default=0),
                "notices": [str(w.value).split("\n")[0][:110] for w in [*at.warning, *at.error]],
            }
        )
    return rows


def with_blank(text: str, at: int = 5) -> str:
    """The sentence with its word `at` replaced by [MASK]: Fill the blank then guesses inside the model's window
    (by default it hides the last word, which a 512-token text puts beyond the model's 255)."""
    words = text.split()
    return " ".join([*words[:at], "[MASK]", *words[at + 1 :]])


def interaction_table(reps: int) -> list[dict]:
    import ui.controls

    install_timers()
    sentences = {n: (quran_sentence(n), quran_sentence(n, skip_lines=200)) for n in (32, 512)}
    results = []
    shipped_cap = ui.controls.MAX_TOKENS  # the pages' cap, read where sentence_input reads it
    # An Arabic sentence takes the trained model's vectors ("automatic"), which stop at 255 words: the
    # "random" rows draw the whole 512 × 512 on the pages that let the user pick random vectors.
    free = ["similarity", "trainable", "word_order"]
    cases = [
        (32, "32", False, PAGES, None),
        (512, "512" if shipped_cap >= 512 else f"512 (cut to {shipped_cap})", False, PAGES, None),
        (512, "512 random vec.", shipped_cap < 512, free, "random"),
    ]
    for n, label, lift, pages, embedding in cases:
        ui.controls.MAX_TOKENS = 512 if lift else shipped_cap
        try:
            for page in pages:
                print(f"  {page} @ {label} …", file=sys.stderr, flush=True)
                pair = tuple(map(with_blank, sentences[n])) if page == "fill_blank" else sentences[n]
                for row in measure_page(page, pair, reps, embedding):
                    results.append({**row, "tokens": label, "n": n})
        finally:
            ui.controls.MAX_TOKENS = shipped_cap
    return results


# ---------------------------------------------------------------------------------------------------------------
# 2. The steps at 512 tokens, called directly


def best_of(function: Callable, reps: int) -> tuple[float, object]:
    """Median ms of `reps` calls after one warm-up, and the last result."""
    result = function()
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times), result


def one_pass(figure: object) -> tuple[list, dict]:
    """The trace and layout of a figure as plain values (its template included: the app's figures carry a slimmed
    copy of the default one): what one go.Figure(data=…, layout=…) call needs to rebuild it."""
    spec = figure.to_plotly_json()
    return spec["data"], spec["layout"]


def direct_steps(reps: int) -> list[tuple[str, float, str]]:
    import plotly.graph_objects as go
    import plotly.io
    import plotly.tools
    import torch

    from attention_core.figures.heatmaps import dimension_labels, figure_table, heatmap, word_labels
    from attention_core.models.trained import load_model
    from attention_core.story.attention import attend, similarity
    from attention_core.story.embeddings import embed_sentence
    from attention_core.story.text import tokenize

    torch.set_num_threads(max(1, torch.get_num_threads()))
    tokens = tokenize(quran_sentence(512))
    rows: list[tuple[str, float, str]] = []

    def add(name: str, function: Callable, note: Callable[[object], str] = lambda _: "") -> object:
        ms, result = best_of(function, reps)
        rows.append((name, ms, note(result)))
        return result

    small = embed_sentence(tokenize(quran_sentence(32)), "random", d=64, seed=0)
    small_labels = word_labels(small.labels, small.known)
    small_weights = attend(small.V).weights
    f32 = add(
        "32 × 32: heatmap(), as the app builds it",
        lambda: heatmap(small_weights, small_labels, small_labels, kind="weights"),
    )
    data32, layout32 = one_pass(f32)
    rebuilt = go.Figure(data=data32, layout=layout32)
    assert json.loads(plotly.io.to_json(rebuilt)) == json.loads(plotly.io.to_json(f32)), "one pass drew another figure"
    add(
        "32 × 32: the same figure, validated: go.Figure(data=…, layout=…)",
        lambda: go.Figure(data=data32, layout=layout32),
    )
    add(
        "32 × 32: figure check + to_json (st.plotly_chart's share)",
        lambda: (plotly.tools.return_figure_from_figure_or_data(f32, True), plotly.io.to_json(f32, validate=False)),
    )
    add("32 × 32: CSV export (figure_table + to_csv)", lambda: figure_table(f32).to_csv())
    load_ms, model = best_of(load_model, 1)
    rows.append(("load_model() (once per server, st.cache_resource)", load_ms, ""))
    sentence = add("embed: random vectors, 512 × 64", lambda: embed_sentence(tokens, "random", d=64, seed=0))
    add("embed: trained model, 255 × 128 (max_len 256)", lambda: model.sentence(tokens, True))
    V = sentence.V
    add("similarity V·Vᵀ, 512 × 64", lambda: similarity(V))
    att = add("attend (scale + softmax), 512 × 64", lambda: attend(V))
    add(
        "model.analyze, 255 tokens + [CLS]",
        lambda: model.analyze(tokens),
        lambda a: f"weights {tuple(a.weights.shape)}",
    )
    labels = word_labels(sentence.labels, sentence.known)
    big = add("heatmap() 512 × 512, as the app builds it", lambda: heatmap(att.weights, labels, labels, kind="weights"))
    add("heatmap() 512 × 64 (V)", lambda: heatmap(V, labels, dimension_labels(64), columns="dimensions"))
    add(
        "plotly figure check (st.plotly_chart), 512 × 512",
        lambda: plotly.tools.return_figure_from_figure_or_data(big, validate_figure=True),
    )
    add(
        "plotly.io.to_json, 512 × 512",
        lambda: plotly.io.to_json(big, validate=False),
        lambda s: f"{len(s) / 1e6:.1f} MB of JSON",
    )
    add(
        "CSV export (figure_table + to_csv), 512 × 512",
        lambda: figure_table(big).to_csv(),
        lambda s: f"{len(s) / 1e6:.1f} MB",
    )
    data, layout = one_pass(big)
    add(
        "the same 512 × 512 figure, validated: go.Figure(data=…, layout=…)", lambda: go.Figure(data=data, layout=layout)
    )

    def per_cell_hover() -> str:
        grid = att.weights.tolist()
        hover = [[f"{labels[i]} → {labels[j]}: {grid[i][j]:.3f}" for j in range(512)] for i in range(512)]
        figure = go.Figure(
            go.Heatmap(z=grid, text=hover, hovertemplate="%{text}<extra></extra>", colorscale="Blues", zmin=0, zmax=1)
        )
        plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
        return plotly.io.to_json(figure, validate=False)

    add(
        "per-cell hover text + Python lists 512 × 512: built + check + to_json",
        per_cell_hover,
        lambda s: f"{len(s) / 1e6:.1f} MB of JSON",
    )
    analysis = model.analyze(tokens)
    grid_labels = word_labels(analysis.labels, analysis.known)

    def head_grid_256() -> int:
        size = 0
        for layer in analysis.weights:
            for matrix in [*layer, layer.mean(0)]:
                figure = heatmap(matrix, grid_labels, grid_labels, kind="weights", compact=True, height=300)
                size += len(plotly.io.to_json(figure, validate=False))
        return size

    add("heads grid: 10 heatmaps 256 × 256, built + to_json", head_grid_256, lambda s: f"{s / 1e6:.1f} MB of JSON")

    def head_grid_csv() -> int:
        return sum(
            len(figure_table(heatmap(m, grid_labels, grid_labels, kind="weights", compact=True)).to_csv())
            for layer in analysis.weights
            for m in [*layer, layer.mean(0)]
        )

    add("heads grid: the same 10 heatmaps built + CSV export each", head_grid_csv, lambda s: f"{s / 1e6:.1f} MB")
    return rows


# ---------------------------------------------------------------------------------------------------------------
# 3. Cold start


def cold_start(port: int, runs: int) -> list[dict[str, float]]:
    """Seconds from process start to: health, first chart data on the websocket, first heatmap visible; and the
    same two for a second, warm visit (new browser context) timed from its own page.goto."""
    url = f"http://127.0.0.1:{port}/similarity?similarity_sentence=" + urllib.parse.quote(quran_sentence(32))
    results = []
    for browser, started, health in cold_starts(port, runs):
        data, visible = visit(browser, url, started)
        warm_data, warm_visible = visit(browser, url, None)
        results.append(
            {"health": health, "data": data, "visible": visible, "warm_data": warm_data, "warm_visible": warm_visible}
        )
    return results


def visit(browser: object, url: str, started: float | None) -> tuple[float, float]:
    """Opens url in a fresh context; seconds from `started` (default: the goto) until the first chart's data
    arrives on the websocket (a delta holding a plotly_chart) and until the first heatmap is visible."""
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    try:
        page = context.new_page()
        started = started if started is not None else time.perf_counter()
        times: dict[str, float] = {}
        on_frame = first_chart_recorder(times, "data", started)
        page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
        page.goto(url)
        page.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=120_000)
        visible = time.perf_counter() - started
    finally:
        context.close()
    return times.get("data", float("nan")), visible


# ---------------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="measured reruns per interaction (after a warm-up)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold starts to time")
    parser.add_argument("--port", type=int, default=8611)
    parser.add_argument("--skip-cold", action="store_true")
    parser.add_argument("--skip-pages", action="store_true")
    args = parser.parse_args()
    import torch

    print(
        f"# interaction_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch "
        f"threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )

    if not args.skip_pages:
        print(f"\n## 1. Server time of one rerun after an interaction (AppTest, median of {args.reps} after warm-up)")
        rows = interaction_table(args.reps)
        header = (
            f"{'page':<11} {'tokens':<16} {'interaction':<26} {'median ms':>9} {'target':>7} {'':<4} "
            + " ".join(f"{s:>9}" for s in STEPS)
            + f" {'other':>7} {'charts':>6} {'words':>5} {'JSON MB':>7}"
        )
        print(header)
        print("-" * len(header))
        for r in rows:
            target = TARGET_MS[r["n"]]
            other = r["ms"] - sum(r["split"].values())
            print(
                f"{r['page']:<11} {r['tokens']:<16} {r['interaction']:<26} {r['ms']:>9.0f} {target:>7.0f} "
                f"{'pass' if r['ms'] <= target else 'FAIL':<4} "
                + " ".join(f"{r['split'][s]:>9.0f}" for s in STEPS)
                + f" {other:>7.0f} {r['charts']:>6} {r['words']:>5} {r['json_mb']:>7.2f}"
            )
        import ui.controls

        print(f"\nThe pages' cap (MAX_TOKENS): {ui.controls.MAX_TOKENS}. Notices shown at 512 tokens:")
        seen = set()
        for r in rows:
            for notice in r["notices"] if r["n"] == 512 else []:
                if (r["page"], r["tokens"], notice) not in seen:
                    seen.add((r["page"], r["tokens"], notice))
                    print(f"  {r['page']:<11} {r['tokens']:<16} {notice}")
        print(
            "Split columns are medians (ms) of: model, maths, heatmap building, Plotly's figure check and JSON in "
            "st.plotly_chart, CSV export; other = Streamlit elements, LaTeX, AppTest bookkeeping; words = "
            "columns of the widest heatmap (with [CLS] on the model pages); JSON MB = all charts of the page."
        )

    print(f"\n## 2. Single steps called directly, 512 tokens unless named (median of {args.reps} after warm-up)")
    for name, ms, note in direct_steps(args.reps):
        print(f"{name:<72} {ms:>9.1f} ms  {note}")

    if not args.skip_cold:
        print(f"\n## 3. Cold start (streamlit run app.py, port {args.port}; Chromium already running)")
        runs = cold_start(args.port, args.cold_runs)
        columns = {
            "health": "health",
            "data": "chart data sent",
            "visible": "heatmap visible",
            "warm_data": "warm: data sent",
            "warm_visible": "warm: visible",
        }
        print(f"{'run':<5} " + " ".join(f"{title:>16}" for title in columns.values()))
        for i, run in enumerate(runs, 1):
            print(f"{i:<5} " + " ".join(f"{run[name]:>16.2f}" for name in columns))
        median = {name: statistics.median(run[name] for run in runs) for name in columns}
        print(f"{'med':<5} " + " ".join(f"{median[name]:>16.2f}" for name in columns))
        print(
            f"cold start to first heatmap {median['visible']:.2f} s, target ≤ {COLD_TARGET_S:g} s: "
            f"{'pass' if median['visible'] <= COLD_TARGET_S else 'FAIL'}; to health {median['health']:.2f} s. "
            "Seconds from process start (warm: from the second visit's page.goto). Data sent = the first chart's "
            "delta on the websocket; after it, the time is the browser's (Plotly's 4.7 MB chunk, drawing)."
        )
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
