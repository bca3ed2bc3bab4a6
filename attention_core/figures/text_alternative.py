"""A heatmap in words, for a reader who cannot see it (WCAG 2.1, 1.1.1 Non-text content): a screen reader reads a
Plotly heatmap as an unlabelled run of numbers, or as nothing where the cells are too small for numbers.

The sentence says what a sighted reader looks for first: in each row, the column with the largest value (for a
word × word attention map, the word each word attends to most) and that value. A map too big to be read out row by
row is summed up by its largest cells; a grid of heads by the largest cell of each panel; a map of roles by each
cell's role; a map of columns (Fill the blank's "looked at" and "mattered") column by column. Every value is in the
table the app shows on request and in the CSV.

Pure: it reads the figure's own matrix and labels (layout.meta, as `heatmap`, `heatmap_grid` and the maps of heads
write them) and the app's `translate` for its words; tests/test_text_alternative.py checks it against the matrix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.figures.heatmaps import Translate, untranslated
from attention_core.figures.numbers import written_alone
from attention_core.words import N_

MAX_ROWS = 12  # a map with more rows is summed up by its largest cells: 13 rows read out is already a long listen
TOP_CELLS = 5  # how many cells a summary names
MAX_PANELS = 12  # a grid names the largest cell of at most this many panels (the largest of them)

UNTITLED = N_("This map")
BY_ROW = N_("{title}, {n_rows} rows × {n_cols} columns. The largest value in each row: {items}.")
BY_ROW_SIGNED = N_("{title}, {n_rows} rows × {n_cols} columns. The value furthest from 0 in each row: {items}.")
SUMMARY = N_(
    "{title}, {n_rows} rows × {n_cols} columns. Its {k} largest values: {items}. The table and the CSV have every "
    "value."
)
SUMMARY_SIGNED = N_(
    "{title}, {n_rows} rows × {n_cols} columns. Its {k} values furthest from 0: {items}. The table and the CSV have "
    "every value."
)
GRID = N_("{title}: {n} maps of {n_rows} × {n_cols}. The largest value of each: {items}.")
GRID_SOME = N_(
    "{title}: {n} maps of {n_rows} × {n_cols}. The {k} maps with the largest values, and their largest cell: "
    "{items}. The CSV has every value."
)
BY_COLUMN = N_("{title}. The largest value in each column: {items}.")
ROLES = N_("{title}: {items}.")
ROLES_LAST = N_("{title}, at {column}: {items}.")  # a map of roles over many steps: the last step's
MAX_ROLE_COLUMNS = 12
CELL = N_("{row} → {column} ({value})")  # one cell: a row's word, the column's word, the value
CELL_TEXT = N_("{row} → {column}: {text}")  # a cell that writes its own text (a guess and its probability)
PANEL_CELL = N_("{panel}: {row} → {column} ({value})")
COLUMN_CELL = N_("{column}: {row} ({value})")
ROLE_CELL = N_("{row} {column}: {role}")
SEPARATOR = N_("; ")

_TAGS = re.compile(r"<[^>]+>")
FSI, PDI = "\u2068", "\u2069"  # a first-strong isolate (Unicode's bidi algorithm, UAX #9), and its end
_INVISIBLE = "\u200b"


@dataclass(frozen=True)
class Panel:
    """One matrix of a figure with its row and column labels (a grid has one per head)."""

    name: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    values: np.ndarray  # (len(rows), len(cols)); NaN where the figure draws no cell


@dataclass(frozen=True)
class NamedCell:
    row: str
    column: str
    value: float
    text: str = ""  # what the cell writes, when that is more than its number


def plain_title(figure: go.Figure, translate: Translate = untranslated) -> str:
    """The figure's title as plain text (Plotly's <b>, <br>, <sup> taken out), or "This map"."""
    text = figure.layout.title.text or ""
    return " ".join(_TAGS.sub(" ", text).split()) or translate(UNTITLED)


def _labels(meta: dict, shown: object, key: str, n: int) -> tuple[str, ...]:
    """An axis's labels as the reader sees them (tick texts, already in the reader's language) when every row has
    one; else the figure's full labels."""
    if isinstance(shown, tuple | list) and len(shown) == n:
        return tuple(_TAGS.sub(" ", str(label)).replace(_INVISIBLE, "").strip() for label in shown)
    return tuple(str(label) for label in meta.get(key, range(n)))


