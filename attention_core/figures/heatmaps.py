"""Matrices → Plotly heatmaps, with the words on the axes and a colour scale that matches the values.

Pure functions (record → figure), testable without a browser. Axes are numeric with the words as tick text, so
a word typed twice stays two rows (a categorical axis would merge them). Arabic sentences read right to left:
the first word is the right-most column and the row labels sit on the right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, cast

import numpy as np
import pandas as pd
import plotly.colors
import plotly.graph_objects as go
import plotly.io
import torch
from _plotly_utils.utils import to_typed_array_spec  # Plotly's own numpy → typed-array step

from attention_core.figures.numbers import LEAST_DECIMALS, number_format
from attention_core.words import N_

ARABIC_FONTS = "Noto Naskh Arabic, Noto Sans Arabic, Amiri, DejaVu Sans, Arial, sans-serif"
UNKNOWN_MARK = " (?)"  # appended to the label of a word the embedding does not know
_INVISIBLE = "\u200b"  # zero-width space: tells repeated words apart as categories without showing
_MAX_LABEL = 24  # longer labels are cut on the axes (with …); the CSV keeps them whole
_MAX_TICKS = 40  # a longer axis labels every k-th word (hover still gives the row and column)
# The width, in screen pixels, that a heatmap's cells get on a 1400-px wide screen with the sidebar open (measured
# in Chromium): a full-width heatmap, one of the small side-by-side ones (compact), and a whole grid of panels.
# They decide whether numbers fit in the cells and whether column labels must turn.
PLOT_PX = {"full": 700, "compact": 220, "grid": 880}
NUMBER_PX = 30  # a cell this wide fits "0.25" in 11-px type
DECIMAL_PX = 7  # and each decimal past the second needs this much more ("0.0027")
NUMBER_ROW_PX = 16  # and this tall
_LABEL_PX_PER_CHARACTER = 8.5  # a 15-px label, on average per character
_BOLD_EM_PER_CHARACTER = 0.62  # a bold title's width per character, in ems

# What the colours mean, per kind of matrix.
#   weights: softmax rows, each in [0, 1] and summing to 1 → sequential scale fixed to [0, 1]
#   cosine:  cosines in [-1, 1] → diverging scale fixed to [-1, 1], white at 0
#   signed:  dot products, scores, vectors: any real number → diverging scale symmetric around 0
#   sinusoid: sines and cosines (the positional encoding) → the same fixed [-1, 1] scale
MatrixKind = Literal["weights", "cosine", "sinusoid", "signed"]
# The scales as lists of colour stops, resolved here by Plotly Python: a figure built without validation (below)
# must not send the bare name, because plotly.js's own "RdBu" runs the other way (blue for negative).
BLUES = plotly.colors.get_colorscale("Blues")
RED_BLUE = plotly.colors.get_colorscale("RdBu")
CAPTIONS: dict[str, str] = {  # marked for the catalog: the app translates a caption where it shows it
    "weights": N_("Each row is a softmax: values in [0, 1] that sum to 1 across the row."),
    "cosine": N_("Cosine similarities lie in [-1, 1]: 1 same direction, 0 unrelated, -1 opposite."),
    "signed": N_("Blue is positive, red negative, white zero; the scale is symmetric around 0."),
    "sinusoid": N_("Sines and cosines lie in [-1, 1]: blue +1, red -1, white 0."),
}
Translate = Callable[[str], str]  # the app's translation of a marked text; the package itself writes English


def untranslated(text: str) -> str:
    """The default Translate: a figure built outside the app (tests, scripts) keeps its English words."""
    return text


def weights_kind(*, softmax: bool, cosine: bool, scaled: bool, temperature: float = 1.0) -> MatrixKind:
    """Which colour scale the attention weights need: softmax rows, bare cosines, or any real numbers."""
    if softmax:
        return "weights"
    if cosine and not scaled and temperature == 1.0:
        return "cosine"
    return "signed"


def word_labels(surfaces: list[str], known: tuple[bool, ...] | list[bool] | None = None) -> list[str]:
    """Axis labels: the words as typed, with unknown words marked."""
    known = known or [True] * len(surfaces)
    return [w if ok else w + UNKNOWN_MARK for w, ok in zip(surfaces, known, strict=True)]


def _colour_range(matrix: torch.Tensor, kind: MatrixKind) -> dict[str, object]:
    if kind == "weights":
        return {"colorscale": BLUES, "zmin": 0.0, "zmax": 1.0}
    if kind in ("cosine", "sinusoid"):
        return {"colorscale": RED_BLUE, "zmin": -1.0, "zmax": 1.0}
    finite = matrix[torch.isfinite(matrix)]  # a masked score (−∞) is drawn blank and does not set the scale
    bound = float(finite.abs().max()) if finite.numel() else 1.0
    bound = bound if bound > 0 else 1.0
    return {"colorscale": RED_BLUE, "zmin": -bound, "zmax": bound}


def _hover(spec: str) -> str:
    """Row word → column word: value, with at least three decimals (one more than the cells, when they write more)."""
    hover_spec = f".{max(3, int(spec[1:-1]))}f"
    return f"%{{y}} → %{{x}}: %{{z:{hover_spec}}}<extra></extra>"


def _cell_numbers(values: np.ndarray | torch.Tensor, cell_px: float, row_px: float) -> dict[str, object]:
    """The trace's numbers in its cells, written with the decimals its values need (figures/numbers.py), when
    the cells are large enough to hold them; {} otherwise (the hover still gives every value)."""
    spec = number_format(values)
    if not _numbers_fit(cell_px, row_px, spec):
        return {}
    return {"texttemplate": f"%{{z:{spec}}}", "textfont": {"size": 11 if cell_px >= 36 else 10}}


def heatmap(
    matrix: torch.Tensor,
    rows: list[str],
    cols: list[str],
    *,
    kind: MatrixKind = "signed",
    title: str = "",
    rtl: bool = False,
    columns: Literal["words", "dimensions"] = "words",
    height: int | None = None,
    compact: bool = False,
    shown_rows: list[str] | None = None,
) -> go.Figure:
    """A heatmap of `matrix` (len(rows) × len(cols)); hover shows row word, column word and value.

    rtl puts the row labels on the right and, when the columns are words, the first word in the right-most
    column. Columns that are vector dimensions keep their order, and long ones label every k-th dimension.
    compact (one of several small heatmaps side by side) gets a slimmer colour bar and smaller labels. Every cell
    shows its number when the cells are large enough to hold it (layout.meta["cell_px"] keeps their estimated
    width, so presentation mode can tell whether larger numbers still fit). shown_rows: the row labels as drawn,
    when they are not the rows themselves (a row "layer 3" drawn in the reader's language); layout.meta keeps `rows`,
    which a lesson names its cell by.
    """
    values = matrix.detach().to(torch.float32).cpu()
    values = torch.where(torch.isfinite(values), values, float("nan"))  # −∞ (a masked score): a blank cell
    n_rows, n_cols = values.shape
    if (n_rows, n_cols) != (len(rows), len(cols)):
        raise ValueError(f"matrix {tuple(values.shape)} does not match {len(rows)} row and {len(cols)} column labels")
    if shown_rows is not None and len(shown_rows) != n_rows:
        raise ValueError(f"{len(shown_rows)} row labels to draw for {n_rows} rows")
    # A numpy z goes to the browser as one typed binary array (Plotly ≥ 6), several times smaller than JSON numbers,
    # and Plotly does not validate a quarter-million list items one by one (docs/speed.md).
    full_rows, full_cols = rows, cols
    rows, cols = [_short(r) for r in shown_rows or rows], [_short(c) for c in cols]
    grid = values.numpy()
    x, y = _categories(cols), _categories(rows)
    trace = {
        "type": "heatmap",
        "z": grid,
        "x": x,
        "y": y,
        "hovertemplate": _hover(number_format(values)),
        # Right-to-left figures keep their row labels on the right, so the colour bar moves to the left.
        "colorbar": {"thickness": 8 if compact else 12} | ({"x": -0.01, "xanchor": "right"} if rtl else {}),
        "showscale": True,
        **_colour_range(values, kind),
    }
    height = height or min(900, max(320, 140 + 30 * n_rows))
    cell_px = PLOT_PX["compact" if compact else "full"] / n_cols
    if columns == "words":
        trace |= _cell_numbers(grid, cell_px, (height - 120) / n_rows)
    # Long axes label every k-th row or column (the CSV export keeps every label).
    column_step = -(-n_cols // 16) if columns == "dimensions" and n_cols > 40 else -(-n_cols // _MAX_TICKS)
    row_step = -(-n_rows // _MAX_TICKS)
    layout = {
        # Labels in full, for the CSV export; the colour scale's kind, for the caption under the figure; what the
        # columns are (a vector's dimensions are numbered, not words: every k-th is labelled, as on any axis).
        "meta": {
            "rows": full_rows,
            "cols": full_cols,
            "cell_px": cell_px,
            "kind": kind,
            "compact": compact,
            "columns": columns,
        },
        "title": {"text": title, "x": 0.0},
        "font": {"family": ARABIC_FONTS, "size": 14},
        "height": height,
        "margin": {"l": 70 if rtl and not compact else 10, "r": 10, "t": 50 if title else 20, "b": 10},
        "xaxis": {
            "type": "category",
            "tickmode": "array",
            "tickvals": x[::column_step],
            "ticktext": cols[::column_step],
            "autorange": "reversed" if rtl and columns == "words" else True,
            "side": "bottom" if compact else "top",  # in a grid the title sits on top
            "tickangle": -60 if compact or _labels_collide(cols[::column_step], cell_px * column_step) else 0,
            "tickfont": {"size": 12 if compact else 15},
        },
        "yaxis": {
            "type": "category",
            "tickmode": "array",
            "tickvals": y[::row_step],
            "ticktext": rows[::row_step],
            "autorange": "reversed",  # first word on top, as a matrix is read
            "side": "right" if rtl else "left",
            "tickfont": {"size": 12 if compact else 15},
        },
    }
    return lean_figure([trace], layout)


def lean_figure(traces: Sequence[Mapping[str, object]], layout: Mapping[str, object]) -> go.Figure:
    """The figure, built without Plotly's property validation, which cost a fifth of a rerun (docs/speed.md);
    every figure this module builds is checked against Plotly's validator in tests/test_embeddings_and_figures.py
    instead (`_validate` is Plotly's own per-figure switch)."""
    data = [_lean_lists(trace) for trace in traces]
    return _LeanFigure(data=data, layout=_lean_lists({**layout, "template": _heatmap_template()}), _validate=False)


class _Labels(list):
    """A list of labels or numbers. Plotly deep-copies a figure's properties when it builds the figure and again in
    to_dict, item by item (one Python call per label, docs/speed.md). The items are immutable, so this list copies
    itself in one step."""

    def __deepcopy__(self, memo: dict[int, object]) -> _Labels:
        return _Labels(self)


def _lean_lists(value: object) -> object:
    """Every list of plain values in a figure's properties as _Labels (this module's lists are homogeneous: labels,
    numbers, or lists of dicts / of lists, which are walked)."""
    if isinstance(value, dict):
        return {key: _lean_lists(item) for key, item in value.items()}
    if isinstance(value, list) and value:
        return _Labels(value) if isinstance(value[0], str | int | float) else [_lean_lists(v) for v in value]
    return value


class _LeanFigure(go.Figure):
    """A go.Figure whose to_dict (what st.plotly_chart and plotly.io.to_json call) copies its lists of labels in
    one step each; Plotly's walks every label once more to look for numpy arrays. The dictionary is the same as
    Plotly's (tests/test_embeddings_and_figures.py compares the JSON): numpy arrays become Plotly's typed arrays,
    except under the keys Plotly skips, and nothing the figure holds is shared with it."""

    def to_dict(self) -> dict[str, object]:
        return {"data": [_lean_copy(trace) for trace in self._data], "layout": _lean_copy(self._layout)}


_SKIPPED_KEYS = frozenset({"geojson", "layer", "layers", "range"})  # as in _plotly_utils.utils.is_skipped_key


def _lean_copy(value: object, key: str = "") -> object:
    if isinstance(value, dict):
        return {k: _lean_copy(v, k) for k, v in value.items()}
    if isinstance(value, _Labels):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.copy() if key in _SKIPPED_KEYS else to_typed_array_spec(value)
    if isinstance(value, list | tuple):
        return type(value)(_lean_copy(item) for item in value)
    return value


_TEMPLATES: dict[str, dict[str, object]] = {}


def _heatmap_template() -> dict[str, object]:
    """The default template (Streamlit's, once Streamlit is imported) without its per-trace-type part. That part
    sets defaults for trace types these figures never draw (candlestick, sankey, table…) and a heatmap colour
    scale every trace here overrides, yet it was most of every figure's JSON, deep-copied and walked again by
    st.plotly_chart on each rerun (docs/speed.md). Its layout part (theme colour placeholders that Streamlit's
    frontend swaps for the theme's colours) stays."""
    name = str(plotly.io.templates.default)
    if name not in _TEMPLATES:
        _TEMPLATES[name] = {"layout": plotly.io.templates[name].layout.to_plotly_json()}
    return _TEMPLATES[name]


def enlarged(figure: go.Figure, scale: float, min_text_px: int = 18) -> go.Figure:
    """A copy of a figure for a projector: fonts and height grow by `scale`, and tick labels, panel titles and cell
    numbers are at least min_text_px, so they read from the back of a room. What no longer fits at that size is
    thinned: every k-th tick label, level column labels turned, cell numbers dropped from cells too small."""
    bigger = go.Figure(figure)
    layout = bigger.layout
    grow = lambda size, floor=0: max(floor, round((size or 14) * scale))  # noqa: E731
    layout.font.size = grow(layout.font.size)
    layout.height = grow(layout.height or 450)  # Plotly's own default height is 450
    meta = layout.meta if isinstance(layout.meta, dict) else {}
    cell_px = float(meta.get("cell_px", PLOT_PX["full"]))
    if layout.annotations:  # a grid's panel titles: as large as the floor, unless the longest would overrun its panel
        panel_px = cell_px * len(meta.get("rows", [])) or PLOT_PX["grid"]
        longest = max(len(re.sub(r"<[^>]+>", "", annotation.text or "")) for annotation in layout.annotations)
        fitting = int(panel_px / (_BOLD_EM_PER_CHARACTER * max(1, longest)))
        size = min(grow(layout.annotations[0].font.size, min_text_px), max(fitting, layout.annotations[0].font.size))
        for annotation in layout.annotations:
            annotation.font.size = size
    for trace in bigger.data:
        if trace.type != "heatmap" or not trace.texttemplate:
            continue
        size = grow(trace.textfont.size, min_text_px)
        # A number is about 0.6 em a character ("0.25": 2.4 em; "-14.67": 3.6 em). Cells on a projector are
        # narrower than the estimate says once the page's type is larger: a grid's colour bars and row labels take
        # their share (measured 36 px cells where the estimate said 49, raw | head | difference of five words), and
        # a compact heatmap, one of three side by side, shrinks the most (41 px where it said 73, Word order).
        shrink = 0.55 if meta.get("compact") else 0.8 if "panels" in meta else 1.0
        if cell_px * shrink >= size * 0.6 * _longest_number(trace):
            trace.textfont.size = size
        else:
            trace.texttemplate = None
    columns = layout.xaxis.categoryarray or (bigger.data[0].x if bigger.data else None)
    plot_px = {"x": cell_px * len(columns) if columns is not None else PLOT_PX["full"], "y": layout.height - 120}
    for name, axis in (("x", layout.xaxis), ("y", layout.yaxis)):
        if axis.tickfont.size is None:
            continue
        axis.tickfont.size = grow(axis.tickfont.size, min_text_px)
        if axis.tickvals is None:
            continue
        labels = list(axis.ticktext or axis.tickvals)
        level = name == "y" or not axis.tickangle
        needed = axis.tickfont.size * 1.3 if not level or name == "y" else None
        if name == "x" and level and _labels_collide(labels, plot_px["x"] / max(1, len(labels)), axis.tickfont.size):
            axis.tickangle, needed = -60, axis.tickfont.size * 1.3
        if needed and plot_px[name] / max(1, len(labels)) < needed:
            keep = -(-int(needed * len(labels)) // int(plot_px[name]))  # every keep-th label
            axis.tickvals, axis.ticktext = list(axis.tickvals)[::keep], labels[::keep]
    return bigger


def _longest_number(trace: go.Heatmap) -> int:
    """How many characters the longest cell number takes as the trace writes it ("0.25": 4, "-14.67": 6,
    "0.0027": 6; a map of heads' own texts, "✕ 0.00022"); 4 for an empty z."""
    if trace.texttemplate == "%{text}":
        return max((len(str(text)) for row in trace.text or () for text in row), default=4)
    spec = (trace.texttemplate or "%{z:.2f}").removeprefix("%{z:").removesuffix("}")
    values = np.asarray(trace.z, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return max((len(f"{v:{spec}}") for v in (finite.min(), finite.max())), default=4) if finite.size else 4


def _numbers_fit(cell_px: float, row_px: float, spec: str = f".{LEAST_DECIMALS}f") -> bool:
    extra = max(0, int(spec[1:-1]) - LEAST_DECIMALS)
    return cell_px >= NUMBER_PX + DECIMAL_PX * extra and row_px >= NUMBER_ROW_PX


def _labels_collide(labels: list[str], px_per_label: float, font_px: float = 15) -> bool:
    """Whether column labels written level would run into each other ("extraordinarily" over "bioluminescent")."""
    character_px = _LABEL_PX_PER_CHARACTER * font_px / 15
    return max((len(label) for label in labels), default=0) * character_px > px_per_label - 6


def _categories(labels: list[str]) -> list[str]:
    """The labels as distinct axis categories: a word's k-th repeat gets k invisible zero-width spaces, so a word
    typed twice stays two rows, and hovering a cell names its words (%{x}, %{y}) without a text per cell. (Text
    per cell cost most of a page's time: Plotly keeps it as an object array and deep-copies it on every to_dict.)"""
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        count = seen.get(label, 0)
        seen[label] = count + 1
        unique.append(label + _INVISIBLE * count)
    return unique


def _short(label: str) -> str:
    """A label that fits an axis: a 6,000-letter "word" would squeeze the heatmap to nothing."""
    return label if len(label) <= _MAX_LABEL else label[: _MAX_LABEL - 1] + "…"


def heatmap_grid(
    matrices: torch.Tensor,
    labels: list[str],
    *,
    row_names: list[str],
    column_names: list[str],
    rtl: bool = False,
    panel_height: int | None = None,
    signed: frozenset[tuple[int, int]] = frozenset(),
    signed_name: str = N_("difference"),
    translate: Translate = untranslated,
    panel_names: list[list[str]] | None = None,
) -> go.Figure:
    """A grid of attention heatmaps (rows × columns of n × n softmax matrices, e.g. layers × heads) in ONE figure:
    one shared [0, 1] colour scale, a title above each panel ("L2 H3": its row and column names), the words beside
    and below the grid. Panels listed in `signed` (grid row, column), such as a difference of two attentions,
    share a second scale, symmetric around 0. Right to left, the whole grid is mirrored: head 1 on the right.

    The grid is drawn as one big matrix on one pair of axes (panels side by side, blank gaps between them), one
    trace per colour scale, because Plotly's cost grows with every trace and every pair of axes (docs/speed.md
    has the measurement). Hover names the panel and the two words
    ("L4 · it → H2 · animal: 0.640"). Without a panel_height, panels are about square on a wide page.

    translate: the app's translation of the names marked with N_ (rows, columns such as "this head", the colour
    bars' titles), for the panel titles, the hover and the colour bars (a grid's colour bars are the layout's, which
    the app's translation of a figure does not reach). layout.meta keeps the names as given: a lesson names its
    panel so ("heads knocked out"). panel_names: each panel's own name ("L2 H5"), where a grid wraps one row of
    panels into several (a phone's); a panel named "" is a blank filler, left out of layout.meta."""
    values = matrices.detach().to(torch.float32).cpu().numpy()
    n_grid_rows, n_grid_cols, n, _ = values.shape
    panel_height = panel_height or max(120, min(280, 1100 // n_grid_cols + 40))
    cell_px = panel_height / n
    gap_x, gap_y = max(1, round(n * 0.06)), max(1, int(np.ceil(24 / cell_px)))  # gaps in cells; room for titles
    short = [_short(label) for label in labels]
    words = _categories(short)
    shown_rows, shown_columns = [translate(name) for name in row_names], [translate(name) for name in column_names]
    # Distinct categories per panel row and column, so each cell's hover names its panel.
    y_categories, x_categories = [], []
    for r, name in enumerate(shown_rows):
        y_categories += [f"{name} · {w}" if name else w for w in words]
        y_categories += [f"\u2060{r}.{g}" for g in range(gap_y)] if r < n_grid_rows - 1 else []
    for c, name in enumerate(shown_columns):
        x_categories += [f"{name} · {w}" if name else w for w in words]
        x_categories += [f"\u2060{c}.{g}" for g in range(gap_x)] if c < n_grid_cols - 1 else []
    # One trace per colour scale, each only as large as the panels it draws (a difference panel beside two
    # attention panels must not double the data sent).
    traces: list[dict[str, object]] = []
    origins: dict[tuple[int, int], list[int]] = {}
    for axis in ("coloraxis", "coloraxis2"):
        cells = [
            (r, c)
            for r in range(n_grid_rows)
            for c in range(n_grid_cols)
            if ((r, c) in signed) == (axis != "coloraxis")
        ]
        if not cells:
            continue
        top, left = min(r for r, _ in cells) * (n + gap_y), min(c for _, c in cells) * (n + gap_x)
        bottom, right = max(r for r, _ in cells) * (n + gap_y) + n, max(c for _, c in cells) * (n + gap_x) + n
        z = np.full((bottom - top, right - left), np.nan, dtype=np.float32)
        for r, c in cells:
            row, column = r * (n + gap_y) - top, c * (n + gap_x) - left
            z[row : row + n, column : column + n] = values[r, c]
            origins[(r, c)] = [len(traces), row, column]
        traces.append(
            {
                "type": "heatmap",
                "z": z,
                "x": x_categories[left:right],
                "y": y_categories[top:bottom],
                "coloraxis": axis,
                "hoverongaps": False,
                "hovertemplate": _hover(number_format(z)),
            }
        )
    # Numbers in the cells when a panel's cells hold them (the gaps are NaN, which Plotly leaves blank), each scale's
    # with the decimals its own values need: a difference of 0.003 beside weights of 0.6.
    number_px = PLOT_PX["grid"] / (n_grid_cols * (n + gap_x))
    for trace in traces:
        trace |= _cell_numbers(cast("np.ndarray", trace["z"]), number_px, cell_px)
    step = -(-n // _MAX_TICKS)
    step_y = max(step, -(-n // max(4, panel_height // 14)))  # ≥ 14 px a label
    words_below = n_grid_cols <= 8  # 12 heads' panels are too narrow for words below them: the hover names them
    x_ticks = [i for c in range(n_grid_cols) for i in range(c * (n + gap_x), c * (n + gap_x) + n, step)]
    y_ticks = [i for r in range(n_grid_rows) for i in range(r * (n + gap_y), r * (n + gap_y) + n, step_y)]
    # Each panel is titled with its column ("H3"); the first panel of a row also names the row ("L2 H1"). Titles
    # with both names on every panel ran into each other once a row had 13 panels. Bold by the font, not <b>: a
    # title is then the name itself, which the app's translation of a figure looks up ("this head").
    titles = [
        [f"{row} {column}".strip() if c == 0 else column for c, column in enumerate(shown_columns)]
        for row in shown_rows
    ]
    if panel_names is not None:
        titles = [[translate(name) for name in row] for row in panel_names]
    names = panel_names or [[f"{row} {column}".strip() for column in column_names] for row in row_names]
    annotations = [
        {
            "text": titles[r][c],
            "showarrow": False,
            "xref": "x",
            "yref": "y",
            "x": c * (n + gap_x) + (n - 1) / 2,
            "y": r * (n + gap_y) - 0.5,
            "xanchor": "center",
            "yanchor": "bottom",
            "font": {"size": 13, "weight": "bold"},
        }
        for r in range(n_grid_rows)
        for c in range(n_grid_cols)
    ]
    layout = {
        "meta": {
            "panels": [name for row in names for name in row if name],
            "cell_px": number_px,
            "rows": labels,
            "cols": labels,
            "origins": [  # trace, row, col
                origins[(r, c)] for r in range(n_grid_rows) for c in range(n_grid_cols) if names[r][c]
            ],
        },
        "xaxis": {
            "type": "category",
            "categoryorder": "array",  # the grid's order, whichever trace names a category first
            "categoryarray": x_categories,
            "tickmode": "array",
            "tickvals": [x_categories[i] for i in x_ticks],
            "ticktext": [short[(i % (n + gap_x))] for i in x_ticks],
            "showticklabels": words_below,
            "tickangle": -60,
            "tickfont": {"size": 11},
            "showgrid": False,
            "zeroline": False,
            "autorange": "reversed" if rtl else True,
        },
        "yaxis": {
            "type": "category",
            "categoryorder": "array",
            "categoryarray": y_categories,
            "tickmode": "array",
            "tickvals": [y_categories[i] for i in y_ticks],
            "ticktext": [short[(i % (n + gap_y))] for i in y_ticks],
            "tickfont": {"size": 11},
            "showgrid": False,
            "zeroline": False,
            "autorange": "reversed",
            "side": "right" if rtl else "left",
        },
        # Every grid shows its scales: the weights' beside the grid, a signed panel's below it.
        "coloraxis": {
            "colorscale": BLUES,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": _grid_colour_bar(rtl, translate(N_("weight")), bool(signed)),
        },
        "annotations": annotations,
        "font": {"family": ARABIC_FONTS, "size": 12},
        "height": int(n_grid_rows * panel_height + (n_grid_rows - 1) * gap_y * cell_px + 50),
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "plot_bgcolor": "rgba(0,0,0,0)",
    }
    if signed:
        bound = max(float(np.abs(values[r, c]).max()) for r, c in signed) or 1e-6
        layout["coloraxis2"] = {
            "colorscale": RED_BLUE,
            "cmin": -bound,
            "cmax": bound,
            "colorbar": _grid_colour_bar(rtl, translate(signed_name), True, second=True),
        }
    return lean_figure(traces, layout)


def panel_strip(
    matrices: torch.Tensor,
    labels: list[str],
    names: list[str],
    *,
    across: bool,
    signed: frozenset[int] = frozenset(),
    rtl: bool = False,
    panel_height: int | None = None,
    translate: Translate = untranslated,
) -> go.Figure:
    """A few heatmaps over the same words (k × n × n, e.g. raw | this head | their difference), named `names`, as
    one `heatmap_grid`: side by side when `across`, else one under another (a phone's or a projector's width, where
    side by side would leave word columns unlabelled: figures.screen.panels_across decides). Either way each panel
    is named by its own name alone (layout.meta's panels, which lessons point at), and the panels listed in `signed`
    (their index) share the signed scale."""
    if across:
        grid, rows, columns, cells = matrices[None], [""], names, frozenset((0, i) for i in signed)
    else:
        grid, rows, columns, cells = matrices[:, None], names, [""], frozenset((i, 0) for i in signed)
    return heatmap_grid(
        grid,
        labels,
        row_names=rows,
        column_names=columns,
        rtl=rtl,
        panel_height=panel_height,
        signed=cells,
        translate=translate,
    )


def _grid_colour_bar(rtl: bool, title: str, shared: bool, second: bool = False) -> dict[str, object]:
    """A slim colour bar beside the grid (left of it when right to left, where the row labels are not); two scales
    share the side, one above the other."""
    bar: dict[str, object] = {"thickness": 10, "title": {"text": title, "side": "top"}, "outlinewidth": 0}
    if rtl:
        bar |= {"x": -0.01, "xanchor": "right"}
    if shared:
        bar |= {"len": 0.45, "y": 0.0 if second else 1.0, "yanchor": "bottom" if second else "top"}
    return bar


def figure_table(figure: go.Figure) -> pd.DataFrame:
    """The matrix behind a heatmap made by `heatmap`, with its full row and column labels (for CSV export); for a
    `heatmap_grid`, one long table: panel, row word, column word, value."""
    meta = figure.layout.meta
    if "panels" in meta:
        rows, cols = list(meta["rows"]), list(meta["cols"])
        grids = [np.asarray(trace.z, dtype=np.float64) for trace in figure.data]
        n = len(rows)
        frames = [
            pd.DataFrame(
                {
                    "panel": panel,
                    "row": np.repeat(rows, n),
                    "column": np.tile(cols, n),
                    "value": grids[trace][top : top + n, left : left + n].reshape(-1),
                }
            )
            for panel, (trace, top, left) in zip(meta["panels"], meta["origins"], strict=True)
        ]
        return pd.concat(frames, ignore_index=True)
    return pd.DataFrame(figure.data[0].z, index=list(meta["rows"]), columns=list(meta["cols"]))


def dimension_labels(d: int) -> list[str]:
    """Column labels for a matrix whose columns are the d dimensions of word vectors."""
    return [f"d{i}" for i in range(d)]


def product_shape(*matrices: torch.Tensor) -> str:
    """How the shapes of a matrix product combine, e.g. '(6 × 64)·(64 × 6) = (6 × 6)'."""
    parts = "·".join(f"({m.shape[0]} × {m.shape[1]})" for m in matrices)
    return f"{parts} = ({matrices[0].shape[0]} × {matrices[-1].shape[1]})"
