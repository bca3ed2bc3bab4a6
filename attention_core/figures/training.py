"""A training run's numbers → Plotly line charts and a table: the loss, and held-out accuracy against baselines."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from attention_core.training.train import StepReport
from attention_core.words import N_

_SMOOTHING = 25  # steps in the moving average drawn over the noisy per-step loss (its legend name says 25)


def history_table(reports: list[StepReport] | tuple[StepReport, ...]) -> pd.DataFrame:
    """One row per step: loss, learning rate, speed, and the held-out scores on evaluation steps (else empty)."""
    rows = []
    for report in reports:
        row = {
            "step": report.step,
            "loss": report.loss,
            "learning_rate": report.lr,
            "words_per_s": report.tokens_per_s,
            "elapsed_s": report.elapsed_s,
        }
        if report.evaluation:
            row |= {f"held_out_{k}": report.evaluation[k] for k in ("top1", "top5", "bigram_top1", "unigram_top1")}
        rows.append(row)
    # A resumed run repeats its last step's report (the final evaluation): keep the later one.
    return pd.DataFrame(rows).drop_duplicates("step", keep="last").set_index("step") if rows else pd.DataFrame()


def loss_curve(table: pd.DataFrame, height: int = 300) -> go.Figure:
    """Per-step masked-word loss (thin) and its moving average (thick)."""
    figure = go.Figure()
    if not table.empty:
        figure.add_scatter(
            x=table.index,
            y=table["loss"],
            mode="lines",
            name=N_("loss per step"),
            line={"width": 1, "color": "rgba(31,119,180,0.35)"},
        )
        smooth = table["loss"].rolling(_SMOOTHING, min_periods=1).mean()
        figure.add_scatter(
            x=table.index,
            y=smooth,
            mode="lines",
            name=N_("average of 25 steps"),  # a literal: the catalog looks the name up as drawn
            line={"width": 3, "color": "rgb(31,119,180)"},
        )
    figure.update_layout(
        title={"text": N_("Training loss (cross-entropy at the masked words)"), "x": 0.0},
        xaxis_title=N_("step"),
        yaxis_title=N_("loss"),
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return figure


def accuracy_curve(table: pd.DataFrame, height: int = 300) -> go.Figure:
    """Held-out top-1 accuracy of the model, with the bigram and unigram counting baselines on the same masks."""
    figure = go.Figure()
    if "held_out_top1" in table:
        scored = table.dropna(subset=["held_out_top1"])
        lines = (
            ("held_out_top1", N_("model"), "rgb(31,119,180)", "solid"),
            ("held_out_bigram_top1", N_("word-pair counts (bigram)"), "rgb(214,39,40)", "dash"),
            ("held_out_unigram_top1", N_("most frequent word (unigram)"), "rgb(127,127,127)", "dot"),
        )
        for column, name, colour, dash in lines:
            figure.add_scatter(
                x=scored.index, y=scored[column], mode="lines+markers", name=name, line={"color": colour, "dash": dash}
            )
    top = max(0.5, float(table.filter(like="top1").max().max())) if "held_out_top1" in table else 0.5
    figure.update_layout(
        title={"text": N_("Held-out accuracy: the masked word guessed first time"), "x": 0.0},
        xaxis_title=N_("step"),
        yaxis={"title": N_("top-1"), "tickformat": ".0%", "range": [0, top]},
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return figure