def panels(figure: go.Figure) -> list[Panel]:
    """The figure's matrices: one per panel of a grid (`heatmap_grid`), else one, its heatmap traces laid over each
    other (Fill the blank's columns are a trace each, NaN elsewhere)."""
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}
    traces = [t for t in figure.data if t.type == "heatmap" and t.z is not None]
    if not traces:
        return []
    if "panels" in meta:
        rows, cols = tuple(map(str, meta["rows"])), tuple(map(str, meta["cols"]))
        grids = [np.asarray(t.z, dtype=np.float64) for t in traces]
        return [
            Panel(name, rows, cols, grids[trace][top : top + len(rows), left : left + len(cols)])
            for name, (trace, top, left) in zip(meta["panels"], meta["origins"], strict=True)
        ]
    values = np.asarray(traces[0].z, dtype=np.float64)
    for trace in traces[1:]:
        values = np.where(np.isnan(values), np.asarray(trace.z, dtype=np.float64), values)
    rows = _labels(meta, figure.layout.yaxis.ticktext, "rows", values.shape[0])
    cols = _labels(meta, figure.layout.xaxis.ticktext, "cols", values.shape[1])
    return [Panel("", rows, cols, values)]


def _i(label: str) -> str:
    """A word or name isolated in the sentence: "The" or "L1 H2" inside an Arabic sentence keeps its place, and
    takes no number or arrow with it (invisible, and not read aloud)."""
    return f"{FSI}{label}{PDI}"


def _signed(values: np.ndarray) -> bool:
    return bool(np.nanmin(values) < 0) if np.isfinite(values).any() else False


def _size(values: np.ndarray) -> np.ndarray:
    """What "largest" means: the value itself, or its distance from 0 on a map with negative values; NaN last."""
    size = np.abs(values) if _signed(values) else values.copy()
    return np.where(np.isnan(size), -np.inf, size)


def strongest_in_each_row(panel: Panel) -> list[NamedCell]:
    """Each row's largest value (furthest from 0 on a signed map) and its column; a row without values is left out."""
    size = _size(panel.values)
    return [
        NamedCell(panel.rows[i], panel.cols[int(np.argmax(row))], float(panel.values[i, int(np.argmax(row))]))
        for i, row in enumerate(size)
        if np.isfinite(row.max())
    ]


def strongest_in_each_column(panel: Panel) -> list[NamedCell]:
    return [NamedCell(c.column, c.row, c.value) for c in strongest_in_each_row(_transposed(panel))]


def _transposed(panel: Panel) -> Panel:
    return Panel(panel.name, panel.cols, panel.rows, panel.values.T)


