"""The outline a lesson puts on one cell: on the right cell of a heatmap and of one panel of a grid, both ways round."""

from __future__ import annotations

import pytest
import torch

from attention_core.figures.heatmaps import heatmap, heatmap_grid
from attention_core.figures.marks import MARK_COLOUR, label_index, outline_cell

WORDS = ["[CLS]", "the", "cat", "saw", "the", "dog"]


def _outline(figure) -> tuple[float, float]:
    """The centre (x, y) of the figure's one outline, in axis coordinates (category k sits at k)."""
    (shape,) = figure.layout.shapes
    assert shape.line.color == MARK_COLOUR
    return (shape.x0 + shape.x1) / 2, (shape.y0 + shape.y1) / 2


def test_label_index_counts_repeats_and_the_unknown_mark() -> None:
    assert label_index(WORDS, "the") == 1 and label_index(WORDS, "the", nth=2) == 4
    assert label_index(["a", "بنورهم (?)"], "بنورهم") == 1
    assert label_index(WORDS, "bird") is None and label_index(WORDS, "the", nth=3) is None


@pytest.mark.parametrize("rtl", [False, True])
def test_a_heatmap_cell_is_outlined_on_its_row_and_column_words(rtl: bool) -> None:
    figure = heatmap(torch.rand(6, 6), WORDS, WORDS, kind="weights", rtl=rtl)
    marked = outline_cell(figure, 4, 2)
    x, y = _outline(marked)
    trace = marked.data[0]
    assert trace.x[int(x)] == "cat" and trace.y[int(y)].rstrip("\u200b") == "the"  # the second "the" (row 4)
    assert int(y) == 4
    assert not figure.layout.shapes  # the figure itself is left as it was


@pytest.mark.parametrize("rtl", [False, True])
def test_a_grid_cell_is_outlined_in_its_own_panel(rtl: bool) -> None:
    weights = torch.rand(2, 3, 6, 6)
    figure = heatmap_grid(weights, WORDS, row_names=["L1", "L2"], column_names=["H1", "H2", "H3"], rtl=rtl)
    x, y = _outline(outline_cell(figure, 3, 5, panel="L2 H3"))
    assert figure.layout.xaxis.categoryarray[int(x)] == "H3 · dog"
    assert figure.layout.yaxis.categoryarray[int(y)] == "L2 · saw"


def test_a_grid_with_a_difference_panel_outlines_the_right_trace() -> None:
    """The grid's signed panels are a second trace: a panel's origin is counted inside its own trace."""
    figure = heatmap_grid(
        torch.rand(1, 3, 6, 6), WORDS, row_names=[""], column_names=["raw", "head", "diff"], signed=frozenset({(0, 2)})
    )
    x, y = _outline(outline_cell(figure, 1, 2, panel="diff"))
    assert figure.layout.xaxis.categoryarray[int(x)] == "diff · cat"
    assert figure.layout.yaxis.categoryarray[int(y)] == "the"


def test_no_such_cell_or_panel_leaves_the_figure_alone() -> None:
    figure = heatmap(torch.rand(6, 6), WORDS, WORDS)
    assert outline_cell(figure, 6, 0) is figure
    grid = heatmap_grid(torch.rand(1, 1, 6, 6), WORDS, row_names=["L1"], column_names=["H1"])
    assert outline_cell(grid, 0, 0, panel="L9 H9") is grid
