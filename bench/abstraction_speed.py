"""Abstraction (issue 24, point 6): the word view, a sentence set and the looked-at/mattered strip, and the
Abstraction page's reruns.

    .venv/bin/python -m bench.abstraction_speed --out docs/runs/abstraction_speed.txt   # both parts (a few minutes)
    .venv/bin/python -m bench.abstraction_speed --skip-page --reps 5                  # the core only

Every model call runs on one torch thread, as the server's page runs compute (ui.server.one_torch_thread).

1. Core, called directly (median of --reps calls after a warm-up), for MiniLM and the shipped Arabic model:
   - the word view: layer_similarity(model, text) raw and centred, at 32 and 512 typed words (English words from
     bench/english_speed.py's filler; Qurʾān āyāt joined; MiniLM reads the words that fit in its 512 pieces, the
     Arabic model its max_words); and what the page computes for a new sentence: layer_states with every head and
     with every head knocked out, then the cosines of both at every depth (raw and centred) and the raw ones again
     for its caption. Target ≤ 50 ms at 32 words, ≤ 300 ms at 512.
   - where the word view's time goes at 512 words (MiniLM): reading the text (tokenizer, word pieces), the layers,
     the input V, the cosines, the page's steps that grow with the square of the words (figures/layers.py), and three
     candidate fixes, measured in this process only (no file of the app is changed) and checked against what they
     replace;
   - a sentence set of 6 pairs (the first 6 paraphrase pairs of the model's language): sentence_similarity for each,
     with every head, and the same with every head knocked out as well (the page draws both). Target ≤ 1 s.
   - the looked-at/mattered strip at 32 words (attention_core/readings/occlusion.py; the Arabic model, its sixth
     word a [MASK]): occlusion (each other word hidden in turn, one batch) and compare with the page's analysis.
     Target ≤ 300 ms. Skipped, with a note, when occlusion.py is absent.
2. The page (Streamlit AppTest, as bench/heads_apart_speed.py measures pages): the rerun after typing a new sentence
   of 32 and 512 words (a sentence never read before on each rerun, so that the page's cache of layer states does
   not answer), and after moving the depth slider (inside the `words` fragment, which a browser reruns alone: the
   "fragment" column); as committed, then with two of the candidate fixes patched in (this process only). Skipped
   when pages/abstraction.py is absent.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.app_server import git_state
from bench.english_speed import FILLER
from bench.heads_apart_speed import (
    REPORT,
    _fragment_spent,
    _script_spent,
    median_ms,
    say,
    time_fragments,
    watch_script_runs,
)
from bench.interaction_speed import quran_sentence, with_blank

ROOT = Path(__file__).resolve().parents[1]

APP = str(ROOT / "app.py")
OCCLUSION = ROOT / "attention_core" / "readings" / "occlusion.py"
PAGE = ROOT / "pages" / "abstraction.py"
WORD_VIEW_MS = {32: 50.0, 512: 300.0}
SET_MS, STRIP_MS = 1000.0, 300.0


def english_words(n: int, offset: int = 0) -> str:
    """n English words of the filler text, from word `offset` on, cycling."""
    return " ".join(FILLER[(offset + i) % len(FILLER)] for i in range(n))


def sentence(language: str, n: int, variant: int = 0) -> str:
    """A text of n typed words; variants differ from their first word on (a new sentence for the page's cache)."""
    return english_words(n, variant) if language == "english" else quran_sentence(n, skip_lines=variant)


def verdict(ms: float, target: float | None) -> str:
    return "" if target is None else ("pass" if ms <= target else "FAIL")


# ---------------------------------------------------------------------------------------------------------------
# 1. Core


def models() -> list[tuple[str, str, Any]]:
    from attention_core.models.pretrained import load_minilm
    from attention_core.models.trained import load_model

    return [("MiniLM-L6", "english", load_minilm()), ("Arabic (shipped)", "arabic", load_model())]


def page_word_view(model: Any, text: str) -> object:
    """What the page's words view computes for a sentence it has not read: ui/abstraction/view.show_words."""
    from attention_core.readings.layers import cosine_matrix, layer_states

    every = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    states, bare = layer_states(model, text), layer_states(model, text, knock_out=every)
    return (
        cosine_matrix(states.states, centred=True),
        cosine_matrix(bare.states, centred=True),
        cosine_matrix(states.states),
    )


def word_view_rows(reps: int) -> list[tuple[str, str, str, float, float | None]]:
    from attention_core import layer_similarity
    from attention_core.story.text import tokenize

    rows = []
    for name, language, model in models():
        for n in (32, 512):
            text = sentence(language, n)
            read = model.words_read(tokenize(text))
            size = f"{n} words ({read} read)"
            for what, call in (
                ("layer_similarity, raw", lambda m=model, t=text: layer_similarity(m, t)),
                ("layer_similarity, centred", lambda m=model, t=text: layer_similarity(m, t, centred=True)),
                ("the page's word view, new sentence", lambda m=model, t=text: page_word_view(m, t)),
            ):
                print(f"  {name} {size} {what} …", file=sys.stderr, flush=True)
                rows.append((name, size, what, median_ms(call, reps), WORD_VIEW_MS[n]))
    return rows


def split_512(reps: int) -> list[tuple[str, float]]:
    """MiniLM at 512 words: layer_states step by step (as readings/layers.py calls them), the cosines, and the steps
    of the page's word view (ui/abstraction/view.show_words) that grow with the square of the words."""
    from attention_core.figures.layers import extreme_pairs, off_diagonal_mean
    from attention_core.models.knock_out import head_masks
    from attention_core.models.pretrained import load_minilm
    from attention_core.readings.layers import cosine_matrix, layer_states
    from attention_core.story.text import tokenize

    model, text = load_minilm(), sentence("english", 512)
    tokens = tokenize(text)
    tokens = tokens[: model.words_read(tokens)]
    x = model.first_input(tokens)
    states = layer_states(model, text).states
    every = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]

    def layers() -> None:
        h = x
        for layer, removed in enumerate(head_masks((), model.n_layers, model.n_heads)):
            h = model.run_layer(layer, h, removed)

    steps: list[tuple[str, Callable[[], object]]] = [
        ("tokenize(text)", lambda: tokenize(text)),
        ("model.words_read (the tokenizer's reading)", lambda: model.words_read(tokens)),
        ("model.word_pieces (reading again)", lambda: model.word_pieces(tokens)),
        ("model.first_input (reading again, embeddings)", lambda: model.first_input(tokens)),
        ("the 6 layers (run_layer × 6)", layers),
        ("model.sentence (the input V: reading twice more)", lambda: model.sentence(tokens)),
        ("layer_states, all of the above in one", lambda: layer_states(model, text)),
        ("layer_states, every head knocked out", lambda: layer_states(model, text, knock_out=every)),
        ("cosine_matrix raw, 7 depths", lambda: cosine_matrix(states)),
        ("cosine_matrix centred, 7 depths", lambda: cosine_matrix(states, centred=True)),
        ("cosine_matrix raw, one depth", lambda: cosine_matrix(states[-1])),
        ("page: extreme_pairs at one depth (figures/layers.py)", lambda: extreme_pairs(cosine_matrix(states[-1]))),
        ("page: off_diagonal_mean(cosine_matrix), 7 depths", lambda: off_diagonal_mean(cosine_matrix(states))),
    ]
    rows = [(what, median_ms(call, reps)) for what, call in steps]
    similarity = cosine_matrix(states[-1])
    assert extreme_pairs_by_argmax(similarity) == extreme_pairs(similarity), "the candidate names other words"
    torch_close(mean_cosine_of_two(states), off_diagonal_mean(cosine_matrix(states)))
    computed = layer_states_every_head_out(model, text)
    with attention_skipped_when_every_head_is_out():
        torch_close(layer_states_every_head_out(model, text), computed)
        rows.append(
            (
                "candidate: every head out, the attention not computed",
                median_ms(lambda: layer_states(model, text, knock_out=every), reps),
            )
        )
    rows.append(
        (
            "candidate: extreme pairs by argmax of the masked matrix",
            median_ms(lambda: extreme_pairs_by_argmax(similarity), reps),
        )
    )
    rows.append(
        (
            "candidate: mean cosine of two words from the unit vectors' sum",
            median_ms(lambda: mean_cosine_of_two(states), reps),
        )
    )
    return rows


