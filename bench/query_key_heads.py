"""Which head Multi-head's query–key map opens on (issue 23, point 7), and what that costs.

    .venv/bin/python -m bench.query_key_heads                                     # print the report
    .venv/bin/python -m bench.query_key_heads --out docs/runs/query_key_heads.txt   # also keep it

For each sentence (the pages' defaults, the lessons' and the issue's), with the words drawn as the heatmaps draw them
(whole words, [CLS]/[SEP] shown): layer 1, head 1 (where the pickers used to open) and the head teaching_head picks,
each with the words whose nearest key on its map is the key they attend to most (all drawn words, [CLS]/[SEP]
included), the words it explains (those that attend most to another word, not [CLS]/[SEP], whose key is the nearest)
and the share of the variance its plane keeps; and the head that the first count alone would pick, to show why it is
not the measure. Then teaching_head's time (median of --reps, one torch thread as the app runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

from attention_core.models.head_view import head_view
from attention_core.models.interface import Analysis, AttentionModel
from attention_core.models.pretrained import load_minilm
from attention_core.models.query_key_words import drawn_queries_keys, teaching_head
from attention_core.models.trained import load_model
from attention_core.story.query_key_map import explained_words, query_key_map
from attention_core.story.text import tokenize

SENTENCES = [
    ("en", "The cat is on the mat"),
    ("en", "The animal didn't cross the street because it was too tired"),
    ("en", "the quick brown fox jumps over the lazy dog"),
    ("ar", "ذَهَبَ الطالبُ إلى المدرسةِ"),
    ("ar", "ذلك الكتاب لا ريب فيه هدى للمتقين"),
    ("ar", "إن الله سميع عليم"),
]


def head_numbers(model: AttentionModel, analysis: Analysis, layer: int, head: int) -> tuple[int, int, int, float]:
    """(nearest = strongest, explained, drawn words, kept) of one head's map, as the page draws it."""
    tokens = [t for t, special in zip(analysis.tokens, analysis.special, strict=True) if not special]
    view = head_view(model, tokens, layer, head, inputs=analysis.inputs)
    drawn = drawn_queries_keys(view.V1, view.V2, view.weights, analysis)
    qk = query_key_map(drawn.V1, drawn.V2, drawn.weights)
    special = torch.tensor(drawn.special)
    explained = int(explained_words(torch.tensor(qk.strongest), torch.tensor(qk.nearest), special))
    return qk.nearest_is_strongest, explained, len(drawn.labels), qk.kept


def report(reps: int) -> list[str]:
    torch.set_num_threads(1)
    models = {"en": load_minilm(), "ar": load_model()}
    lines = [f"{'sentence':<62} {'head':<24} {'nearest=strongest':>17} {'explained':>9} {'kept':>6}"]
    timings = []
    for language, text in SENTENCES:
        model = models[language]
        analysis = model.analyze(tokenize(text))
        picked = teaching_head(model, analysis)
        timings.append(
            (text, statistics.median(_timed(lambda m=model, a=analysis: teaching_head(m, a)) for _ in range(reps)))
        )
        most_nearest = max(
            ((layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)),
            key=lambda lh, m=model, a=analysis: head_numbers(m, a, *lh)[0],
        )
        rows = [("L1 H1 (old)", (0, 0)), ("opened on", (picked.layer, picked.head))]
        rows.append(("max nearest", most_nearest))
        for name, (layer, head) in rows:
            nearest, explained, words, kept = head_numbers(model, analysis, layer, head)
            shown = f"{name} L{layer + 1} H{head + 1}"
            lines.append(
                f"{text[:60]:<62} {shown:<24} {nearest:>10} of {words:<3} {explained:>5} of {picked.words:<3}"
                f"{100 * kept:>4.0f} %"
            )
    lines.append("")
    lines.append(f"teaching_head, all heads of the sentence (median of {reps}, one thread):")
    lines += [f"  {ms:6.1f} ms  {text}" for text, ms in timings]
    return lines


def _timed(call: object) -> float:
    started = time.perf_counter()
    call()  # type: ignore[operator]
    return 1000 * (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="timed calls per sentence")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args()
    text = "\n".join(report(args.reps)) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(
            f"# query_key_heads — {time.strftime('%Y-%m-%d %H:%M')}, torch {torch.__version__}\n" + text
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
