"""Heads taken apart (issue 14): ranking every head, and the app's knock-out and word-flow reruns.

    .venv/bin/python -m bench.heads_apart_speed                  # both parts, profiles included (about 1 minute)
    .venv/bin/python -m bench.heads_apart_speed --skip-core --only "fill_blank knock" --profile all --top 30
    .venv/bin/python -m bench.heads_apart_speed --out docs/runs/heads_apart_speed_1.txt   # also keep the report

1. Core, called directly: head_importance(model, tokens) (every head knocked out alone, batched per layer) for the
   shipped Arabic model (32 words, and the same 32 with a [MASK]: measure "guess") and MiniLM (32 word pieces with
   [CLS] and [SEP]), median of --core-reps calls after a warm-up, against the naive way: one
   model.analyze(tokens, knock_out=[(layer, head)]) per head (which does not even score the heads). Target ≤ 1 s.
2. App (Streamlit AppTest, as bench/interaction_speed.py measures pages: `.run()` executes the page script in this
   process, the server's work for one rerun): on Multi-head with the view on "Knock heads out", the rerun after
   changing the knocked-out heads; the "Follow a word through the layers" switch (this layer / rollout); typing a
   new sentence in each view; the "Rank every head" button; and the same knock-out, flow and rank on Fill the
   blank (a [MASK] as the sixth word). Median of --reps reruns after a warm-up, split into the steps of
   bench/interaction_speed.py (knock-out helpers counted with them: guesses and attention shift as model, the
   head maps as heatmap, rollout as maths).
   AppTest reruns the whole page script even for a widget inside an `st.fragment`; a browser reruns only the
   fragment. So each row also gives the time spent inside that fragment's function ("fragment" column): the
   server's work of the browser's fragment rerun, without the rest of the page (and without Streamlit's own cost
   of starting a run, a few ms). "script" is the script's run in its own thread, without AppTest's polling and
   its parsing of the elements afterwards.
   --profile: cProfile inside the script's thread around --reps reruns of every case over its budget (or of all
   cases): own time per library, the app's own functions by cumulative time, every function by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.app_server import git_state
from bench.english_speed import english_sentence
from bench.interaction_speed import STEPS, _patch, _spent, install_timers, quran_sentence, with_blank

ROOT = Path(__file__).resolve().parents[1]

APP = str(ROOT / "app.py")
CORE_TARGET_S = 1.0
KNOCK_OUT, FLOW = "Knock heads out", "Follow a word through the layers"  # the "Look closer" views
THIS_LAYER, COMBINED = "this layer (the heads' mean)", "all layers combined (rollout)"
PICKS = (["L1 H1"], ["L1 H1", "L2 H3"])  # alternated: layer 1 first, so every later layer changes (the most work)


REPORT: list[str] = []  # the lines printed, for --out


def say(line: str = "") -> None:
    """One line of the report: printed now, written to --out at the end."""
    print(line, flush=True)
    REPORT.append(line)


# ---------------------------------------------------------------------------------------------------------------
# 1. head_importance called directly


def median_ms(function: Callable[[], object], reps: int) -> float:
    function()  # warm-up
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def core_rows(reps: int) -> list[dict]:
    from attention_core.models.head_importance import head_importance
    from attention_core.models.pretrained import load_minilm
    from attention_core.models.trained import load_model
    from attention_core.story.text import tokenize

    arabic, english = load_model(), load_minilm()
    cases = [  # (model, sentence, what it is, how many tokens the model reads: [CLS] and MiniLM's [SEP] included)
        ("Arabic (shipped)", arabic, quran_sentence(32), "32 words", 33),
        ("Arabic (shipped)", arabic, with_blank(quran_sentence(32)), "32 words, [MASK] 6th", 33),
        ("MiniLM-L6", english, english_sentence(32), "32 pieces", 32),
    ]
    rows = []
    for model_name, model, text, size, n_read in cases:
        tokens = tokenize(text)
        assert len(model.encode(tokens)[0]) == n_read, f"{model_name}: not {n_read} tokens"
        heads = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]

        def naive(model: object = model, tokens: list = tokens, heads: list = heads) -> None:
            for head in heads:
                model.analyze(tokens, knock_out=[head])

        print(f"  core: {model_name}, {size} …", file=sys.stderr, flush=True)
        result = head_importance(model, tokens)
        rows.append(
            {
                "model": model_name,
                "size": size,
                "model tokens": len(model.encode(tokens)[0]),
                "heads": len(heads),
                "measure": result.measure,
                "batched": median_ms(lambda model=model, tokens=tokens: head_importance(model, tokens), reps),
                "naive": median_ms(naive, reps),
            }
        )
    return rows


# ---------------------------------------------------------------------------------------------------------------
# 2. The app's reruns, through AppTest

Act = Callable[[object, int], object]  # (AppTest, i) → AppTest after the i-th interaction and its rerun


@dataclass(frozen=True)
class Case:
    page: str  # heads or fill_blank
    language: str
    sentence: str
    interaction: str
    act: Act
    budget_ms: float | None
    fragment: str | None  # the fragment function a browser would rerun alone, or None: a full rerun
    setup: tuple[Act, ...] = field(default=())


Opener = Callable[["Case"], object]  # a case → its page opened and set up (AppTest), ready to measure


def view(name: str) -> Act:
    return lambda at, i: at.segmented_control(key="heads_view").set_value(name).run()


def knock(key: str) -> Act:
    return lambda at, i: at.multiselect(key=key).set_value(PICKS[i % 2]).run()


def flow(key: str) -> Act:
    return lambda at, i: at.radio(key=key).set_value(COMBINED if i % 2 == 0 else THIS_LAYER).run()


def rank(key: str) -> Act:
    return lambda at, i: at.button(key=key).click().run()


def typing(key: str, pair: tuple[str, str]) -> Act:
    return lambda at, i: at.text_input(key=key).set_value(pair[i % 2]).run()


def app_cases() -> list[Case]:
    arabic = (quran_sentence(32), quran_sentence(32, skip_lines=200))
    english = english_sentence(32)
    blank = with_blank(arabic[0])
    pick = (knock("heads_knock_out"),)
    ar, en = "Arabic 32 words", "MiniLM 32 pieces"
    return [
        Case("heads", ar, arabic[0], "knock-out heads", knock("heads_knock_out"), 50, "knock_out", (view(KNOCK_OUT),)),
        Case("heads", en, english, "knock-out heads", knock("heads_knock_out"), 100, "knock_out", (view(KNOCK_OUT),)),
        Case("heads", ar, arabic[0], "flow: layer / rollout", flow("heads_flow"), 50, "follow_a_word", (view(FLOW),)),
        Case("heads", en, english, "flow: layer / rollout", flow("heads_flow"), 100, "follow_a_word", (view(FLOW),)),
        Case("heads", ar, arabic[1], "type sentence (one head)", typing("heads_sentence", arabic), 50, None),
        Case(
            "heads",
            ar,
            arabic[1],
            "type sentence (knock-out)",
            typing("heads_sentence", arabic),
            50,
            None,
            (view(KNOCK_OUT), *pick),
        ),
        Case("heads", ar, arabic[1], "type sentence (flow)", typing("heads_sentence", arabic), 50, None, (view(FLOW),)),
        Case("heads", ar, arabic[0], "Rank every head", rank("heads_rank"), None, "knock_out", (view(KNOCK_OUT),)),
        Case("heads", en, english, "Rank every head", rank("heads_rank"), None, "knock_out", (view(KNOCK_OUT),)),
        Case("fill_blank", ar, blank, "knock-out heads", knock("fill_blank_knock_out"), 50, "knock_out"),
        Case("fill_blank", ar, blank, "flow: layer / rollout", flow("fill_blank_flow"), 50, "follow_the_blank"),
        Case("fill_blank", ar, blank, "Rank every head", rank("fill_blank_rank"), None, "knock_out"),
    ]


_fragment_spent: dict[str, float] = defaultdict(float)


def time_fragments() -> None:
    """Wraps st.fragment (this process only) so that every fragment function's own time is counted by name."""
    import streamlit

    real = streamlit.fragment
    if getattr(real, "__timed__", False):
        return

    def timed_fragment(func: Callable | None = None, **options: object) -> Callable:
        if func is None:
            return lambda f: timed_fragment(f, **options)

        @functools.wraps(func)
        def timed(*args: object, **kwargs: object) -> object:
            started = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                _fragment_spent[func.__name__] += time.perf_counter() - started

        return real(timed, **options)

    timed_fragment.__timed__ = True
    streamlit.fragment = timed_fragment


