"""A figure finished for the screen it is drawn on: a 390-px phone, a 1280 × 720 projector in presentation mode, a
1400-px desktop, in either reading direction.

The figures of this package are built once per rerun, whatever the screen; `finish` is the one step that fits
them to it. It translates the figure's own words and outlines a lesson's cell (both through callables the app
passes, so this package stays free of Streamlit), grows its type for a projector, then, on every heatmap, decides
at the width the figure is actually drawn:

- cell numbers: shown only where the longest fits its cell (text width from its font size and characters), in a
  smaller type first, else left to the hover; each black or white, whichever contrasts more with its cell's colour
  (WCAG 2.1: at least 4.5:1, which one of the two always reaches);
- tick labels: level where they fit, else turned (−60°, then −90°), else in smaller type (down to a floor),
  else every k-th, so that none overlap;
- a grid's panel titles: smaller where they would run into the next, else every k-th panel's.

On every figure, its title too (fit_title): on one line, else on two, else in smaller type, within its width; on a
map of heads drawn as squares to click, its squares and labels (fit_points). A page asks labels_every_word before it
puts a heatmap in a column rather than under the rest.

Sizes are estimates (figures.label_placement.text_width: a character's width in ems, measured in Chromium with these
fonts; an SVG text box is BOX_EMS tall); bench/figure_overlaps.py counts what Chromium actually draws.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention_core.figures.contrast import cell_colours, colour_mapping, prefers_white
from attention_core.figures.heatmaps import enlarged
from attention_core.figures.label_placement import BOX_EMS, text_width

PHONE_PX = 640  # below this window width Streamlit stacks columns and hides the sidebar (a phone)
SIDEBAR_PX = 768  # from this width the sidebar is open beside the page (Streamlit's own breakpoint)
PRESENTATION_SCALE = 1.4  # presentation mode's type and heights (the one figure finishing path: finish)
_BOX = sum(BOX_EMS)  # an SVG text box's height in ems (its font's ascent and descent)
_GAP_PX = 2.0  # what must stay between two texts
_TURNS = (0, 60, 90)  # tick label angles tried, in degrees (upwards)
NUMBER_FLOOR_PX = {"phone": 9, "projector": 14, "desktop": 9}  # smallest cell numbers worth writing
LABEL_FLOOR_PX = {"phone": 9, "projector": 14, "desktop": 9}  # smallest tick label and panel title


@dataclass(frozen=True)
class Screen:
    """Where a figure is drawn: the browser window's width and height in CSS px (window.innerWidth), presentation
    mode (a projector: type × PRESENTATION_SCALE, read from the back of a room), and the reading direction."""

    width: float = 1400.0
    height: float = 900.0
    presentation: bool = False
    right_to_left: bool = False

    @property
    def phone(self) -> bool:
        return self.width < PHONE_PX

    @property
    def kind(self) -> str:
        return "phone" if self.phone else "projector" if self.presentation else "desktop"

    def figure_px(self, share: float = 1.0) -> float:
        """A figure's width in px when it gets `share` of the page's width (one of three columns: 1/3; columns are
        stacked on a phone). Measured in Chromium (Streamlit 1.67, wide layout): 358 px at 390, 760 at 1280 in
        presentation mode, 940 at 1400; a column of three at 1400: 303."""
        if self.phone:
            return self.width - 32
        sidebar = 300 if self.width >= SIDEBAR_PX else 0
        padding = 220 if self.presentation else 160
        page = max(200.0, self.width - sidebar - padding)
        columns = round(1 / share) if share < 1 else 1
        return (page - 16 * (columns - 1)) * share if share < 1 else page


Outline = Callable[[go.Figure], go.Figure]


def panels_across(screen: Screen, n_words: int, share: float = 1.0) -> int:
    """How many panels of n_words columns a grid fits side by side on `screen` with every column labelled: a label
    turned upright at the screen's smallest label size (LABEL_FLOOR_PX) needs a text box's height and a gap a column;
    the grid's row labels and colour bars take about 120 px (0: not even one panel, in `share` of the page)."""
    column_px = LABEL_FLOOR_PX[screen.kind] * _BOX + _GAP_PX
    return max(0, int((screen.figure_px(share) - 120) // (column_px * max(1, n_words) * 1.06)))


def finish(
    figure: go.Figure,
    screen: Screen,
    *,
    share: float = 1.0,
    translate: Outline | None = None,
    outline: Outline | None = None,
) -> go.Figure:
    """The figure as `screen` shows it, drawn in `share` of the page's width: translated (the app's callable),
    its lesson cell outlined (the app's callable), its type grown for a projector, and every heatmap's numbers,
    tick labels and panel titles fitted (see the module's docstring). May edit the figure in place."""
    if translate is not None:
        figure = translate(figure)
    if outline is not None:
        figure = outline(figure)
    kinds = {trace.get("type") for trace in figure._data}
    if "heatmap" in kinds:
        figure = fit(figure, screen, share)
    else:
        figure = enlarged(figure, PRESENTATION_SCALE) if screen.presentation else figure
        figure = fit_bars(figure, screen, share) if kinds == {"bar"} else figure
    if kinds == {"scatter"}:
        fit_points(figure, screen, share)
    fit_title(figure._layout, screen, share)
    return figure


def labels_every_word(figure: go.Figure, screen: Screen, share: float = 1.0) -> bool:
    """Whether a heatmap drawn in `share` of the page's width on `screen` keeps a label on each of its word columns
    (a page asks before it puts the figure in a column rather than under the rest, or its panels side by side
    rather than one under another). Fits a copy; a grid's blank gaps between panels are not columns to label."""
    copy = go.Figure(figure)
    ticks = (copy._layout.get("xaxis") or {}).get("tickvals")
    wanted = len(ticks) if ticks is not None else len(_categories(copy._layout, copy._data, "x"))
    shown = (fit(copy, screen, share)._layout.get("xaxis") or {}).get("tickvals")
    return shown is None or len(shown) >= wanted


def fit_points(figure: go.Figure, screen: Screen, share: float = 1.0) -> None:
    """A map of heads drawn as squares to click (figures.head_maps.clickable_heads_map: layers × heads, each point's
    customdata its head), in place: where its squares are wider than its cells (12 heads on a phone), each square
    and its ✕ shrunk to its cell with a gap around it, and the axes' ranges fixed to the cells (Plotly pads a range
    by half a marker, which took the columns' room); its column labels fitted (level, turned, smaller, thinned)."""
    layout: Props = figure._layout
    meta = _meta(layout)
    points = [trace for trace in figure._data if trace.get("customdata") is not None]
    if not points or "cols" not in meta or "rows" not in meta:
        return
    columns, rows = list(meta["cols"]), list(meta["rows"])
    plot = _plot_area(layout, figure._data, screen.figure_px(share), len(columns), len(rows))
    side = int(0.82 * min(plot.column_px, plot.row_px))
    marker = points[0].setdefault("marker", {})
    if (marker.get("size") or 0) > side:
        marker["size"] = side
        points[0].setdefault("textfont", {})["size"] = max(9, side // 2)
        for name, n in (("xaxis", len(columns)), ("yaxis", len(rows))):
            axis = layout.setdefault(name, {})
            backwards = axis.pop("autorange", None) == "reversed"
            axis["range"] = [n - 0.5, -0.5] if backwards else [-0.5, n - 0.5]
    _fit_x_labels(layout.setdefault("xaxis", {}), columns, plot, 1, LABEL_FLOOR_PX[screen.kind])


TITLE_PAD_PX = 6  # above and below a title wrapped onto two lines


def fit_title(layout: Props, screen: Screen, share: float = 1.0) -> None:
    """The figure's title within the figure's width (in place): on one line at its own size, else on two (the top
    margin and the height grow to hold both), else in smaller type, down to the screen's floor (LABEL_FLOOR_PX). A
    title is Plotly's 1.4 × the figure's type unless it names its own size; drawn from the figure's left edge."""
    title = layout.get("title")
    if not isinstance(title, dict) or not title.get("text") or "<br>" in str(title["text"]):
        return
    text = str(title["text"])
    base = float((layout.get("font") or {}).get("size") or 12)
    size = float((title.get("font") or {}).get("size") or round(base * 1.4))
    room = screen.figure_px(share) - 4 * _GAP_PX
    floor = min(size, LABEL_FLOOR_PX[screen.kind])
    for s in range(int(size), int(floor) - 1, -1):  # a title is drawn in the figure's normal weight, not bold
        if text_width(text, s) <= room:
            if s != size:
                title.setdefault("font", {})["size"] = s
            return
        two = _two_lines(text, s, room, text_width)
        if max(text_width(line, s) for line in two.split("<br>")) <= room or s == int(floor):
            break
    title.setdefault("font", {})["size"] = s
    title["text"] = two
    # Plotly centres a title in the top margin (measured in Chromium: two lines of 24 px drawn 58 px tall, 73 in
    # Arabic), and the top y tick label reaches half its height above the plot: a tick label's height more keeps
    # both clear of the title
    margin = layout.setdefault("margin", {})
    top = float(margin.get("t", 100))
    wanted = math.ceil((s * (_BOX + _LINE_EMS) + base * _BOX) + 2 * TITLE_PAD_PX)
    if wanted > top:
        margin["t"] = wanted
        layout["height"] = round((layout.get("height") or 450) + wanted - top)


@dataclass(frozen=True)
class _Plot:
    """A heatmap figure's plot area as drawn: px per column and per row of its categorical axes."""

    column_px: float
    row_px: float


# The figure is read and edited through its own dictionaries (Plotly's store, which it serialises and its property
# objects read), as ui/i18n.translated_figure does: through the property objects and their validators the step
# cost 2.5 ms on a 32 × 32 heatmap, most of it Plotly looking up validators.
Props = dict


def _font(holder: Props | None, default: float) -> float:
    font = (holder or {}).get("tickfont") or (holder or {}).get("font") or {}
    return float(font.get("size") or default)


def fit(figure: go.Figure, screen: Screen, share: float = 1.0) -> go.Figure:
    """Numbers, tick labels and panel titles of a heatmap figure fitted to `screen` (in place; returned)."""
    layout: Props = figure._layout
    traces: list[Props] = figure._data
    scale = PRESENTATION_SCALE if screen.presentation else 1.0
    floor = LABEL_FLOOR_PX[screen.kind]
    font = layout.setdefault("font", {})
    base = float(font.get("size") or 12)
    if scale != 1.0:
        font["size"] = round(base * scale)
        layout["height"] = round((layout.get("height") or 450) * scale)
    for name in ("xaxis", "yaxis"):
        axis = layout.setdefault(name, {})
        size = _font(axis, base)
        size = max(18, round(size * scale)) if scale != 1.0 else size
        axis.setdefault("tickfont", {})["size"] = min(size, 12) if screen.phone else size
    if screen.phone:
        _colour_bars_below(layout, traces)
    columns, rows = _categories(layout, traces, "x"), _categories(layout, traces, "y")
    plot = _plot_area(layout, traces, screen.figure_px(share), len(columns), len(rows))
    _fit_titles(layout, columns, plot, screen, floor)
    meta = _meta(layout)
    grid = "panels" in meta  # a grid's ticks repeat panel by panel: each panel keeps the same words
    n = len(meta.get("cols", ()))
    across = max(1, round(len(columns) / (n + max(1, round(n * 0.06))))) if grid else 1
    down = max(1, round(len(rows) / (n + 1))) if grid else 1
    band = _fit_x_labels(layout["xaxis"], columns, plot, across, floor)
    if screen.phone and not grid and _word_square(meta) and len(layout["xaxis"].get("tickvals") or ()) < len(columns):
        plot = _numbered_columns(layout, traces, columns, rows, screen.figure_px(share))
        band = _fit_x_labels(layout["xaxis"], columns, plot, across, floor)
    line = _font(layout["xaxis"], 12) * _BOX if layout["xaxis"].get("showticklabels") is not False else 0.0
    if band > line:  # turned column labels take more of the height than one line: the figure grows by as much
        layout["height"] = round((layout.get("height") or 450) + band - line)
    _fit_y_labels(layout["yaxis"], rows, plot, down, floor)
    _fit_numbers(figure, plot, screen, scale)
    return figure


def _word_square(meta: Props) -> bool:
    """A words × the same words matrix (similarities, attention), whose rows can name its columns."""
    rows, columns = meta.get("rows"), meta.get("cols")
    return meta.get("columns", "words") == "words" and rows is not None and list(rows) == list(columns or ())


def _numbered_columns(layout: Props, traces: list[Props], columns: list[str], rows: list[str], width: float) -> _Plot:
    """A phone's words × words matrix too wide for every column's word (16 words in 358 px: every other one lost):
    the columns numbered 1…n, each row's label led by its number ("5 bank"), so every column is named. Returns the
    plot area as the longer row labels leave it."""
    x_axis, y_axis = layout["xaxis"], layout["yaxis"]
    x_axis |= {"tickvals": list(columns), "ticktext": [str(k + 1) for k in range(len(columns))], "tickangle": 0}
    values = list(y_axis.get("tickvals") or rows)
    texts = [str(t) for t in (y_axis.get("ticktext") or values)]
    position = {category: k for k, category in enumerate(rows)}
    y_axis["tickvals"], y_axis["ticktext"] = (
        values,
        [f"{position[v] + 1} {t}" if v in position else t for v, t in zip(values, texts, strict=True)],
    )
    # The figure's own side margins go (the page pads a phone's column already): 16 px for the 16 columns' numbers
    margin = layout.setdefault("margin", {})
    margin["l"], margin["r"] = min(margin.get("l", 80), 2), min(margin.get("r", 80), 2)
    return _plot_area(layout, traces, width, len(columns), len(rows))


BARS_BELOW_PX = 80  # a phone's colour bars laid flat under a grid: the bar, its ticks and its title
LEGEND_TURN = 90  # degrees a flat legend's names are turned (upright: at 45° the first name ran off the left edge)


def _colour_bars_below(layout: Props, traces: list[Props]) -> None:
    """A grid's colour bars (one per colour axis) laid flat under it, side by side, on a phone: beside it they took a
    third of 358 px (weight and difference: 125 px), and the panels' titles no longer fitted."""
    names = [name for name in ("coloraxis", "coloraxis2") if layout.get(name)]
    holders = [layout[name] for name in names]
    meta = _meta(layout)
    heads = all(re.fullmatch(r"H\d+", str(c)) for c in meta.get("cols") or ["-"])
    if not names and ("compact" in meta or heads):  # a heatmap's own bar (figures.heatmaps.heatmap, a map of
        # heads): beside it, it took 60 of a phone's 358 px from 13 word columns, and a head map's ("largest
        # |B − A|", a legend of roles) 130 px, leaving 12 heads 14 px each: too few for "H12"
        holders = [
            t for t in traces if t.get("type") == "heatmap" and t.get("showscale", True) and not t.get("coloraxis")
        ]
    if not holders or holders[0].get("showscale") is False:
        return
    below = BARS_BELOW_PX
    lifted: list[tuple[Props, float]] = []
    for k, holder in enumerate(holders[:1] if not names else holders):
        bar = holder.setdefault("colorbar", {})
        title = bar.get("title") or {}
        legend = (bar["tickvals"], bar["ticktext"]) if bar.get("ticktext") else None
        bar.clear()
        bar |= {
            "orientation": "h",
            "thickness": 10,
            "len": 0.9 / max(1, len(names)),
            "x": k / max(1, len(names)),
            "xanchor": "left",
            "y": 0.0,
            "yref": "container",
            "yanchor": "bottom",
            "title": {"text": title.get("text", ""), "side": "top"},
            "outlinewidth": 0,
        }
        if legend:  # a legend of names (the roles) is too wide to lie flat side by side: turned, and room below
            bar |= {"tickvals": legend[0], "ticktext": legend[1], "tickangle": -LEGEND_TURN, "len": 0.9}
            # Plotly sets a flat bar's title on the bar itself when its names are turned: a line break lifts it
            bar["title"]["text"] = f"{bar['title']['text']}<br>"
            size = float((layout.get("font") or {}).get("size") or 12)  # the legend's names take the figure's font
            longest = max(text_width(str(t), size) for t in legend[1]) * 1.15  # Arabic runs wider than estimated
            turned = longest * math.sin(math.radians(LEGEND_TURN)) + 8
            below = max(below, round(40 + turned))
            # Plotly anchors the bar and about a line of its names at the bottom, not the whole of a turned name:
            # lifted by a third of the names' length (measured in Chromium: 20 px cut off before, none after)
            lifted.append((bar, turned / 3))
    margin = layout.setdefault("margin", {})
    margin["b"] = margin.get("b", 80) + below
    layout["height"] = (layout.get("height") or 450) + below
    for bar, turned in lifted:
        bar["y"] = turned / layout["height"]


def fit_bars(figure: go.Figure, screen: Screen, share: float = 1.0) -> go.Figure:
    """A bar chart over words (one group of bars per word, the words as tick labels): its labels level, turned or
    thinned, and the numbers above its bars only where a group is wide enough for them side by side."""
    layout: Props = figure._layout
    axis = layout.get("xaxis") or {}
    if axis.get("tickvals") is None:
        return figure
    positions = list(axis["tickvals"])
    font = float((layout.get("font") or {}).get("size") or 12)
    margin = layout.get("margin") or {}
    plot_width = screen.figure_px(share) - margin.get("l", 80) - margin.get("r", 80) - text_width("0.25", font) - 10
    group_px = max(10.0, plot_width) / max(1, len(positions))
    texts = [str(t) for t in axis.get("ticktext") or positions]
    _fit_x_labels(axis, positions, _Plot(group_px, 0.0))
    _keep_label(axis, positions, texts, _meta(layout).get("keep"), group_px)
    bars = [trace for trace in figure._data if trace.get("texttemplate")]
    for trace in bars:
        size = float((trace.get("textfont") or {}).get("size") or font)
        if text_width("0.00", size) + _GAP_PX > group_px / len(bars):
            trace.pop("texttemplate")
    return figure


def _keep_label(axis: Props, values: list, texts: list[str], kept: object, column_px: float) -> None:
    """Thinned labels (every k-th) shifted so that the tick value `kept` (a student's own word) is one of them, at
    least k apart still (further where the shifted words are too wide to clear each other)."""
    shown = list(axis["tickvals"])
    if kept not in values or kept in shown or len(shown) < 2:
        return
    turn, size = abs(int(axis.get("tickangle") or 0)), _font(axis, 12)
    every = values.index(shown[1]) - values.index(shown[0])
    while True:
        kept_ones = range(values.index(kept) % every, len(values), every)
        widths = [text_width(texts[k], size) for k in kept_ones]
        if every >= len(values) or _clear(widths, every * column_px, size, turn):
            break
        every += 1
    axis["tickvals"], axis["ticktext"] = [values[k] for k in kept_ones], [texts[k] for k in kept_ones]


def _meta(layout: Props) -> dict:
    meta = layout.get("meta")
    return meta if isinstance(meta, dict) else {}


def _categories(layout: Props, traces: list[Props], name: str) -> list[str]:
    order = (layout.get(f"{name}axis") or {}).get("categoryarray")
    if order is not None:
        return list(order)
    seen: dict[str, None] = {}
    for trace in traces:
        for value in trace.get(name) or ():
            seen.setdefault(value, None)
    return list(seen)


def _plot_area(layout: Props, traces: list[Props], width: float, n_columns: int, n_rows: int) -> _Plot:
    """The plot area's px per column and row: the figure's width less its margins, the row labels and the colour
    bar; its height less its margins and one line of column labels."""
    margin = layout.get("margin") or {}
    left, right = margin.get("l", 80), margin.get("r", 80)
    top, bottom = margin.get("t", 100), margin.get("b", 80)
    y_axis, x_axis = layout["yaxis"], layout["xaxis"]
    font = float((layout.get("font") or {}).get("size") or 12)
    labels_px = 0.0
    if y_axis.get("showticklabels") is not False:
        y_font = _font(y_axis, 12)
        texts = y_axis.get("ticktext") or y_axis.get("tickvals") or _categories(layout, traces, "y")
        labels_px = max((text_width(str(t), y_font) for t in texts), default=0) + 6
    bar_px = 0.0
    own = [t for t in traces if t.get("type") == "heatmap" and not t.get("coloraxis") and t.get("showscale", True)]
    if own and (own[0].get("colorbar") or {}).get("orientation") != "h":  # a flat bar below takes no width
        bar = own[0].get("colorbar") or {}
        ticks = [str(t) for t in bar.get("ticktext") or ()] or ["-0.25"]  # a legend of roles: its longest name
        title = str((bar.get("title") or {}).get("text") or "")  # a title on top ("largest |B − A|") may be wider
        bar_px = (bar.get("thickness") or 30) + max(text_width(t, font) for t in [*ticks, title]) + 12
    else:  # a grid's colour axes: their bars side by side or one above the other, each with a title on top
        bars = [layout[name].get("colorbar") or {} for name in ("coloraxis", "coloraxis2") if layout.get(name)]
        titles = [((bar.get("title") or {}).get("text") or "") for bar in bars]
        flat = bars and bars[0].get("orientation") == "h"  # under the grid: no width taken
        if bars and layout["coloraxis"].get("showscale", True) is not False and not flat:
            # measured in Chromium: a bar's ticks, pads and title take about its title's width and 60 px
            bar_px = (bars[0].get("thickness") or 30) + max(text_width(t, font) for t in titles) + 60
    plot_width = max(40.0, 0.93 * (width - left - right - labels_px - bar_px))  # 7 % to spare: estimates
    x_labels_px = _font(x_axis, 12) * _BOX if x_axis.get("showticklabels") is not False else 0
    plot_height = max(40.0, (layout.get("height") or 450) - top - bottom - x_labels_px)
    return _Plot(plot_width / max(1, n_columns), plot_height / max(1, n_rows))


def _fit_titles(layout: Props, columns: list[str], plot: _Plot, screen: Screen, floor: float) -> None:
    """A grid's panel titles: each within its panel (and the gap after it); smaller type, then every k-th."""
    annotations = layout.get("annotations")
    meta = _meta(layout)
    if not annotations or "panels" not in meta:
        return
    panel = len(meta["cols"])  # a panel's columns; a gap of round(0.06 n) columns follows it
    room = (panel + max(1, round(panel * 0.06))) * plot.column_px - 2 * _GAP_PX
    size = float((annotations[0].get("font") or {}).get("size") or 13)
    size = max(18, round(size * PRESENTATION_SCALE)) if screen.presentation else size
    widest = max(_bold_width(a.get("text") or "", size) for a in annotations)
    if widest > room:
        size = max(floor, math.floor(size * room / widest))
    if max(_bold_width(a.get("text") or "", size) for a in annotations) > room:
        for annotation in annotations:  # "this head" on two lines, where one is too wide for its panel
            annotation["text"] = _two_lines(annotation.get("text") or "", size, room)
    every = max(1, math.ceil(max(_bold_width(a.get("text") or "", size) for a in annotations) / room))
    across = max(1, round(len(columns) / (panel + max(1, round(panel * 0.06)))))
    for k, annotation in enumerate(annotations):
        annotation.setdefault("font", {})["size"] = size
        if (k % across) % every:
            annotation["text"] = ""
    # The first row's titles stand in the top margin: as high as their lines (a projector's 24 px type did not fit
    # the grid's 30 px, and "sentence A" ran off the chart's top edge now and then)
    lines = max((a.get("text") or "").count("<br>") + 1 for a in annotations)
    margin = layout.setdefault("margin", {})
    margin["t"] = max(margin.get("t", 100), math.ceil(lines * size * _BOX + 2 * _GAP_PX))


def _two_lines(text: str, size: float, room: float, width: Callable[[str, float], float] | None = None) -> str:
    """The text broken at the space that makes its longer line shortest, where one line does not fit `room`
    (widths by `width`: a bold title's, unless given)."""
    width = width or _bold_width
    words = text.split(" ")
    if width(text, size) <= room or len(words) < 2:
        return text
    cuts = [(" ".join(words[:k]), " ".join(words[k:])) for k in range(1, len(words))]
    first, second = min(cuts, key=lambda cut: max(width(part, size) for part in cut))
    return f"{first}<br>{second}"


def _bold_width(text: str, size: float) -> float:
    """A bold title's width: its longest line's."""
    return max(text_width(re.sub(r"<[^>]+>", "", line), size) for line in text.split("<br>")) * 1.08


def _ticks(axis: Props, categories: list[str]) -> tuple[list[str], list[str], float]:
    """The axis's tick values, their texts, and the smallest distance between two neighbours, in categories."""
    values = list(axis["tickvals"]) if axis.get("tickvals") is not None else categories
    texts = [str(t) for t in (axis["ticktext"] if axis.get("ticktext") is not None else values)]
    index = {c: i for i, c in enumerate(categories)}
    positions = sorted(index[v] for v in values if v in index)
    step = min((b - a for a, b in itertools.pairwise(positions)), default=1)
    return values, texts, float(step)


def _thinned(values: list, texts: list, keep: int, groups: int, categories: list[str]) -> tuple[list, list]:
    """Every keep-th tick of each of `groups` equal runs (a grid's panels: each keeps the same words), without the
    last of a run where it would come nearer the next run's first than keep ticks do."""
    size = len(values) // groups if groups > 1 and len(values) % groups == 0 else len(values)
    index = {c: i for i, c in enumerate(categories)}
    at = [index.get(v, 0) for v in values]
    step = min((b - a for a, b in itertools.pairwise(sorted(at))), default=1)
    run = list(range(size))[::keep]  # the same in every run, the last one's too
    if size < len(values) and run and at[size] - at[run[-1]] < keep * step:
        run = run[:-1]
    kept = [start + k for start in range(0, len(values), size) for k in run]
    return [values[k] for k in kept], [texts[k] for k in kept]


def _fit_x_labels(axis: Props, categories: list[str], plot: _Plot, groups: int = 1, floor: float = 9) -> float:
    """Column labels level where they fit, else turned, else in smaller type (down to `floor`), else every k-th
    (turned): every word keeps its label wherever a smaller type lets it. Returns the labels' height in px."""
    if axis.get("showticklabels") is False:
        return 0.0
    values, texts, step = _ticks(axis, categories)
    if not texts:
        return 0.0
    font = _font(axis, 12)
    sizes = range(int(font), int(min(font, floor)) - 1, -1)
    for keep in range(1, len(texts) + 1):
        for size in sizes if keep == 1 else sizes[-1:]:
            widths = [text_width(t, size) for t in texts]
            for turn in _TURNS:
                if _clear(widths[::keep], step * keep * plot.column_px, size, turn):
                    if keep > 1:
                        axis["tickvals"], axis["ticktext"] = _thinned(values, texts, keep, groups, categories)
                    axis["tickangle"] = -turn if turn else 0
                    if size != font:
                        axis.setdefault("tickfont", {})["size"] = size
                    radians = math.radians(turn)
                    return max(w * math.sin(radians) + size * _BOX * math.cos(radians) for w in widths)
    return font * _BOX


def _clear(widths: list[float], spacing: float, font: float, turn: int) -> bool:
    """Whether labels `spacing` px apart, turned `turn` degrees, miss their neighbours: level and centred, by half
    of each one's width; turned, either across the slant (the boxes are font × _BOX thick) or along it (each ends at
    its tick, so the next starts its own length further)."""
    if turn == 0:
        return all((a + b) / 2 + _GAP_PX <= spacing for a, b in itertools.pairwise(widths))
    radians = math.radians(turn)
    across = spacing * math.sin(radians) >= font * _BOX + _GAP_PX
    along = all(spacing * math.cos(radians) >= w + _GAP_PX for w in widths[1:])
    return across or along


def _fit_y_labels(axis: Props, categories: list[str], plot: _Plot, groups: int = 1, floor: float = 9) -> None:
    """Row labels one text box apart: in smaller type (down to `floor`) where the rows are thinner, else every k-th
    row's."""
    if axis.get("showticklabels") is False:
        return
    values, texts, step = _ticks(axis, categories)
    spacing = step * plot.row_px
    font = _font(axis, 12)
    if spacing >= font * _BOX + _GAP_PX or not texts:
        return
    size = math.floor((spacing - _GAP_PX) / _BOX)
    if size >= min(font, floor):
        axis.setdefault("tickfont", {})["size"] = size
        return
    axis.setdefault("tickfont", {})["size"] = min(font, floor)
    keep = math.ceil((min(font, floor) * _BOX + _GAP_PX) / spacing)
    axis["tickvals"], axis["ticktext"] = _thinned(values, texts, keep, groups, categories)


def _fit_numbers(figure: go.Figure, plot: _Plot, screen: Screen, scale: float) -> None:
    """Each heatmap's cell numbers at the largest size that fits its cells (from its own size down to the floor),
    else none; the numbers kept are drawn by see-through copies of the trace, one in black, one in white."""
    floor = NUMBER_FLOOR_PX[screen.kind]
    overlays: list[go.Heatmap] = []
    for trace in figure._data:
        if trace.get("type") != "heatmap" or not trace.get("texttemplate"):
            continue
        size = float((trace.get("textfont") or {}).get("size") or 12)
        size = max(18, round(size * scale)) if scale != 1.0 else size
        size = min(size, 11) if screen.phone else size
        longest, lines = _longest_text(trace)
        fits = [
            s
            for s in range(int(size), floor - 1, -1)
            if text_width(longest, s) + _GAP_PX <= plot.column_px and _lines_px(lines, s) + _GAP_PX <= plot.row_px
        ]
        template = trace.pop("texttemplate")
        if fits:
            overlays += _number_overlays(figure, trace, template, fits[0])
    if overlays:
        figure.add_traces(overlays)


_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_LINE_EMS = 1.3  # from one line's baseline to the next in a cell's text (plotly.js's LINE_SPACING)


def _longest_text(trace: Props) -> tuple[str, int]:
    """The longest line the trace writes in a cell, as written ("0.25", "-14.67", "✕ 0.00022", "#3,116"), and the
    most lines a cell writes (the logit lens: its word, then its probability, on two)."""
    if trace.get("texttemplate") == "%{text}":
        cells = [_BREAK.split(str(t)) for row in trace.get("text") or () for t in row]
        lines = [re.sub(r"<[^>]+>", "", line) for cell in cells for line in cell]
        longest = max(lines, key=lambda line: text_width(line, 10), default="0.00")
        return longest, max((len(cell) for cell in cells), default=1)
    spec = (trace.get("texttemplate") or "%{z:.2f}").removeprefix("%{z:").removesuffix("}")
    values = np.asarray(trace["z"], dtype=np.float64)
    finite = values[np.isfinite(values)]
    if not finite.size:
        return "0.00", 1
    return max((f"{v:{spec}}" for v in (finite.min(), finite.max())), key=len), 1


def _lines_px(lines: int, size: float) -> float:
    """The height of `lines` lines of `size`-px text: a text box, and a line's spacing for each line after it."""
    return size * (_BOX + _LINE_EMS * (lines - 1))


def _number_overlays(figure: go.Figure, trace: Props, template: str, size: int) -> list[go.Heatmap]:
    """See-through heatmaps over `trace` writing its numbers: black on light cells, white on dark ones."""
    z = np.asarray(trace["z"], dtype=np.float64)
    scale, low, high = colour_mapping(figure._layout, trace, z)
    white = prefers_white(cell_colours(z, scale, low, high))
    clear = [[0.0, "rgba(0,0,0,0)"], [1.0, "rgba(0,0,0,0)"]]
    overlays = []
    for colour, where in (("#000000", ~white), ("#ffffff", white)):
        where = where & np.isfinite(z)
        if not where.any():
            continue
        overlay = {
            "type": "heatmap",
            "z": np.where(where, z, np.nan).astype(np.float32),
            "x": trace["x"],
            "y": trace["y"],
            "colorscale": clear,
            "zmin": 0.0,
            "zmax": 1.0,
            "showscale": False,
            "hoverinfo": "skip",
            "texttemplate": template,
            "textfont": {"size": size, "color": colour},
        }
        if template == "%{text}":  # Plotly writes a cell's text even where z is NaN: only this copy's cells keep it
            overlay["text"] = [
                [text if keep else "" for text, keep in zip(row, kept, strict=True)]
                for row, kept in zip(trace["text"], where.tolist(), strict=True)
            ]
        overlays.append(go.Heatmap(overlay, _validate=False))
    return overlays
