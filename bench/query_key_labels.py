"""How many of the query–key map's word labels a reader sees, on a narrow screen (a phone) and a wide one, now that no
label may overlap another, cover a point or be cut (attention_core/figures/label_placement.py): every head of MiniLM
on three English sentences and of the shipped Arabic model on two, as the Multi-head page draws them (whole words,
[CLS] and [SEP] shown), W1 and W2 trained; and the figure's cost.

    .venv/bin/python -m bench.query_key_labels                                       # print the report
    .venv/bin/python -m bench.query_key_labels --out docs/runs/query_key_labels.txt  # also keep it
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from datetime import datetime
from pathlib import Path

from attention_core.figures.query_key_map import query_key_figure
from attention_core.models.head_view import head_view
from attention_core.models.pretrained import load_minilm
from attention_core.models.query_key_words import drawn_queries_keys
from attention_core.models.trained import load_model
from attention_core.story.query_key_map import query_key_map
from attention_core.story.text import tokenize

ROOT = Path(__file__).resolve().parents[1]

ENGLISH = (
    "The animal didn't cross the street because it was too tired",
    "the quick brown fox jumps over the lazy dog",
    "The cat is on the mat",
)
ARABIC = ("ذهب الله بنورهم ولهم اساور من ذهب", "إن الله سميع عليم")


def sentence_rows(model: object, sentence: str, rtl: bool) -> tuple[int, int, int, int, list[float]]:
    """Over every head: the maps, the labels, those left off on a narrow and on a wide screen, and each figure's
    build time in ms."""
    tokens = tokenize(sentence)
    analysis = model.analyze(tokens)  # type: ignore[attr-defined]
    maps = labels = narrow = wide = 0
    times = []
    for layer in range(model.n_layers):  # type: ignore[attr-defined]
        for head in range(model.n_heads):  # type: ignore[attr-defined]
            view = head_view(model, tokens, layer, head)  # type: ignore[arg-type]
            drawn = drawn_queries_keys(view.V1, view.V2, view.weights, analysis, whole_words=True, show_special=True)
            qk = query_key_map(drawn.V1, drawn.V2, drawn.weights)
            started = time.perf_counter()
            figure = query_key_figure(qk, list(drawn.labels), rtl=rtl)
            times.append(1000 * (time.perf_counter() - started))
            hidden = figure.layout.meta["hidden"]
            maps, labels = maps + 1, labels + 2 * len(drawn.labels)
            narrow, wide = narrow + hidden["narrow"], wide + hidden["wide"]
    return maps, labels, narrow, wide, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        f"# query_key_labels — {datetime.now():%Y-%m-%d %H:%M}, commit {commit.stdout.strip()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}",
        "",
        f"{'model':8} {'sentence':62} {'maps':>4} {'labels':>6} {'narrow: on hover':>17} {'wide: on hover':>15} "
        f"{'figure ms':>9}",
    ]
    totals = [0, 0, 0, 0]
    every: list[float] = []
    for name, model, sentences, rtl in (
        ("MiniLM", load_minilm(), ENGLISH, False),
        ("Arabic", load_model(), ARABIC, True),
    ):
        for sentence in sentences:
            maps, labels, narrow, wide, times = sentence_rows(model, sentence, rtl)
            totals = [t + v for t, v in zip(totals, (maps, labels, narrow, wide), strict=True)]
            every += times
            lines.append(
                f"{name:8} {sentence:62} {maps:4} {labels:6} {narrow:8} ({100 * narrow / labels:3.0f} %) "
                f"{wide:6} ({100 * wide / labels:3.0f} %) {statistics.median(times):9.1f}"
            )
    maps, labels, narrow, wide = totals
    lines += [
        f"{'all':8} {'':62} {maps:4} {labels:6} {narrow:8} ({100 * narrow / labels:3.0f} %) "
        f"{wide:6} ({100 * wide / labels:3.0f} %) {statistics.median(every):9.1f}",
        "",
        "labels = a query and a key label for each word; on hover = labels left off the map (the hover still names "
        "the point) on a narrow screen (a 390-px phone up to a chart 680 px wide, and a 1024-px projector in "
        "presentation mode) and on a wide one (a wider chart; a 1280-px projector); figure ms = the median time of "
        "query_key_figure (labels placed) per map.",
    ]
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
