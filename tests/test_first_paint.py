"""A phone's first heatmap as a picture (attention_core/figures/first_paint.py): the same cells, colours, numbers and
labels as the chart that replaces it. Colours are checked against Plotly's own colour-scale sampling."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import plotly.colors
import plotly.graph_objects as go
import pytest
import torch

from attention_core.figures.first_paint import static_svg
from attention_core.figures.heatmaps import dimension_labels, heatmap, heatmap_grid
from attention_core.figures.screen import Screen, finish

SVG = "{http://www.w3.org/2000/svg}"
PHONE = Screen(width=390, height=844)


def parsed(svg: str | None) -> ET.Element:
    assert svg is not None and svg.startswith("<svg")
    return ET.fromstring(svg)


def cells(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{SVG}rect") if not r.get("fill", "").startswith("url(")]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def plotly_colour(figure: go.Figure, value: float) -> tuple[float, ...]:
    """The oracle: Plotly's own sampling of the trace's colour scale at the value's place between zmin and zmax."""
    trace = figure.data[0]
    low, high = trace.zmin, trace.zmax
    sampled = plotly.colors.sample_colorscale([list(s) for s in trace.colorscale], [(value - low) / (high - low)])
    return plotly.colors.unlabel_rgb(sampled[0])


@pytest.mark.parametrize("kind", ["signed", "weights"])
def test_every_cell_is_drawn_in_plotlys_colour(kind: str) -> None:
    torch.manual_seed(0)
    values = torch.randn(5, 7) if kind == "signed" else torch.softmax(torch.randn(5, 7), -1)
    words = ["the", "cat", "sat", "on", "mats"]
    figure = finish(heatmap(values, words, [f"c{j}" for j in range(7)], kind=kind), PHONE)
    drawn = cells(parsed(static_svg(figure, 358)))
    assert len(drawn) == 35
    # Cells are drawn row by row, column by column: the first row of the matrix is the top row (reversed y axis).
    ys = sorted({float(r.get("y")) for r in drawn})
    xs = sorted({float(r.get("x")) for r in drawn})
    for rect in drawn:
        i, j = ys.index(float(rect.get("y"))), xs.index(float(rect.get("x")))
        expected = plotly_colour(figure, float(values[i, j]))
        assert hex_to_rgb(rect.get("fill")) == pytest.approx(expected, abs=1.0), (i, j)


def test_numbers_are_written_where_the_chart_writes_them_in_its_black_or_white() -> None:
    torch.manual_seed(1)
    weights = torch.softmax(torch.randn(6, 6) * 2, -1)
    words = list("abcdef")
    figure = finish(heatmap(weights, words, words, kind="weights"), PHONE)
    overlays = [t for t in figure.data if t.texttemplate]
    assert overlays, "the phone's 6 × 6 map writes its numbers"
    root = parsed(static_svg(figure, 358))
    written = {(t.text, t.get("fill")) for t in root.iter(f"{SVG}text") if t.text and t.text[0].isdigit()}
    expected = set()
    for overlay in overlays:
        for row in range(6):
            for column in range(6):
                value = overlay.z[row][column]
                if value == value:  # not NaN: this overlay writes this cell
                    expected.add((format(float(value), ".2f"), overlay.textfont.color))
    assert {text for text, _ in expected} <= {text for text, _ in written}
    assert expected <= written


def test_right_to_left_puts_the_first_word_on_the_right_and_the_labels_are_escaped() -> None:
    words = ["ذهب", "الولد", "<b>&"]
    figure = finish(heatmap(torch.eye(3), words, words, kind="weights", rtl=True), Screen(390, 844, right_to_left=True))
    svg = static_svg(figure, 358)
    root = parsed(svg)
    assert "<b>&" not in svg and "&lt;b&gt;&amp;" in svg
    columns = {t.text: float(t.get("x")) for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "middle"}
    assert columns["ذهب"] > columns["الولد"], "the first word's column is on the right"


def test_a_grids_panel_titles_and_a_vertical_or_flat_colour_bar() -> None:
    weights = torch.softmax(torch.randn(1, 3, 4, 4), -1)
    figure = finish(
        heatmap_grid(weights, list("abcd"), row_names=["L1"], column_names=["H1", "H2", "H3"], rtl=False), PHONE
    )
    root = parsed(static_svg(figure, 358))
    assert {"L1 H1", "H2", "H3"} <= set(texts(root)) | {t.replace("\u200b", "") for t in texts(root)}
    assert [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "url(#bar)"], "the colour bar"
    assert len(cells(root)) == 3 * 16


def test_a_wide_matrix_keeps_the_charts_thinned_labels_only() -> None:
    figure = finish(heatmap(torch.randn(4, 64), list("abcd"), dimension_labels(64), columns="dimensions"), PHONE)
    kept = list(figure.layout.xaxis.ticktext)
    assert 0 < len(kept) < 64
    drawn = set(texts(parsed(static_svg(figure, 358))))
    assert set(kept) <= drawn
    assert not {f"d{j}" for j in range(64)} - set(kept) & drawn


def test_a_figure_that_is_not_a_heatmap_gets_no_picture() -> None:
    assert static_svg(go.Figure(go.Bar(x=["a"], y=[1])), 358) is None
    assert static_svg(go.Figure(), 358) is None