def install_knock_out_timers() -> None:
    """bench/interaction_speed.py's step timers, plus the knock-out helpers the ui modules imported by name."""
    import attention_core.figures.head_maps as head_maps
    import ui.head_roles_view
    import ui.knock_out_view
    import ui.rollout_view
    from attention_core.models.pretrained import PretrainedModel

    install_timers()
    for name in ("analyze", "sentence", "known_share", "words_read"):
        _patch(PretrainedModel, name, "model")
    for name in ("compare_guesses", "attention_shift", "head_importance", "head_roles"):
        if hasattr(ui.knock_out_view, name):
            _patch(ui.knock_out_view, name, "model")
    _patch(ui.head_roles_view, "head_roles", "model")
    for module in (ui.knock_out_view, ui.rollout_view):
        for name in ("heatmap", "heatmap_grid", "head_values", "importance_map", "clickable_heads_map"):
            if hasattr(module, name):
                _patch(module, name, "heatmap")
    for name in ("role_map", "head_values", "importance_map", "clickable_heads_map"):
        if hasattr(head_maps, name):
            _patch(head_maps, name, "heatmap")
    _patch(ui.head_roles_view, "role_map", "heatmap")
    _patch(ui.rollout_view, "attention_rollout", "maths")
    time_fragments()
    watch_script_runs()