# Candidate fixes, measured here only (no file of the app is changed; the report proposes them as diffs).


def extreme_pairs_by_argmax(similarity: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """figures/layers.extreme_pairs without listing the n² / 2 pairs in Python: the first largest and smallest cell
    above the diagonal, in the same row-major order."""
    import torch

    n = similarity.shape[-1]
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    most = int(similarity.masked_fill(~upper, float("-inf")).argmax())
    least = int(similarity.masked_fill(~upper, float("inf")).argmin())
    return divmod(most, n), divmod(least, n)


def mean_cosine_of_two(states: Any) -> Any:
    """(…, n, d) → (…) the mean cosine of two different words without the (n, n) matrix: with u the unit rows,
    Σ_{i≠j} u_i·u_j = |Σ u_i|² − Σ |u_i|² (a zero row stays zero, as in cosine_matrix)."""
    import torch.nn.functional as F

    unit = F.normalize(states, dim=-1)
    n = unit.shape[-2]
    total = unit.sum(dim=-2)
    return ((total * total).sum(-1) - (unit * unit).sum(dim=(-1, -2))) / (n * (n - 1))


def torch_close(a: Any, b: Any) -> None:
    import torch

    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


def layer_states_every_head_out(model: Any, text: str) -> Any:
    from attention_core.readings.layers import layer_states

    every = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    return layer_states(model, text, knock_out=every).states


@contextlib.contextmanager
def attention_skipped_when_every_head_is_out() -> Iterator[None]:
    """In this process only: a layer whose every head is knocked out (zeros) returns the output projection's bias
    without computing W1, W2, W3 and the attention, whose result `out` would multiply by zero."""
    import torch

    from attention_core.models import multihead

    real = multihead.MultiHeadAttention.forward

    def forward(module: Any, x: Any, *args: Any, knock_out: Any = None, ablation: str = "zero", **kw: Any) -> Any:
        if knock_out is not None and ablation == "zero" and bool(knock_out.all()) and not kw.get("need_weights", True):
            bias = module.out.bias
            return (bias.expand_as(x) if bias is not None else torch.zeros_like(x)), None
        return real(module, x, *args, knock_out=knock_out, ablation=ablation, **kw)

    multihead.MultiHeadAttention.forward = forward  # type: ignore[method-assign]
    try:
        yield
    finally:
        multihead.MultiHeadAttention.forward = real  # type: ignore[method-assign]


def set_rows(reps: int) -> list[tuple[str, str, str, float, float | None]]:
    from attention_core import sentence_similarity
    from attention_core.readings.sets import sentence_sets

    rows = []
    for name, language, model in models():
        pairs = sentence_sets(language).paraphrases[:6]
        every = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]

        def full(m: Any = model, p: tuple = pairs) -> None:
            for a, b in p:
                sentence_similarity(m, a, b)

        def both(m: Any = model, p: tuple = pairs, e: list = every) -> None:
            for a, b in p:
                sentence_similarity(m, a, b)
                sentence_similarity(m, a, b, knock_out=e)

        rows.append((name, "6 paraphrase pairs", "sentence_similarity × 6", median_ms(full, reps), SET_MS))
        rows.append((name, "6 paraphrase pairs", "× 6 full + × 6 every head out", median_ms(both, reps), SET_MS))
    return rows


