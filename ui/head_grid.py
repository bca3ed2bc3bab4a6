"""Every head's attention as one layers × heads grid of heatmaps (Multi-head attention, the Train page's probe): on a
phone, or where a layer's panels would thin their words, one layer at a time with its heads wrapped into rows."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
import torch

from attention_core.figures.heatmaps import heatmap_grid
from attention_core.figures.screen import labels_every_word, panels_across
from attention_core.head_names import head_column_name, layer_name
from attention_core.models.word_pieces import neighbour_blocks, pool_to_words
from ui.i18n import N_, _, shown_head_name
from ui.screen import current_screen
from ui.show import chart

# A grid of heads draws at most this many cells (MiniLM at 512 pieces would be 78 × 512² = 20 M); past it,
# neighbouring words are pooled, so a long text's grid stays a size a browser draws quickly (docs/speed.md).
GRID_CELLS = 800_000
ROW_LABEL_PX = 18  # a wrapped grid's row of words: a 9-px label's text box and the gap to the next


def head_grid(
    weights: torch.Tensor,
    labels: list[str],
    rtl: bool,
    key: str,
    average: bool = True,
    whole_on_desktop: bool = True,
) -> None:
    """Every head's attention as one layers × heads grid of heatmaps, each layer's average in the last column.
    A long sentence's grid pools k neighbouring words into one cell (rows averaged, columns summed), and says so."""
    n_layers, n_heads = weights.shape[:2]
    n_panels = n_layers * (n_heads + average)
    max_size = int((GRID_CELLS / n_panels) ** 0.5)
    if len(labels) > max_size:
        blocks = neighbour_blocks(labels, max_size)
        k = blocks.word_of.count(0)  # the words pooled into one cell (the first block is always full)
        weights, labels = pool_to_words(weights, blocks), list(blocks.words)
        st.caption(
            _(
                "A long text: in this grid each cell pools {k} neighbouring words (attention from them averaged, "
                "to them summed; rows still sum to 1). The head picked below shows every word."
            ).format(k=k)
        )
    panels = torch.cat([weights, weights.mean(1, keepdim=True)], dim=1) if average else weights
    columns = [head_column_name(head) for head in range(n_heads)] + ([N_("average")] if average else [])
    rows = [layer_name(layer) for layer in range(n_layers)]
    # Every word column keeps its label (issue 32): on a phone, and where a layer's panels do not fit side by side so
    # (a projector's 3-layer Arabic grid; the Train page's probe on any screen), one layer at a time, its heads
    # wrapped into rows. A desktop keeps the whole grid of a lesson's page (MiniLM's 78 panels thin their words; a
    # lesson points at any layer's head in it): `whole_on_desktop`.
    screen = current_screen()
    whole = None  # built once: the check below and the chart share it (MiniLM's grid is the costly one)
    wrap = screen.phone
    if not wrap and (screen.presentation or not whole_on_desktop):
        fits = panels_across(screen, len(labels)) >= len(columns)  # an estimate that errs wide: a cheap "no" first
        if fits:
            whole = heatmap_grid(panels, labels, row_names=rows, column_names=columns, rtl=rtl, translate=_)
        wrap = not fits or not labels_every_word(whole, screen)
    if wrap:
        layer = _layer_picked(n_layers, key)
        start = max(1, min(len(columns), panels_across(screen, len(labels))))
        for across in range(start, 0, -1):  # the most panels a row that keep every word's label; one at least
            figure = _one_layer(panels, labels, columns, rtl, layer, across)
            if labels_every_word(figure, screen):
                break
        chart(figure, key)
        return
    if whole is None:
        whole = heatmap_grid(panels, labels, row_names=rows, column_names=columns, rtl=rtl, translate=_)
    chart(whole, key)


def _layer_picked(n_layers: int, key: str) -> int:
    """The layer a wrapped grid shows, from a picker above it (none for a one-layer model)."""
    if n_layers == 1:
        return 0
    names = [layer_name(layer) for layer in range(n_layers)]
    picked = st.segmented_control(
        _("Layer"), names, format_func=shown_head_name, default=names[0], key=f"{key}_layer", required=True
    )
    return names.index(picked or names[0])


def _one_layer(
    panels: torch.Tensor, labels: list[str], columns: list[str], rtl: bool, layer: int, across: int
) -> go.Figure:
    """One layer's heads wrapped into rows of `across` panels, each panel titled with its own name ("L2 H5"), each
    row of words a label's height at least (a phone's smallest type, figures.screen.LABEL_FLOOR_PX)."""
    count, n = panels.shape[1], panels.shape[2]
    n_rows = -(-count // across)
    wrapped = torch.full((n_rows * across, n, n), float("nan"))
    wrapped[:count] = panels[layer]
    titles = [f"{layer_name(layer)} {name}" if name.startswith("H") else name for name in columns] + [""] * (
        n_rows * across - count
    )
    # Rows and columns of the wrapped grid are told apart by invisible marks (the hover names the words).
    return heatmap_grid(
        wrapped.reshape(n_rows, across, n, n),
        labels,
        row_names=[layer_name(layer) + "\u200b" * r for r in range(n_rows)],
        column_names=["\u200b" * (c + 1) for c in range(across)],
        rtl=rtl,
        panel_height=max(110, ROW_LABEL_PX * n + 30),
        translate=_,
        panel_names=[titles[r * across : (r + 1) * across] for r in range(n_rows)],
    )