def open_case(case: Case) -> object:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=600).run()  # cold run: excluded
    at = at.switch_page(f"pages/{case.page}.py").run()
    at = at.text_input(key=f"{case.page}_sentence").set_value(case.sentence).run()
    return set_up(at, case)


def set_up(at: object, case: Case) -> object:
    """An opened page made ready to measure: the case's setup steps, then one warm-up of its interaction."""
    for step in case.setup:
        at = step(at, 0)
    at = case.act(at, 1)  # warm-up
    if at.exception:
        raise RuntimeError(f"{case.page} {case.interaction}, {case.language}: {at.exception[0].value}")
    return at


def measure_case(case: Case, reps: int, opener: Opener = open_case) -> dict:
    at = opener(case)
    times, split, inside, script = [], defaultdict(list), [], []
    for i in range(reps):
        _spent.clear()
        _fragment_spent.clear()
        _script_spent.clear()
        started = time.perf_counter()
        at = case.act(at, i)
        times.append(time.perf_counter() - started)
        for step in STEPS:
            split[step].append(_spent[step])
        inside.append(_fragment_spent[case.fragment] if case.fragment else float("nan"))
        script.append(sum(_script_spent))
    if at.exception:
        raise RuntimeError(f"{case.page} {case.interaction}: {at.exception[0].value}")
    charts = at.get("plotly_chart")
    return {
        "ms": 1000 * statistics.median(times),
        "best": 1000 * min(times),
        "script": 1000 * statistics.median(script),
        "split": {step: 1000 * statistics.median(v) for step, v in split.items()},
        "fragment": 1000 * statistics.median(inside),
        "charts": len(charts),
        "json_mb": sum(len(c.proto.spec) for c in charts) / 1e6,
        "notices": [str(w.value).split("\n")[0][:100] for w in [*at.warning, *at.error]],
    }


PROFILER: dict[str, cProfile.Profile] = {}  # "on": the profiler the page script's thread reports to
_script_spent: list[float] = []  # seconds of each script run in its own thread since the last clear()


