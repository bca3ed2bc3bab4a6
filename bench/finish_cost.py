"""What finishing a figure for its screen costs (attention_core/figures/screen.finish), beside what building it costs.

    python -m bench.finish_cost [--repeats 200] > docs/runs/finish_cost.txt

For each figure the pages draw most (a sentence's heatmap at 13, 32 and 512 words, MiniLM's 6 × 13 grid of heads,
raw | head | difference, a row of bars), on a phone (390 px), a projector in presentation mode (1280 px) and a desktop
(1400 px): the median time to build the figure, and to finish it (the same figure built afresh each time: the step
edits it in place), in ms, and how many number overlays it added; for the projector, also what the pass it replaced
cost there (figures.heatmaps.enlarged, which copied the figure).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import plotly.graph_objects as go
import torch

from attention_core.figures.guess import guess_bars
from attention_core.figures.heatmaps import enlarged, heatmap, heatmap_grid
from attention_core.figures.screen import Screen, finish

SCREENS = {"phone": Screen(390, 844), "projector": Screen(1280, 720, presentation=True), "desktop": Screen()}


def _words(n: int) -> list[str]:
    return [f"word{i}" for i in range(n)]


def _attention(*shape: int) -> torch.Tensor:
    return torch.softmax(torch.randn(*shape, generator=torch.Generator().manual_seed(0)) * 2, -1)


def figures() -> dict[str, Callable[[], go.Figure]]:
    raw = _attention(13, 13)
    return {
        "heatmap 13 x 13": lambda: heatmap(_attention(13, 13), _words(13), _words(13), kind="weights"),
        "heatmap 32 x 32": lambda: heatmap(_attention(32, 32), _words(32), _words(32), kind="weights"),
        "heatmap 512 x 512": lambda: heatmap(_attention(512, 512), _words(512), _words(512), kind="weights"),
        "grid 6 x 13 panels, 13 words": lambda: heatmap_grid(
            _attention(6, 13, 13, 13), _words(13), row_names=[f"L{i}" for i in range(6)], column_names=_words(13)
        ),
        "raw | head | difference, 13 words": lambda: heatmap_grid(
            torch.stack([raw, raw.T, raw - raw.T])[None],
            _words(13),
            row_names=[""],
            column_names=["raw", "this head", "head - raw"],
            panel_height=380,
            signed=frozenset({(0, 2)}),
        ),
        "bars, 13 words": lambda: guess_bars(_attention(13), _words(13)),
    }


def median_ms(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def finish_median_ms(build: Callable[[], go.Figure], screen: Screen, repeats: int) -> tuple[float, go.Figure]:
    """The median time to finish a figure (each a new one, built beforehand: finish edits it), and the last."""
    times = []
    for figure in [build() for _ in range(repeats)]:
        start = time.perf_counter()
        finished = finish(figure, screen)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, finished


def enlarged_ms(build: Callable[[], go.Figure], repeats: int) -> float:
    """The median time of the projector pass that finish replaced (it copied the figure), on new figures."""
    times = []
    for figure in [build() for _ in range(repeats)]:
        start = time.perf_counter()
        enlarged(figure, 1.4)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timings per figure and screen (median reported)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"# finish() cost, median of {args.repeats}, ms; load average {os.getloadavg()[0]:.1f}")
    print(f"{'figure':36} {'screen':10} {'build':>7} {'finish':>7} {'overlays':>8} {'enlarged':>8}")
    for name, build in figures().items():
        repeats = args.repeats // 10 if "512" in name else args.repeats
        build_ms = median_ms(build, max(5, repeats // 4))
        for screen_name, screen in SCREENS.items():
            finish_ms, finished = finish_median_ms(build, screen, repeats)
            overlays = len(finished.data) - len(build().data)
            old = f"{enlarged_ms(build, repeats):8.3f}" if screen.presentation else ""
            print(f"{name:36} {screen_name:10} {build_ms:7.2f} {finish_ms:7.3f} {overlays:8d} {old}")


if __name__ == "__main__":
    main()
