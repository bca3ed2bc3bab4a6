"""Pointing at one cell of a heatmap: an outline that a class sees on a projector, without hovering.

Works on the figures of attention_core.figures.heatmaps without changing how they are built. Both lay their words out on
categorical axes, where category k sits at coordinate k, so a cell is the unit square around (column, row)
whatever the axis direction: a right-to-left figure's reversed x axis moves the square with its column.
- heatmap(): one trace; its x and y lists are the categories, in order.
- heatmap_grid(): one big matrix on one pair of axes; layout.meta names the panels ("L4 H2") and gives each
  panel's origin as [trace, first row, first column] inside that trace, and the axes' categoryarray is the order.
"""

from __future__ import annotations

import plotly.graph_objects as go

from attention_core.figures.heatmaps import UNKNOWN_MARK

MARK_COLOUR = "#f08c00"  # orange: stands out on the blue and on the red-blue scales
MARK_WIDTH = 4  # px: visible from the back of a classroom
GRID_MARK_WIDTH = 2  # px: a grid's cells are a few px wide, and a thicker line would hide the cell's colour


def label_index(labels: list[str], word: str, nth: int = 1) -> int | None:
    """Index of the nth label that is `word` (a word the model does not know counts with its (?) mark), or None."""
    hits = [i for i, label in enumerate(labels) if label.removesuffix(UNKNOWN_MARK) == word]
    return hits[nth - 1] if 0 < nth <= len(hits) else None


def cell_position(figure: go.Figure, row: int, column: int, panel: str = "") -> tuple[int, int] | None:
    """(x, y) axis coordinates of cell (row, column): of the heatmap, or of one panel of a grid (None when the
    grid has no such panel or the cell lies outside the matrix)."""
    meta = figure.layout.meta or {}
    n_rows, n_cols = len(meta.get("rows", [])), len(meta.get("cols", []))
    if not (0 <= row < n_rows and 0 <= column < n_cols):
        return None
    if "panels" not in meta:
        return column, row
    if panel not in meta["panels"]:
        return None
    trace, top, left = meta["origins"][meta["panels"].index(panel)]
    data = figure.data[trace]
    x = list(figure.layout.xaxis.categoryarray).index(data.x[left + column])
    y = list(figure.layout.yaxis.categoryarray).index(data.y[top + row])
    return x, y


def outline_cell(figure: go.Figure, row: int, column: int, panel: str = "") -> go.Figure:
    """A copy of `figure` with cell (row, column) outlined (in `panel` of a grid); the figure itself when there is
    no such cell."""
    position = cell_position(figure, row, column, panel)
    if position is None:
        return figure
    x, y = position
    width = GRID_MARK_WIDTH if "panels" in figure.layout.meta else MARK_WIDTH
    marked = go.Figure(figure)
    marked.add_shape(
        type="rect",
        xref="x",
        yref="y",
        x0=x - 0.5,
        x1=x + 0.5,
        y0=y - 0.5,
        y1=y + 0.5,
        line={"color": MARK_COLOUR, "width": width},
        fillcolor="rgba(0,0,0,0)",
    )
    return marked
