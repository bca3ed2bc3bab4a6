"""What the layers make of the words, as figures: the words' similarities at one depth (a heatmap), and lines across
the depths (a pair of words, a pair of texts, a probe's accuracy), with the few numbers their captions read.

Pure functions (numbers → figure), built like heatmaps.py's figures (lean_figure). Depth 0 is the input V (word
embedding + positions), depth ℓ the output of layer ℓ (attention_core.readings.layers). A figure's words are written
in English and marked with N_; the app passes its translation (`translate`) for the depth names and axis titles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import torch
import torch.nn.functional as F

from attention_core.figures.heatmaps import (
    ARABIC_FONTS,
    DECIMAL_PX,
    NUMBER_PX,
    Translate,
    heatmap,
    lean_figure,
    untranslated,
)
from attention_core.figures.numbers import LEAST_DECIMALS, decimals, written
from attention_core.words import N_

INPUT = N_("input V")
LAYER = N_("layer {layer}")
LAYER_AXIS = N_("layer")
DASHED = N_("dashed: every head knocked out")
# Okabe & Ito's palette (colour-blind readers tell its colours apart); a line and its twin without attention share
# a colour and differ by their dash.
LINE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")


def depth_names(n_layers: int, translate: Translate = untranslated) -> list[str]:
    """["input V", "layer 1", …, "layer n_layers"], in the reader's language."""
    return [translate(INPUT)] + [translate(LAYER).format(layer=layer) for layer in range(1, n_layers + 1)]


HALF_PX = 340  # the width a heatmap's cells get in one of two columns on a 1280-px screen (measured in Chromium)


def word_map(similarity: torch.Tensor, labels: list[str], *, title: str = "", rtl: bool = False) -> go.Figure:
    """(n, n) cosines of a text's words at one depth: a heatmap on the fixed [-1, 1] scale, white at 0, drawn in one
    of two columns (its cells write their numbers only where they fit in that width)."""
    figure = heatmap(similarity, labels, labels, kind="cosine", title=title, rtl=rtl)
    cell_px = HALF_PX / max(1, len(labels))
    # One of two side by side: shrinks most on a projector (figures.heatmaps.enlarged reads "compact"), and its words
    # go below the map, clear of its title.
    figure.layout.meta = {**figure.layout.meta, "cell_px": cell_px, "compact": True}
    figure.layout.xaxis.side = "bottom"
    extra = decimals(similarity) - LEAST_DECIMALS
    if cell_px < NUMBER_PX + DECIMAL_PX * extra:
        figure.data[0].texttemplate, figure.data[0].textfont = None, None
    return figure


@dataclass(frozen=True)
class DepthLine:
    """One line across the depths: a pair's cosine, a probe's accuracy."""

    name: str  # its legend entry
    values: tuple[float, ...]  # one per depth: 0 the input V, ℓ the output of layer ℓ
    colour: int = 0  # index into LINE_COLOURS: a pair and its twin without attention share it
    dashed: bool = False  # a twin: the same pair with every head knocked out
    dotted: bool = False  # a baseline (a probe's commonest class): flat, thin, no markers


def depth_lines(
    lines: Sequence[DepthLine],
    depths: list[str],
    *,
    title: str = "",
    y_title: str = N_("cosine"),
    y_format: str = ".2f",
    height: int = 380,
) -> go.Figure:
    """One line per DepthLine over the depths, markers on each depth; hover names the line, the depth and the value.
    The x axis reads "input V, 1, 2, …" under the title "layer" (short enough for a phone). A dashed twin
    shares its line's colour and legend entry (the legend's title says what dashed means), so the legend lists each
    pair once. layout.meta keeps every line's numbers by name (for tests and the table below it)."""
    x = list(range(len(depths)))
    traces = [
        {
            "type": "scatter",
            "mode": "lines" if line.dotted else "lines+markers",
            "x": x,
            "y": [float(v) for v in line.values],
            "name": line.name,
            "legendgroup": f"line{line.colour}",
            "showlegend": not line.dashed,
            "customdata": depths,
            "line": {
                "color": LINE_COLOURS[line.colour % len(LINE_COLOURS)],
                "dash": "dot" if line.dotted else "dash" if line.dashed else "solid",
                "width": 2 if line.dashed or line.dotted else 3,
            },
            "marker": {"size": 6 if line.dashed else 8, "symbol": "circle-open" if line.dashed else "circle"},
            "hovertemplate": f"%{{customdata}}: %{{y:{y_format}}}<extra>%{{fullData.name}}</extra>",
        }
        for line in lines
    ]
    legend: dict[str, object] = {"orientation": "h", "yanchor": "top", "y": -0.3, "x": 0.0}
    if any(line.dashed for line in lines):
        legend["title"] = {"text": DASHED, "side": "top"}
    layout = {
        "meta": {"kind": "depth lines", "lines": {line.name: list(line.values) for line in lines}, "depths": depths},
        "title": {"text": title, "x": 0.0},
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
        "xaxis": {
            "tickmode": "array",
            "tickvals": x,
            "ticktext": depths[:1] + [str(depth) for depth in x[1:]],
            "tickfont": {"size": 13},
            "range": [-0.3, len(depths) - 0.7],
            "title": {"text": LAYER_AXIS},
        },
        "yaxis": {"title": {"text": y_title}, "tickformat": y_format, "tickfont": {"size": 13}},
        "legend": legend,
        "hovermode": "closest",
    }
    return lean_figure(traces, layout)


