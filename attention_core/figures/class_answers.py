"""The class's answers on the question's row: one bar per word, the share of the class that picked it, beside the
model's weight for it (an empty slot until the reveal): the live class's chart, on the teacher's projector and on
every student's phone. The same colours as the quiz's own bars (figures/guess.py)."""

from __future__ import annotations

import plotly.graph_objects as go

from attention_core.figures.guess import GUESS_COLOUR, ROW_COLOUR, bar_legend, word_axis
from attention_core.figures.heatmaps import ARABIC_FONTS, lean_figure
from attention_core.words import N_

THE_CLASS, THE_MODEL = N_("the class"), N_("the model")
SHOWN_WEIGHT = 0.05  # the model's weights written on their bars from this size up
_CLASS_HOVER = "%{customdata[0]}: %{customdata[1]} (%{y:.0%})<extra>%{fullData.name}</extra>"
_MODEL_HOVER = "%{customdata}: %{y:.3f}<extra>%{fullData.name}</extra>"


def class_bars(
    choices: list[str],
    counts: dict[str, int],
    model_row: list[float] | None,
    *,
    rtl: bool = False,
    large: bool = False,
) -> go.Figure:
    """Bars in the sentence's order (right to left for an Arabic sentence): orange, the share of the class's answers
    on each word, its count written on it; blue, the model's weight for the word once revealed (model_row None: the
    slot stays empty, so the bars do not move at the reveal). large: a projector's numbers, 24 and 18 px (the
    figures' finishing step enlarges a bar chart's type but not the numbers on its bars)."""
    count_px, weight_px = (24, 18) if large else (16, 13)
    total = sum(counts.get(word, 0) for word in choices)
    x = list(range(len(choices)))  # places, not words: a word typed twice is two bars
    picked = [counts.get(word, 0) for word in choices]
    shares = [n / total if total else 0.0 for n in picked]
    traces: list[dict[str, object]] = [
        {
            "type": "bar",
            "name": THE_CLASS,
            "x": x,
            "y": shares,
            "marker": {"color": GUESS_COLOUR},
            "text": [str(n) if n else "" for n in picked],
            "textposition": "outside",
            "textfont": {"size": count_px},
            "constraintext": "none",  # the count keeps its size above a narrow bar (Plotly shrank it to the bar)
            "hovertemplate": _CLASS_HOVER,
            "customdata": [[word, n] for word, n in zip(choices, picked, strict=True)],
        },
        {
            "type": "bar",
            "name": THE_MODEL,
            "x": x,
            "y": model_row if model_row is not None else [None] * len(choices),
            "marker": {"color": ROW_COLOUR},
            # The weights that matter written on their bars: a row of "0.00" and "0.01" read as noise on a projector,
            # and ran into each other on a phone.
            "text": [f"{w:.2f}" if w >= SHOWN_WEIGHT else "" for w in model_row] if model_row is not None else None,
            "textposition": "outside",
            "textfont": {"size": weight_px},
            "constraintext": "none",
            "hovertemplate": _MODEL_HOVER,
            "customdata": choices,
        },
    ]
    top = max([*shares, *(model_row or []), 0.0])
    layout = {
        "meta": {"rows": [THE_CLASS, THE_MODEL], "cols": choices},
        "barmode": "group",
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": 240,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "legend": bar_legend(rtl, 1.2),
        "xaxis": word_axis(choices, rtl),
        "yaxis": {"range": [0, top * 1.5 if top > 0 else 1], "side": "right" if rtl else "left", "tickformat": ".0%"},
    }
    return lean_figure(traces, layout)