def strip_rows(reps: int) -> list[tuple[str, str, str, float, float | None]] | str:
    if not OCCLUSION.is_file():
        return f"skipped: {OCCLUSION.relative_to(ROOT)} is absent"
    from attention_core.models.trained import load_model
    from attention_core.readings.occlusion import compare, occlusion
    from attention_core.story.text import tokenize

    model = load_model()
    typed = quran_sentence(32)
    tokens = tokenize(with_blank(typed))
    gold = typed.split()[5]
    analysis = model.analyze(tokens)
    found = occlusion(model, tokens, gold=gold)
    size = f"32 words, [MASK] 6th ({len(found.words)} read)"
    return [
        (
            "Arabic (shipped)",
            size,
            "occlusion (31 words hidden in turn)",
            median_ms(lambda: occlusion(model, tokens, gold=gold), reps),
            STRIP_MS,
        ),
        (
            "Arabic (shipped)",
            size,
            "compare (the blank's attention row)",
            median_ms(lambda: compare(analysis, found), reps),
            None,
        ),
        (
            "Arabic (shipped)",
            size,
            "the strip: occlusion + compare",
            median_ms(lambda: compare(analysis, occlusion(model, tokens, gold=gold)), reps),
            STRIP_MS,
        ),
    ]


# ---------------------------------------------------------------------------------------------------------------
# 2. The page


def typing(language: str, n: int, first: int) -> Callable[[Any, int], Any]:
    """Typing sentence variant first + i: a sentence the page has not read yet, on every rerun."""
    return lambda at, i: at.text_input(key="abstraction_sentence").set_value(sentence(language, n, first + i)).run()


def moving_depth(at: Any, i: int) -> Any:
    slider = at.slider(key="abstraction_depth")
    return slider.set_value(slider.max if i % 2 else 1).run()


def rerun_times(at: Any, act: Callable[[Any, int], Any], reps: int) -> tuple[Any, dict[str, float]]:
    """Median ms of `reps` reruns after one warm-up: AppTest's wall time, the script's run, the `words` fragment."""
    at = act(at, 0)  # warm-up
    times: dict[str, list[float]] = {"apptest": [], "script": [], "fragment": []}
    for i in range(1, reps + 1):
        _script_spent.clear()
        _fragment_spent.clear()
        started = time.perf_counter()
        at = act(at, i)
        times["apptest"].append(time.perf_counter() - started)
        times["script"].append(sum(_script_spent))
        times["fragment"].append(_fragment_spent["words"])
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return at, {name: 1000 * statistics.median(values) for name, values in times.items()}