def watch_script_runs() -> None:
    """AppTest runs the page script in a thread of its own, which a profiler enabled in this thread does not see.
    The script runner (this process only) times each script run in that thread (the server's work of a rerun,
    without AppTest's polling and parsing of the elements afterwards) and enables PROFILER["on"] around it."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    real = ScriptRunner._run_script
    if getattr(real, "__watched__", False):
        return

    @functools.wraps(real)
    def run_script(self: object, rerun_data: object) -> None:
        profiler = PROFILER.get("on")
        started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        try:
            return real(self, rerun_data)
        finally:
            if profiler is not None:
                profiler.disable()
            _script_spent.append(time.perf_counter() - started)

    run_script.__watched__ = True
    ScriptRunner._run_script = run_script


def library(file: str, function: str) -> str:
    """Who owns a profiled function: the app (pages, ui, attention_core), a package, or Python itself."""
    if file == "~":  # a built-in: torch's C functions name their module
        return "torch (C)" if "torch" in function else "built-ins (C)"
    top = short_path(file).split("/", 1)[0]
    if "site-packages/" in file:
        return top
    if file.startswith(str(ROOT)):
        return f"app: {top}"
    return "python"


APP_CODE = ("app: pages", "app: ui", "app: attention_core")


def short_path(file: str) -> str:
    """A path from its package (site-packages), from the repository, or from the standard library."""
    if "site-packages/" in file:
        return file.split("site-packages/", 1)[1]
    if file.startswith(str(ROOT) + "/"):
        return file[len(str(ROOT)) + 1 :]
    if "/lib/python3." in file:
        return "stdlib/" + file.split("/lib/python3.", 1)[1].split("/", 1)[-1]
    return file


def profile_case(case: Case, reps: int, top: int, opener: Opener = open_case) -> list[str]:
    """cProfile inside the page script's thread around `reps` reruns: own time per library, the app's own
    functions by cumulative time, every function by own time (ms per rerun)."""
    at = opener(case)
    PROFILER["on"] = cProfile.Profile()
    try:
        for i in range(reps):
            at = case.act(at, i)
    finally:
        profiler = PROFILER.pop("on")
    entries = pstats.Stats(profiler).stats  # type: ignore[attr-defined]  # (file, line, name) → (cc, n, own, cum, …)
    total = sum(value[2] for value in entries.values())
    lines = [f"cProfile in the script's thread, {reps} reruns: {1000 * total / reps:.0f} ms a rerun under the profiler"]
    by_library: dict[str, float] = defaultdict(float)
    for (file, _, function), value in entries.items():
        by_library[library(file, function)] += value[2]
    lines.append(
        "  own time by library (ms per rerun): "
        + ", ".join(
            f"{name} {1000 * spent / reps:.1f}" for name, spent in sorted(by_library.items(), key=lambda item: -item[1])
        )
    )
    ours = sorted(
        ((key, value) for key, value in entries.items() if library(*key[::2]) in APP_CODE),
        key=lambda item: -item[1][3],
    )
    lines.append(
        "  the app's own functions (not this benchmark's timers), by cumulative time (ms per rerun, calls per rerun):"
    )
    for (file, line, function), (_, calls, _own, cumulative, _) in ours[:top]:
        lines.append(
            f"    {1000 * cumulative / reps:8.1f}  {calls / reps:6.0f}×  {function} ({short_path(file)}:{line})"
        )
    lines.append("  every function, by own time (ms per rerun, calls per rerun):")
    for (file, line, function), (_, calls, own, _cum, _) in sorted(entries.items(), key=lambda item: -item[1][2])[:top]:
        lines.append(f"    {1000 * own / reps:8.1f}  {calls / reps:6.0f}×  {function} ({short_path(file)}:{line})")
    return lines


# ---------------------------------------------------------------------------------------------------------------


def report_core(reps: int) -> None:
    import torch

    say(f"\n## 1. head_importance called directly (median of {reps} after a warm-up), target ≤ {CORE_TARGET_S:g} s")
    header = (
        f"{'model':<17} {'sentence':<21} {'tokens':>6} {'heads':>5} {'measure':<8} {'batched ms':>10} "
        f"{'verdict':<7} {'naive ms':>9} {'naive/batched':>13}"
    )
    say(header)
    say("-" * len(header))
    for r in core_rows(reps):
        verdict = "met" if r["batched"] <= 1000 * CORE_TARGET_S else "MISSED"
        say(
            f"{r['model']:<17} {r['size']:<21} {r['model tokens']:>6} {r['heads']:>5} {r['measure']:<8} "
            f"{r['batched']:>10.1f} {verdict:<7} {r['naive']:>9.1f} {r['naive'] / r['batched']:>12.1f}×"
        )
    say(
        f"tokens = what the model reads, [CLS] (and MiniLM's [SEP]) included; torch threads {torch.get_num_threads()}. "
        "batched = head_importance (every head alone, one batch of n_heads copies per layer from that layer's input "
        "up, scored); naive = one model.analyze(tokens, knock_out=[(layer, head)]) per head, unscored."
    )


def report_app(
    reps: int, profile: str, top: int, only: str, cases: list[Case] | None = None, opener: Opener = open_case
) -> None:
    """The table of reruns (and profiles) over `cases` (this benchmark's own by default), each page opened by
    `opener`: other benchmarks measure their cases with the same steps and columns."""
    say(f"\n## 2. One rerun after an interaction (AppTest, median of {reps} after a warm-up)")
    install_knock_out_timers()
    rows = []
    cases = [c for c in (cases or app_cases()) if only.lower() in f"{c.page} {c.interaction} {c.language}".lower()]
    for case in cases:
        print(f"  {case.page}: {case.interaction}, {case.language} …", file=sys.stderr, flush=True)
        rows.append((case, measure_case(case, reps, opener)))
    header = (
        f"{'page':<10} {'sentence':<16} {'interaction':<26} {'median ms':>9} {'best':>5} {'script':>6} "
        f"{'budget':>6} {'':<4} {'fragment':>8} {'':<4} "
        + " ".join(f"{s:>9}" for s in STEPS)
        + f" {'other':>6} {'charts':>6} {'JSON MB':>7}"
    )
    say(header)
    say("-" * len(header))
    for case, r in rows:
        budget, verdict, fragment, fragment_verdict = "–", "", "–", ""
        if case.budget_ms is not None:
            budget, verdict = f"{case.budget_ms:.0f}", "pass" if r["ms"] <= case.budget_ms else "OVER"
        if case.fragment:
            fragment = f"{r['fragment']:.0f}"
            if case.budget_ms is not None:
                fragment_verdict = "pass" if r["fragment"] <= case.budget_ms else "OVER"
        other = r["ms"] - sum(r["split"].values())
        say(
            f"{case.page:<10} {case.language:<16} {case.interaction:<26} {r['ms']:>9.0f} {r['best']:>5.0f} "
            f"{r['script']:>6.0f} {budget:>6} {verdict:<4} {fragment:>8} {fragment_verdict:<4} "
            + " ".join(f"{r['split'][s]:>9.0f}" for s in STEPS)
            + f" {other:>6.0f} {r['charts']:>6} {r['json_mb']:>7.2f}"
        )
    say(
        "median ms = one rerun as AppTest runs it, the whole page script (best: the fastest rerun). script = the "
        "median time of the script's run in its own thread, without AppTest's polling and its parsing of the "
        "elements afterwards. AppTest reruns the whole script for a widget inside an st.fragment, where a browser "
        "reruns only the fragment: fragment = the median time inside the fragment function a browser would rerun "
        "(knock_out, follow_a_word, follow_the_blank), with its own verdict against the same budget (Streamlit's "
        "cost of starting a fragment run is not in it); – = a full rerun in a browser too (typing a sentence). "
        "Split columns (ms, medians, the whole script) as in bench/interaction_speed.py: model (analyze, predict, "
        "head_view, compare_guesses, attention_shift, head_roles, head_importance), maths (story.attention, "
        "rollout), heatmap (heatmaps and head maps built), Plotly's figure check and to_json in st.plotly_chart, "
        "csv; other = Streamlit elements, LaTeX, AppTest."
    )
    notices = {n for _, r in rows for n in r["notices"]}
    if notices:
        say("Notices on the pages: " + " | ".join(sorted(notices)))
    chosen = [
        (case, r)
        for case, r in rows
        if profile == "all" or (profile == "over" and case.budget_ms is not None and r["ms"] > case.budget_ms)
    ]
    for case, _ in chosen:
        say(f"\n### Profile: {case.page}, {case.interaction}, {case.language}")
        for line in profile_case(case, reps, top, opener):
            say(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured reruns per app interaction (after a warm-up)")
    parser.add_argument("--core-reps", type=int, default=9, help="measured head_importance calls (after a warm-up)")
    parser.add_argument("--skip-core", action="store_true", help="skip part 1 (head_importance called directly)")
    parser.add_argument("--skip-app", action="store_true", help="skip part 2 (the app's reruns in AppTest)")
    parser.add_argument(
        "--profile",
        choices=["over", "all", "none"],
        default="over",
        help="cProfile the reruns of the cases over budget (over), of every case (all), or of none",
    )
    parser.add_argument(
        "--only", default="", help="app cases whose 'page interaction sentence' contains this text (default: all)"
    )
    parser.add_argument("--top", type=int, default=20, help="functions listed per profile table")
    parser.add_argument("--out", type=Path, help="also write the report to this file (nothing is written otherwise)")
    args = parser.parse_args()
    import torch

    say(
        f"# heads_apart_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch "
        f"threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )
    if not args.skip_core:
        report_core(args.core_reps)
    if not args.skip_app:
        report_app(args.reps, args.profile, args.top, args.only)
    say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
