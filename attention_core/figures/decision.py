"""When did the model decide, and what mattered? The logit lens as a table of guesses per depth, and the blank's
attention beside the drop of its guess when each word is hidden (readings/logit_lens.py, readings/occlusion.py)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import torch

from attention_core.figures.heatmaps import (
    ARABIC_FONTS,
    BLUES,
    PLOT_PX,
    RED_BLUE,
    Translate,
    _categories,
    _short,
    lean_figure,
    untranslated,
)
from attention_core.figures.numbers import number_format, written_alone
from attention_core.readings.logit_lens import LogitLens
from attention_core.readings.occlusion import LookedAtAndMattered
from attention_core.words import N_

INPUT = N_("input")
LAYER = N_("layer {layer}")  # the rows of the lens, and of every per-layer view ("layer 2")
GUESS = "#{n}"  # the lens's columns: the first guess, the second, …
HIDDEN_WORD = N_("{word} (hidden)")  # its column for the hidden word
LOOKED_AT = {"mean": N_("looked at (attention, every head and layer)"), "rollout": N_("looked at (rollout)")}
MATTERED = N_("mattered (drop of {word} when hidden)")
LOOKED_AT_SHORT, MATTERED_SHORT = N_("looked at"), N_("mattered for {word}")  # the columns' headers


def lens_row_names(n_depths: int) -> list[str]:
    """The lens's rows in English, as tests and lessons name them: "input", "layer 1", … (depth 0 is the input,
    depth k what layer k gives)."""
    return [INPUT] + [LAYER.format(layer=depth) for depth in range(1, n_depths)]


def shown_lens_row_names(n_depths: int, translate: Translate = untranslated) -> list[str]:
    return [translate(INPUT)] + [translate(LAYER).format(layer=depth) for depth in range(1, n_depths)]


def lens_figure(lens: LogitLens, *, rtl: bool = False, translate: Translate = untranslated) -> go.Figure:
    """Rows: the depths (input, layer 1 … L); columns: the k likeliest words there, best first (#1, #2, …), and the
    hidden word when it is known (its rank, e.g. "#3,116", and its probability). Cells coloured by probability on
    [0, 1], each writing its word and probability (so no colour bar: the table fits a phone's width)."""
    n_depths, k = lens.top_probabilities.shape
    z = lens.top_probabilities.detach().double().numpy()
    text = [  # each probability with its own two significant digits: 0.0034 beside 0.96, never 0.00
        [f"{word}<br>{written_alone(float(p))}" for word, p in zip(words, row, strict=True)]
        for words, row in zip(lens.top_words, z, strict=True)
    ]
    columns = [GUESS.format(n=n) for n in range(1, k + 1)]
    shown_columns = list(columns)
    if lens.gold_rank is not None and lens.gold_probability is not None:
        gold = lens.gold_probability.detach().double().numpy()
        z = np.concatenate([z, gold[:, None]], axis=1)
        for row, rank, p in zip(text, lens.gold_rank, gold, strict=True):
            row.append(f"#{rank:,}<br>{written_alone(float(p))}")
        columns.append(HIDDEN_WORD.format(word=lens.gold))
        shown_columns.append(translate(HIDDEN_WORD).format(word=_short(lens.gold or "")))
    rows, shown_rows = lens_row_names(n_depths), shown_lens_row_names(n_depths, translate)
    # figures.enlarged (presentation mode) tests whether a cell's text fits as if it were one line; ours is two (the
    # word, then its probability), so the width it tests is scaled by how much longer the text is than its longest line.
    longest = max(len(cell) for row in text for cell in row)
    longest_line = max(len(line) for row in text for cell in row for line in cell.split("<br>"))
    cell_px = PLOT_PX["full"] / len(columns) * longest / longest_line
    x, y = _categories(shown_columns), _categories(shown_rows)
    trace = {
        "type": "heatmap",
        "z": z,
        "x": x,
        "y": y,
        "text": text,
        "texttemplate": "%{text}",
        "textfont": {"size": 13},
        "hovertemplate": "%{y} · %{x}: %{text}<extra></extra>",
        "colorscale": BLUES,
        "zmin": 0.0,
        "zmax": 1.0,
        "showscale": False,  # every cell writes its probability
    }
    layout = {
        "meta": {"rows": rows, "cols": columns, "kind": "weights", "cell_px": cell_px},
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": 110 + 52 * n_depths,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {
            "type": "category",
            "tickmode": "array",
            "tickvals": x,
            "ticktext": shown_columns,
            "side": "top",
            "autorange": "reversed" if rtl else True,
            "tickfont": {"size": 14},
        },
        "yaxis": {
            "type": "category",
            "tickmode": "array",
            "tickvals": y,
            "ticktext": shown_rows,
            "autorange": "reversed",
            "side": "right" if rtl else "left",
            "tickfont": {"size": 14},
        },
    }
    return lean_figure([trace], layout)


def _column(values: torch.Tensor, column: int, columns: list[str], colour: dict[str, object]) -> dict[str, object]:
    """Column `column` of the figure's cells down the words, each with its number. The trace spans every column (the
    others blank, NaN): a heatmap of one category beside another trace's is drawn out of its place."""
    z = np.full((len(values), len(columns)), np.nan)
    z[:, column] = values.detach().double().numpy()
    spec = number_format(z)
    return {
        "type": "heatmap",
        "z": z,
        "x": columns,
        "xgap": 6,  # a white seam between the columns: each has its own colour scale
        "texttemplate": f"%{{z:{spec}}}",
        "textfont": {"size": 13},
        "hovertemplate": f"%{{y}} · %{{x}}: %{{z:.{max(3, int(spec[1:-1]))}f}}<extra></extra>",
        "hoverongaps": False,
        "showscale": False,
        **colour,
    }


def looked_at_and_mattered(
    comparison: LookedAtAndMattered,
    labels: list[str],
    *,
    rtl: bool = False,
    translate: Translate = untranslated,
) -> go.Figure:
    """One row per word of the sentence, top to bottom, and side by side: what the blank looked at (its attention),
    and how far the first guess's probability drops when that word is hidden (blank at the blank); a third column
    for the hidden word's probability when it is known and not the first guess. Each column is a trace with its own
    colour scale (its darkest cell: its largest number) and writes its numbers, so no colour bar is needed; a column
    of words and two of numbers fit a phone's width at any sentence length."""
    found = comparison.occlusion
    if len(labels) != len(found.words):
        raise ValueError(f"{len(labels)} labels for {len(found.words)} words")
    words = _categories([_short(label) for label in labels])
    columns = [LOOKED_AT[comparison.how], MATTERED.format(word=found.guess)]
    shown = [translate(LOOKED_AT_SHORT), translate(MATTERED_SHORT).format(word=found.guess)]
    values = [comparison.attention, found.drop]
    if found.gold is not None and found.gold_drop is not None and found.gold != found.guess:
        columns.append(MATTERED.format(word=found.gold))
        shown.append(translate(MATTERED_SHORT).format(word=found.gold))
        values.append(found.gold_drop)
    traces = []
    for i, value in enumerate(values):
        if i == 0:
            colour: dict[str, object] = {"colorscale": BLUES, "zmin": 0.0, "zmax": max(1e-6, float(value.max()))}
        else:
            finite = value[torch.isfinite(value)]
            bound = max(1e-6, float(finite.abs().max())) if finite.numel() else 1.0
            colour = {"colorscale": RED_BLUE, "zmin": -bound, "zmax": bound}
        trace = _column(value, i, shown, colour)
        trace["y"] = words
        traces.append(trace)
    layout: dict[str, object] = {
        "meta": {"rows": list(labels), "cols": columns, "kind": "columns", "cell_px": PLOT_PX["full"] / len(shown)},
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": 90 + 30 * len(words),
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "xaxis": {
            "type": "category",
            "categoryorder": "array",
            "categoryarray": shown,
            "tickmode": "array",
            "tickvals": shown,
            "ticktext": shown,
            "side": "top",
            "autorange": "reversed" if rtl else True,  # right to left: the attention column on the right
            "tickfont": {"size": 14},
        },
        "yaxis": {
            "type": "category",
            "tickmode": "array",
            "tickvals": words,
            "ticktext": [_short(label) for label in labels],
            "autorange": "reversed",  # the first word on top
            "side": "right" if rtl else "left",
            "tickfont": {"size": 15},
        },
    }
    return lean_figure(traces, layout)
