"""Guess, then reveal: one attention row as bars, the student's guess beside it."""

from __future__ import annotations

import plotly.graph_objects as go
import torch

from attention_core.figures.heatmaps import ARABIC_FONTS, lean_figure
from attention_core.figures.marks import MARK_COLOUR
from attention_core.words import N_

ROW_COLOUR = "#0072B2"  # blue, as the weights' heatmaps
GUESS_COLOUR = "#E69F00"  # orange (Okabe & Ito): told apart from the blue by colour-blind readers too
YOUR_GUESS = N_("your guess")
# Each bar's word and value, and the trace's name (which the app translates as it draws the figure) beside them.
_HOVER = "%{customdata}: %{y:.3f}<extra>%{fullData.name}</extra>"


def guess_bars(
    row: torch.Tensor,
    labels: list[str],
    *,
    guess: torch.Tensor | None = None,
    picked: int | None = None,
    row_name: str = N_("the model"),
    rtl: bool = False,
) -> go.Figure:
    """Bars of the true row (one per word, in the sentence's order: right to left for an Arabic sentence), with the
    student's drawn shares as a second bar per word, or the picked word's bar outlined in orange."""
    if len(labels) != len(row):
        raise ValueError(f"{len(row)} weights for {len(labels)} labels")
    x = list(range(len(labels)))  # positions, not words: a word typed twice is two bars
    outline = [3 if i == picked else 0 for i in x]
    traces: list[dict[str, object]] = [
        {
            "type": "bar",
            "name": row_name,
            "x": x,
            "y": row.detach().double().tolist(),
            "marker": {"color": ROW_COLOUR, "line": {"color": MARK_COLOUR, "width": outline}},
            "texttemplate": "%{y:.2f}",
            "textposition": "outside",
            "hovertemplate": _HOVER,
            "customdata": labels,
        }
    ]
    if guess is not None:
        traces.append(
            {
                "type": "bar",
                "name": YOUR_GUESS,
                "x": x,
                "y": guess.detach().double().tolist(),
                "marker": {"color": GUESS_COLOUR},
                "texttemplate": "%{y:.2f}",
                "textposition": "outside",
                "hovertemplate": _HOVER,
                "customdata": labels,
            }
        )
    top = max([float(row.max())] + ([float(guess.max())] if guess is not None else []))
    layout = {
        "meta": {"rows": [row_name] + ([YOUR_GUESS] if guess is not None else []), "cols": labels},
        "barmode": "group",
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": 340,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "legend": bar_legend(rtl, 1.12),
        "xaxis": word_axis(labels, rtl),
        # Room above the tallest bar for its number; negative similarities (no softmax) go below 0.
        "yaxis": {
            "range": [min(0.0, float(row.min()) * 1.15), top * 1.18 if top > 0 else 1],
            "side": "right" if rtl else "left",
        },
    }
    return lean_figure(traces, layout)


def word_axis(labels: list[str], rtl: bool) -> dict[str, object]:
    """The x axis of bars over a sentence's words: one place per word (a word typed twice is two bars), read right
    to left for an Arabic sentence, the labels turned once there are more than ten."""
    return {
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "ticktext": labels,
        "autorange": "reversed" if rtl else True,
        "tickfont": {"size": 15},
        "tickangle": 0 if len(labels) <= 10 else -60,
    }


def bar_legend(rtl: bool, y: float) -> dict[str, object]:
    """A horizontal legend above the bars, from the side the sentence starts on."""
    return {"orientation": "h", "y": y, "x": 1 if rtl else 0, "xanchor": "right" if rtl else "left"}
