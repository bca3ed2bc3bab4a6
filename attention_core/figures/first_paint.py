"""A finished heatmap figure as a plain SVG picture: what a slow phone paints first, before Plotly's code has loaded.

On a phone at a quarter of a laptop's speed, Plotly alone keeps a page's first heatmap off the screen for 3–4 s:
its 4.7 MB of code is evaluated before anything is drawn (bench/phone_floor.py: a page with one Plotly heatmap
5.4–5.8 s, the same page with this picture 1.5 s). So a phone's first view of a page shows its first heatmap as this
picture, and the interactive chart replaces it on the page's next run (ui/progressive.py).

The picture is drawn from the figure `finish` made for the screen (figures/screen.py), so it shows what the chart
will show: the same cells in the same colours (figures/contrast.py maps values to colours as Plotly does), the
numbers written where the chart writes them and in its black or white, the tick labels it keeps and turns, the
panel titles and the colour bar. A figure of another kind (bars, lines, several axes) gets None: the chart itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from xml.sax.saxutils import escape

import numpy as np
import plotly.graph_objects as go

from attention_core.figures.contrast import cell_colours, colour_mapping
from attention_core.figures.label_placement import BOX_EMS, text_width

Props = dict
Place = Callable[[float], float]  # a column's or row's index (or a place between) to its centre in px
_NUMBER = re.compile(r"%\{z:(\.\d+[fe%])\}")  # the cell templates the figures write ("%{z:.2f}")
_BAR_PX = 12.0  # a colour bar's thickness
_PAD = 6.0  # between labels and the cells


def _rgb(colour: np.ndarray) -> str:
    r, g, b = (round(float(c)) for c in colour)
    return f"#{r:02x}{g:02x}{b:02x}"


def _categories(axis: Props, traces: list[Props], name: str) -> list[str]:
    order = axis.get("categoryarray")
    if order is not None:
        return [str(v) for v in order]
    seen: dict[str, None] = {}
    for trace in traces:
        for value in trace.get(name) or ():
            seen.setdefault(str(value), None)
    return list(seen)


def _text(x: float, y: float, text: str, size: float, *, anchor: str = "middle", colour: str = "#262730",
          weight: str = "normal", turn: float = 0.0, baseline: str = "central") -> str:  # fmt: skip
    rotate = f' transform="rotate({turn:g} {x:.1f} {y:.1f})"' if turn else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{colour}" text-anchor="{anchor}" '
        f'dominant-baseline="{baseline}" font-weight="{weight}"{rotate}>{escape(text)}</text>'
    )


def _cell_text(trace: Props, z: np.ndarray, i: int, j: int) -> str:
    template = str(trace.get("texttemplate") or "")
    if template == "%{text}":
        return str(np.asarray(trace["text"], dtype=object)[i, j])
    found = _NUMBER.fullmatch(template)
    return format(float(z[i, j]), found.group(1)) if found else ""


def static_svg(figure: go.Figure, width: float) -> str | None:
    """The figure as an SVG document `width` px wide and as tall as the figure, or None when it is not a heatmap
    figure on one pair of axes."""
    layout: Props = figure._layout
    traces: list[Props] = list(figure._data)
    if not traces or any(t.get("type") != "heatmap" or t.get("xaxis", "x") != "x" for t in traces):
        return None
    x_axis, y_axis = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    columns, rows = _categories(x_axis, traces, "x"), _categories(y_axis, traces, "y")
    if not columns or not rows:
        return None
    font = layout.get("font") or {}
    family, size = str(font.get("family") or "sans-serif"), float(font.get("size") or 12)
    height = float(layout.get("height") or 450)
    margin = layout.get("margin") or {}
    left, right = float(margin.get("l", 80)), float(margin.get("r", 80))
    top, bottom = float(margin.get("t", 100)), float(margin.get("b", 80))
    title = str((layout.get("title") or {}).get("text") or "")
    top += size * 1.6 if title else 0.0

    # The colour bar: the first coloured trace's own, or the colour axis's; vertical on the right or flat below.
    coloured = next((t for t in traces if t.get("showscale", True) is not False and not _see_through(t)), None)
    bar = None
    if coloured is not None:
        holder = layout.get(coloured["coloraxis"]) if coloured.get("coloraxis") else coloured
        if (holder or {}).get("showscale", True) is not False:
            bar = (holder or {}).get("colorbar") or {}
    flat_bar = bar is not None and bar.get("orientation") == "h"
    bar_px = 0.0 if bar is None or flat_bar else _BAR_PX + text_width("-0.00", size) + 12
    bar_left = bar is not None and not flat_bar and float(bar.get("x", 1.02)) < 0.5  # a right-to-left page's

    y_ticks = _ticks(y_axis, rows)
    y_font = float((y_axis.get("tickfont") or {}).get("size") or 12)
    y_labels_px = max((text_width(t, y_font) for _, t in y_ticks), default=0.0) + _PAD
    x_ticks = _ticks(x_axis, columns)
    x_font = float((x_axis.get("tickfont") or {}).get("size") or 12)
    turn = float(x_axis.get("tickangle") or 0)
    longest = max((text_width(t, x_font) for _, t in x_ticks), default=0.0)
    x_labels_px = (x_font * sum(BOX_EMS) if not turn else longest * abs(math.sin(math.radians(turn)))) + _PAD
    labels_on_right = y_axis.get("side") == "right"
    labels_on_top = x_axis.get("side") == "top"

    plot_left = left + (0.0 if labels_on_right else y_labels_px) + (bar_px if bar_left else 0.0)
    plot_right = width - right - (0.0 if bar_left else bar_px) - (y_labels_px if labels_on_right else 0.0)
    plot_top = top + (x_labels_px if labels_on_top else 0.0)
    plot_bottom = height - bottom - (0.0 if labels_on_top else x_labels_px)
    if plot_right - plot_left < 20 or plot_bottom - plot_top < 20:
        return None
    cell_w = (plot_right - plot_left) / len(columns)
    cell_h = (plot_bottom - plot_top) / len(rows)
    x_reversed, y_reversed = x_axis.get("autorange") == "reversed", y_axis.get("autorange") == "reversed"

    def x_of(column: float) -> float:  # a column's centre (its index, or an annotation's place between)
        return plot_right - (column + 0.5) * cell_w if x_reversed else plot_left + (column + 0.5) * cell_w

    def y_of(row: float) -> float:  # Plotly draws the first row at the bottom unless the axis is reversed
        return plot_top + (row + 0.5) * cell_h if y_reversed else plot_bottom - (row + 0.5) * cell_h

    column_at = {c: k for k, c in enumerate(columns)}
    row_at = {r: k for k, r in enumerate(rows)}
    parts: list[str] = []
    for trace in traces:
        z = np.asarray(trace["z"], dtype=np.float64)
        xs = [column_at.get(str(v)) for v in (trace.get("x") or columns)]
        ys = [row_at.get(str(v)) for v in (trace.get("y") or rows)]
        finite = np.isfinite(z)
        if not _see_through(trace):
            scale, low, high = colour_mapping(layout, trace, z)
            colours = cell_colours(z, scale, low, high)
            for i, j in zip(*np.nonzero(finite), strict=True):
                if xs[j] is None or ys[i] is None:
                    continue
                parts.append(
                    f'<rect x="{x_of(xs[j]) - cell_w / 2:.2f}" y="{y_of(ys[i]) - cell_h / 2:.2f}" '
                    f'width="{cell_w + 0.3:.2f}" height="{cell_h + 0.3:.2f}" fill="{_rgb(colours[i, j])}"/>'
                )
        if trace.get("texttemplate"):
            text_font = trace.get("textfont") or {}
            colour, number_size = str(text_font.get("color") or "#000000"), float(text_font.get("size") or 12)
            for i, j in zip(*np.nonzero(finite), strict=True):
                if xs[j] is not None and ys[i] is not None:
                    written = _cell_text(trace, z, int(i), int(j))
                    parts.append(_text(x_of(xs[j]), y_of(ys[i]), written, number_size, colour=colour))

    for value, text in y_ticks:
        if value in row_at:
            x = plot_right + _PAD if labels_on_right else plot_left - _PAD
            parts.append(_text(x, y_of(row_at[value]), text, y_font, anchor="start" if labels_on_right else "end"))
    for value, text in x_ticks:
        if value in column_at:
            x = x_of(column_at[value])
            y = plot_top - _PAD if labels_on_top else plot_bottom + _PAD
            if turn:
                parts.append(_text(x, y, text, x_font, anchor="start", turn=turn, baseline="central"))
            else:
                parts.append(_text(x, y, text, x_font, baseline="auto" if labels_on_top else "hanging"))
    parts += _annotations(layout, x_of, y_of, (plot_left, plot_top, plot_right, plot_bottom), size)
    if title:
        parts.append(_text(left, top - size * 0.8, title, size * 1.2, anchor="start", weight="bold"))
    if bar is not None and coloured is not None:
        area = (plot_left, plot_top, plot_right, plot_bottom)
        bar_x = left + 2 if bar_left else width - right - bar_px + 8
        parts += _colour_bar(layout, coloured, area, flat_bar, (bar_x, height), size)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{escape(family)}" role="img">' + "".join(parts) + "</svg>"
    )


def _see_through(trace: Props) -> bool:
    """A number overlay (figures/screen.py): a heatmap whose colours are all transparent, drawn only for its text."""
    scale = trace.get("colorscale") or ()
    return bool(scale) and all("rgba" in str(c) and str(c).replace(" ", "").endswith(",0)") for _, c in scale)


def _ticks(axis: Props, categories: list[str]) -> list[tuple[str, str]]:
    """(category, label) of every tick label the axis draws: its tick values and texts, else every category."""
    if axis.get("showticklabels") is False:
        return []
    values = axis.get("tickvals")
    if values is None:
        return [(c, c) for c in categories]
    texts = axis.get("ticktext") or values
    return [(str(v), str(t)) for v, t in zip(values, texts, strict=False)]


def _annotations(layout: Props, x_of: Place, y_of: Place, area: tuple[float, ...], size: float) -> list[str]:
    """Panel titles: annotations placed in the axes' own coordinates (a grid's) or on the paper."""
    plot_left, plot_top, plot_right, plot_bottom = area
    parts = []
    for note in layout.get("annotations") or ():
        text = re.sub(r"<[^>]+>", "", str(note.get("text") or ""))
        if not text:
            continue
        x_value, y_value = float(note.get("x") or 0), float(note.get("y") or 0)
        x = x_of(x_value) if note.get("xref") == "x" else plot_left + x_value * (plot_right - plot_left)
        y = y_of(y_value) if note.get("yref") == "y" else plot_bottom - y_value * (plot_bottom - plot_top)
        anchor = {"left": "start", "right": "end"}.get(str(note.get("xanchor")), "middle")
        baseline = {"bottom": "auto", "top": "hanging"}.get(str(note.get("yanchor")), "central")
        font = note.get("font") or {}
        weight = "bold" if font.get("weight") == "bold" else "normal"
        parts.append(
            _text(x, y, text, float(font.get("size") or size), anchor=anchor, weight=weight, baseline=baseline)
        )
    return parts


def _colour_bar(
    layout: Props, trace: Props, area: tuple[float, ...], flat: bool, at: tuple[float, float], size: float
) -> list[str]:
    """The colour scale as a bar of its stops, with its two ends written: at the right edge (x of `at`), or flat
    at the foot of the figure (of height the y of `at`)."""
    plot_left, plot_top, plot_right, plot_bottom = area
    z = np.asarray(trace["z"], dtype=np.float64)
    scale, low, high = colour_mapping(layout, trace, z)
    stop_colours = cell_colours(np.array([low + stop * (high - low) for stop, _ in scale]), scale, low, high)
    stops = "".join(
        f'<stop offset="{stop:.3f}" stop-color="{_rgb(c)}"/>' for (stop, _), c in zip(scale, stop_colours, strict=True)
    )
    ends = (f"{low:.2g}", f"{high:.2g}")
    title = str(
        ((layout.get(trace.get("coloraxis") or "") or trace).get("colorbar") or {}).get("title", {}).get("text") or ""
    )
    if flat:
        y = min(at[1] - _BAR_PX - size * 2.0, plot_bottom + 40)
        x0, length = plot_left, (plot_right - plot_left) * 0.9
        return [
            f'<defs><linearGradient id="bar" x1="0" y1="0" x2="1" y2="0">{stops}</linearGradient></defs>',
            f'<rect x="{x0:.1f}" y="{y:.1f}" width="{length:.1f}" height="{_BAR_PX}" fill="url(#bar)"/>',
            _text(x0, y + _BAR_PX + size * 0.8, ends[0], size * 0.9, anchor="start"),
            _text(x0 + length, y + _BAR_PX + size * 0.8, ends[1], size * 0.9, anchor="end"),
            _text(x0 + length / 2, y - size * 0.7, title, size),
        ]
    x0 = at[0]
    return [
        f'<defs><linearGradient id="bar" x1="0" y1="1" x2="0" y2="0">{stops}</linearGradient></defs>',
        f'<rect x="{x0:.1f}" y="{plot_top:.1f}" width="{_BAR_PX}" height="{plot_bottom - plot_top:.1f}" '
        'fill="url(#bar)"/>',
        _text(x0 + _BAR_PX + 3, plot_bottom, ends[0], size * 0.9, anchor="start"),
        _text(x0 + _BAR_PX + 3, plot_top, ends[1], size * 0.9, anchor="start"),
    ]