def lines_table(lines: Sequence[DepthLine], depths: list[str], spec: str = ".2f") -> pd.DataFrame:
    """The lines' numbers as a table, one row per line, one column per depth, written as the figure writes them:
    the figure's text alternative. spec: a number format (".2f"), or a percentage (".0%")."""
    write = (lambda v: f"{v:{spec}}") if spec.endswith("%") else (lambda v: written(v, spec))
    return pd.DataFrame(
        [[write(float(v)) for v in line.values] for line in lines],
        index=[line.name for line in lines],
        columns=depths,
    )


# The numbers the captions read, from the lines themselves.


def crossing(a: Sequence[float], b: Sequence[float]) -> int | None:
    """The last depth at which two lines swap order (the depth where the one below is first above, a tie before it
    not counting as a swap), or None when one never goes above the other."""
    last, sign = None, 0
    for depth, (x, y) in enumerate(zip(a, b, strict=True)):
        now = (x > y) - (x < y)
        if now and sign and now != sign:
            last = depth
        sign = now or sign
    return last


def nearest_per_depth(values: torch.Tensor) -> list[int]:
    """(m, depths) a text's cosine with m candidates at each depth → the candidate nearest at each depth."""
    return [int(i) for i in values.argmax(dim=0)]


def rank_at(values: torch.Tensor, candidate: int, depth: int) -> int:
    """The candidate's rank (1 = nearest) among all at one depth; ties go to the candidate."""
    return 1 + int((values[:, depth] > values[candidate, depth]).sum())


def mean_cosine_of_two(vectors: torch.Tensor) -> torch.Tensor:
    """(…, n, d) → (…) off_diagonal_mean(cosine_matrix(vectors)) without the (n, n) matrices: with u the unit rows,
    the sum over i ≠ j of u_i·u_j is |Σ u_i|² − Σ |u_i|² (a zero row counts zero, as in cosine_matrix)."""
    n = vectors.shape[-2]
    if n < 2:
        return vectors.new_zeros(vectors.shape[:-2])
    unit = F.normalize(vectors, dim=-1)
    total = unit.sum(dim=-2)
    return ((total * total).sum(dim=-1) - (unit * unit).sum(dim=(-1, -2))) / (n * (n - 1))


def off_diagonal_mean(similarity: torch.Tensor) -> torch.Tensor:
    """(…, n, n) → (…) the mean cosine of two different words (0 for a text of one word)."""
    n = similarity.shape[-1]
    if n < 2:
        return similarity.new_zeros(similarity.shape[:-2])
    mask = ~torch.eye(n, dtype=torch.bool)
    return similarity[..., mask].mean(dim=-1)


def extreme_pairs(similarity: torch.Tensor) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(n, n) → the (i, j) of the most and the least similar two different words (i < j), or None below 2 words."""
    n = similarity.shape[-1]
    if n < 2:
        return None
    # The first largest and smallest cell above the diagonal in row-major order, without listing the n² / 2 pairs
    # in Python (510 words: 130,000 pairs, 232–237 ms a rerun; bench/abstraction_speed.py).
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    most = int(similarity.masked_fill(~upper, float("-inf")).argmax())
    least = int(similarity.masked_fill(~upper, float("inf")).argmin())
    return divmod(most, n), divmod(least, n)