def largest_cells(panel: Panel, k: int = TOP_CELLS) -> list[NamedCell]:
    """The k largest cells of the panel (furthest from 0 on a signed map), largest first."""
    size = _size(panel.values).reshape(-1)
    k = min(k, int(np.isfinite(size).sum()))
    if k == 0:
        return []
    top = np.argpartition(-size, k - 1)[:k]  # the k largest in linear time (a full sort of 512² took 20 ms)
    order = top[np.lexsort((top, -size[top]))]  # largest first, ties in reading order
    n_cols = panel.values.shape[1]
    return [NamedCell(panel.rows[i // n_cols], panel.cols[i % n_cols], float(panel.values.flat[i])) for i in order]


def _number(value: float, signed: bool) -> str:
    return written_alone(value, sign=signed)


def _cells(cells: list[NamedCell], signed: bool, translate: Translate) -> str:
    cell = translate(CELL)
    return translate(SEPARATOR).join(
        cell.format(row=_i(c.row), column=_i(c.column), value=_number(c.value, signed)) for c in cells
    )


def _cell_texts(figure: go.Figure, panel: Panel) -> dict[tuple[str, str], str]:
    """What each cell writes, when the figure gives cells their own text (the lens: a guess and its probability)."""
    trace = figure.data[0]
    if trace.text is None or not isinstance(trace.text, tuple | list):
        return {}
    return {
        (panel.rows[i], panel.cols[j]): " ".join(_TAGS.sub(" ", str(text)).split())
        for i, row in enumerate(trace.text)
        for j, text in enumerate(row)
    }


def text_alternative(figure: go.Figure, translate: Translate = untranslated, *, title: str = "") -> str:
    """The figure in a sentence or two, in the reader's language (`translate`, the app's); "" for a figure with no
    heatmap (a line chart, the query–key map's points). title: what the figure shows, when it has no title."""
    found = panels(figure)
    if not found:
        return ""
    title = plain_title(figure, translate) if figure.layout.title.text or not title else title
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}
    if len(found) > 1:
        return _grid(title, found, translate)
    panel = found[0]
    n_rows, n_cols = panel.values.shape
    signed = _signed(panel.values)
    if meta.get("kind") == "roles":
        return _roles(figure, title, panel, translate)
    if meta.get("kind") == "columns":
        column_cell = translate(COLUMN_CELL)
        items = translate(SEPARATOR).join(
            column_cell.format(column=_i(c.row), row=_i(c.column), value=_number(c.value, _signed(panel.values)))
            for c in strongest_in_each_column(panel)
        )
        return translate(BY_COLUMN).format(title=title, items=items)
    if n_rows > MAX_ROWS:
        cells = largest_cells(panel)
        template = SUMMARY_SIGNED if signed else SUMMARY
        items = _cells(cells, signed, translate)
        return translate(template).format(title=title, n_rows=n_rows, n_cols=n_cols, k=len(cells), items=items)
    cells = strongest_in_each_row(panel)
    texts = _cell_texts(figure, panel)  # (only a small map's: a 512-word map's 262,144 texts took 53 ms)
    if texts:
        cell_text = translate(CELL_TEXT)
        items = translate(SEPARATOR).join(
            cell_text.format(row=_i(c.row), column=_i(c.column), text=_i(texts[(c.row, c.column)])) for c in cells
        )
    else:
        items = _cells(cells, signed, translate)
    template = BY_ROW_SIGNED if signed else BY_ROW
    return translate(template).format(title=title, n_rows=n_rows, n_cols=n_cols, items=items)


def _grid(title: str, found: list[Panel], translate: Translate) -> str:
    """A grid of heads: each panel's largest cell; past MAX_PANELS, the panels whose largest cell is largest."""
    signed = any(_signed(p.values) for p in found)
    best = [(p, cells[0]) for p in found if (cells := largest_cells(p, 1))]
    shown = best
    if len(best) > MAX_PANELS:
        shown = sorted(best, key=lambda pc: -abs(pc[1].value) if signed else -pc[1].value)[:MAX_PANELS]
    panel_cell = translate(PANEL_CELL)
    items = translate(SEPARATOR).join(
        panel_cell.format(
            panel=_i(" ".join(translate(word) for word in p.name.split())),
            row=_i(c.row),
            column=_i(c.column),
            value=_number(c.value, signed),
        )
        for p, c in shown
    )
    n_rows, n_cols = found[0].values.shape
    template = GRID if len(shown) == len(best) else GRID_SOME
    return translate(template).format(
        title=title, n=len(found), n_rows=n_rows, n_cols=n_cols, k=len(shown), items=items
    )


def _roles(figure: go.Figure, title: str, panel: Panel, translate: Translate) -> str:
    """A map of roles: each cell's role, read from the colour bar's legend (the cell's value is the role's index)."""
    legend = list(figure.data[0].colorbar.ticktext or [])
    last = panel.values.shape[1] > MAX_ROLE_COLUMNS
    shown = panel.values[:, -1:] if last else panel.values
    role_cell = translate(ROLE_CELL)
    items = [
        role_cell.format(row=_i(panel.rows[i]), column="" if last else _i(panel.cols[j]), role=legend[int(value)])
        .replace("  ", " ")
        .replace(" :", ":")
        for (i, j), value in np.ndenumerate(shown)
        if np.isfinite(value) and 0 <= int(value) < len(legend)
    ]
    if last:
        return translate(ROLES_LAST).format(
            title=title, column=_i(panel.cols[-1]), items=translate(SEPARATOR).join(items)
        )
    return translate(ROLES).format(title=title, items=translate(SEPARATOR).join(items))


def as_table(panel: Panel) -> pd.DataFrame:
    """The panel as a table: its rows and columns labelled as on the figure (a repeated word keeps both)."""
    return pd.DataFrame(panel.values, index=list(panel.rows), columns=list(panel.cols))
