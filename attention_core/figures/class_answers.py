"""The class's answers on the question's row: one bar per word, the share of the class that picked it, beside the
model's weight for it (an empty slot until the reveal): the live class's chart, on the teacher's projector and on
every student's phone. The same colours as the quiz's own bars (figures/guess.py).

A question asked with softmax off (Similarity's raw V·Vᵀ scores, a cosine) has a row of scores, not shares: 14.67
on the class's percent axis read 1467 %. Such a row stands on an axis of its own, on the other side, in plain
numbers; the two axes meet at 0. Where a phone thins the words' labels (figures/screen.fit_bars), the word the
student picked keeps its own (the layout's meta "keep")."""

from __future__ import annotations

import plotly.graph_objects as go

from attention_core.figures.guess import GUESS_COLOUR, ROW_COLOUR, bar_legend, word_axis
from attention_core.figures.heatmaps import ARABIC_FONTS, MatrixKind, lean_figure
from attention_core.words import N_

THE_CLASS, THE_MODEL = N_("the class"), N_("the model")
THE_MODEL_SCORES = N_("the model's score")  # a row of raw scores: not a share; its axis's numbers are blue too
SHOWN_WEIGHT = 0.05  # the model's weights written on their bars from this size up
SHOWN_SCORES = 3  # a row of raw scores: the largest three written on their bars (the rest are on the axis)
_CLASS_HOVER = "%{customdata[0]}: %{customdata[1]} (%{y:.0%})<extra>%{fullData.name}</extra>"
_MODEL_HOVER = "%{customdata}: %{y:.3f}<extra>%{fullData.name}</extra>"
_SCORE_HOVER = "%{customdata}: %{y:.2f}<extra>%{fullData.name}</extra>"


def class_bars(
    choices: list[str],
    counts: dict[str, int],
    model_row: list[float] | None,
    *,
    rtl: bool = False,
    large: bool = False,
    kind: MatrixKind = "weights",
    picked: int | None = None,
) -> go.Figure:
    """Bars in the sentence's order (right to left for an Arabic sentence): orange, the share of the class's answers
    on each word, its count written on it; blue, the model's weight for the word once revealed (model_row None: the
    slot stays empty, so the bars do not move at the reveal). large: a projector's numbers, 24 and 18 px (the
    figures' finishing step enlarges a bar chart's type but not the numbers on its bars). kind: the question's
    matrix kind (figures.heatmaps.MatrixKind); anything but "weights" (softmax rows) is a row of raw scores, drawn
    on a second y axis. picked: the place of the word this student picked, whose label a phone keeps."""
    count_px, weight_px = (24, 18) if large else (16, 13)
    raw = kind != "weights"
    total = sum(counts.get(word, 0) for word in choices)
    x = list(range(len(choices)))  # places, not words: a word typed twice is two bars
    picks = [counts.get(word, 0) for word in choices]
    shares = [n / total if total else 0.0 for n in picks]
    model: dict[str, object] = {
        "type": "bar",
        "name": THE_MODEL_SCORES if raw else THE_MODEL,
        "x": x,
        "y": model_row if model_row is not None else [None] * len(choices),
        "marker": {"color": ROW_COLOUR},
        # The weights that matter written on their bars: a row of "0.00" and "0.01" read as noise on a projector,
        # and ran into each other on a phone.
        "text": _written(model_row, raw) if model_row is not None else None,
        "textposition": "outside",
        "textfont": {"size": weight_px},
        "constraintext": "none",
        "hovertemplate": _SCORE_HOVER if raw else _MODEL_HOVER,
        "customdata": choices,
    }
    traces: list[dict[str, object]] = [
        {
            "type": "bar",
            "name": THE_CLASS,
            "x": x,
            "y": shares,
            "marker": {"color": GUESS_COLOUR},
            "text": [str(n) if n else "" for n in picks],
            "textposition": "outside",
            "textfont": {"size": count_px},
            "constraintext": "none",  # the count keeps its size above a narrow bar (Plotly shrank it to the bar)
            "hovertemplate": _CLASS_HOVER,
            "customdata": [[word, n] for word, n in zip(choices, picks, strict=True)],
        },
        model | ({"yaxis": "y2", "offsetgroup": "model"} if raw else {}),
    ]
    if raw:
        traces[0]["offsetgroup"] = "class"  # two axes: grouped side by side only with a group each
    top = max([*shares, *(model_row or [])] if not raw else shares, default=0.0)
    share_top = top * 1.5 if top > 0 else 1.0
    share_axis: dict[str, object] = {"range": [0, share_top], "side": "right" if rtl else "left", "tickformat": ".0%"}
    layout: dict[str, object] = {
        "meta": {"rows": [THE_CLASS, THE_MODEL], "cols": choices} | ({"keep": picked} if picked is not None else {}),
        "barmode": "group",
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": 240,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "legend": bar_legend(rtl, 1.2),
        "xaxis": word_axis(choices, rtl),
        "yaxis": share_axis,
    }
    if raw:
        layout["yaxis"], layout["yaxis2"] = _two_axes(share_axis, share_top, model_row or [], rtl)
    return lean_figure(traces, layout)


def _written(row: list[float], raw: bool) -> list[str]:
    """The numbers written on the model's bars: weights from SHOWN_WEIGHT up; of raw scores, the largest few."""
    if not raw:
        return [f"{w:.2f}" if w >= SHOWN_WEIGHT else "" for w in row]
    largest = sorted(range(len(row)), key=row.__getitem__, reverse=True)[:SHOWN_SCORES]
    return [f"{w:.2f}" if i in largest else "" for i, w in enumerate(row)]


def _two_axes(shares: dict[str, object], share_top: float, scores: list[float], rtl: bool) -> tuple[dict, dict]:
    """The class's percent axis and the scores' own axis (on the other side, its ticks blue as its bars), with 0 at
    the same height on both: the scores' range as they need it (room above for the numbers written on the bars),
    the shares' range stretched below 0 as far, only its shares from 0 up labelled."""
    low, high = min([*scores, 0.0]), max([*scores, 0.0])
    high = high * 1.5 if high > 0 else -low / 2 if low < 0 else 1.0
    low = low * 1.3
    zero = -low / (high - low)  # the height of 0, as a fraction of the plot's
    step = next(s for s in (0.05, 0.1, 0.2, 0.25, 0.5) if share_top / s <= 5)
    ticks = [round(k * step, 2) for k in range(int(share_top / step + 1e-9) + 1)]
    bottom = -zero / (1 - zero) * share_top
    share_axis = shares | {"range": [bottom, share_top], "tickmode": "array", "tickvals": ticks}
    score_axis = {
        "overlaying": "y",
        "side": "left" if rtl else "right",
        "range": [low, high],
        "tickmode": "auto",  # round numbers (plotly.js's default for an overlaying axis, "sync", wrote 5.87, 11.74)
        "showgrid": False,
        "zeroline": True,
        "tickfont": {"color": ROW_COLOUR},
    }
    return share_axis, score_axis