@contextlib.contextmanager
def candidates_patched_in() -> Iterator[None]:
    """Two of the candidate fixes in the page's modules (this process only): extreme pairs by argmax, and no
    attention computed in a layer whose every head is out."""
    from unittest import mock

    import ui.abstraction.view

    with (
        mock.patch.object(ui.abstraction.view, "extreme_pairs", extreme_pairs_by_argmax),
        attention_skipped_when_every_head_is_out(),
    ):
        yield


def page_rows(reps: int) -> list[dict] | str:
    """Each sentence length and language: the page as committed, then with the candidates patched in (each typing
    rerun a sentence never read before, in either)."""
    if not PAGE.is_file():
        return f"skipped: {PAGE.relative_to(ROOT)} is absent"
    from streamlit.testing.v1 import AppTest

    watch_script_runs()
    time_fragments()
    rows = []
    first = iter(range(1, 10_000, reps + 2))  # each measurement's own run of new sentences
    for language in ("arabic", "english"):
        for n in (32, 512):
            for code, context in (("as committed", contextlib.nullcontext), ("candidates", candidates_patched_in)):
                with context():
                    at = AppTest.from_file(APP, default_timeout=600).run()
                    at = at.switch_page("pages/abstraction.py").run()
                    start = next(first)
                    at = at.text_input(key="abstraction_sentence").set_value(sentence(language, n, start)).run()
                    for interaction, act in (
                        ("type a new sentence", typing(language, n, start + 1)),
                        ("move the depth", moving_depth),
                    ):
                        print(f"  page ({code}): {language} {n} words, {interaction} …", file=sys.stderr, flush=True)
                        at, ms = rerun_times(at, act, reps)
                        rows.append(
                            {
                                "sentence": f"{language} {n} words",
                                "code": code,
                                "interaction": interaction,
                                **ms,
                                "budget": WORD_VIEW_MS[n],
                            }
                        )
    return rows


# ---------------------------------------------------------------------------------------------------------------


def table(rows: list[tuple[str, str, str, float, float | None]]) -> None:
    say(f"{'model':<18} {'text':<30} {'what':<44} {'median ms':>10} {'target':>7}")
    for name, size, what, ms, target in rows:
        say(f"{name:<18} {size:<30} {what:<44} {ms:>10.1f} {target or '':>7} {verdict(ms, target)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9, help="measured calls or reruns per row (after a warm-up)")
    parser.add_argument("--skip-page", action="store_true", help="measure the core only, not the page's reruns")
    parser.add_argument("--out", type=Path, help="also write the report to this file (nothing is written otherwise)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # as the server's page runs compute (ui.server.one_torch_thread)
    say(
        f"# abstraction_speed — {time.strftime('%Y-%m-%d %H:%M')}, {git_state()}, {os.cpu_count()} CPUs, torch "
        f"threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"
    )
    say(f"\n## 1a. The word view, called directly (median of {args.reps} after a warm-up)")
    table(word_view_rows(args.reps))
    say(f"\n## 1b. Where the word view's time goes: MiniLM, 512 words (median of {args.reps})")
    for what, ms in split_512(args.reps):
        say(f"{what:<60} {ms:>9.1f} ms")
    say(f"\n## 1c. A sentence set of 6 pairs (median of {args.reps})")
    table(set_rows(args.reps))
    say(f"\n## 1d. The looked-at/mattered strip at 32 words (median of {args.reps})")
    strip = strip_rows(args.reps)
    say(strip) if isinstance(strip, str) else table(strip)
    if not args.skip_page:
        say(f"\n## 2. The Abstraction page's reruns (AppTest, median of {args.reps} after a warm-up, ms)")
        page = page_rows(args.reps)
        if isinstance(page, str):
            say(page)
        else:
            say(
                f"{'sentence':<18} {'code':<13} {'interaction':<20} {'AppTest':>8} {'script':>8} {'fragment':>9} "
                f"{'budget':>7}"
            )
            for r in page:
                say(
                    f"{r['sentence']:<18} {r['code']:<13} {r['interaction']:<20} {r['apptest']:>8.0f} "
                    f"{r['script']:>8.0f} {r['fragment']:>9.0f} {r['budget']:>7.0f}"
                )
            say(
                "fragment = the time inside the page's `words` fragment (what a browser reruns alone when the depth "
                "moves); a new sentence reruns the whole page. candidates = extreme pairs by argmax and no attention "
                "computed in a layer whose every head is out, patched in for these rows only (section 1b)."
            )
    say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if args.out:
        args.out.write_text("\n".join(REPORT) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
