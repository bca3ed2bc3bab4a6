"""The query–key map as a Plotly scatter: each word's query (V1) and key (V2) on one plane, lines from each query
to the keys it attends to most. Built like heatmaps.py's figures (lean_figure); a pure function, record → figure.

Queries are filled circles and keys open diamonds, in two of Okabe & Ito's colours: told apart by shape alone, as a
colour-blind student needs. Both axes have the same scale (a unit is as long across as up), so distances on the map
are true distances on the plane. When queries and keys coincide (W1 and W2 both the identity) each word is labelled
once, above its key's diamond, which rings the query's circle at the same point.

The axis titles and hover texts carry numbers and words, which the app's translation of a figure (exact texts) does
not reach: the figure takes the app's `translate` and fills its templates in the reader's language itself.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core.figures.heatmaps import ARABIC_FONTS, Translate, lean_figure, untranslated
from attention_core.story.query_key_map import QueryKeyMap
from attention_core.words import N_

QUERY_COLOUR, KEY_COLOUR = "#0072B2", "#D55E00"  # Okabe & Ito's blue and vermilion
QUERY_TEXT, KEY_TEXT = "#08456b", "#8a3300"  # the same hues, dark enough for labels on white
LINE_COLOUR = "#444444"
# A line's width and opacity by its weight as a share of the largest drawn weight: four steps, one trace each
# (Plotly draws one style per trace, and every trace costs; docs/speed.md).
LINE_STEPS = ((0.25, 1.0, 0.25), (0.5, 1.8, 0.4), (0.75, 2.8, 0.6), (1.0, 4.0, 0.8))  # (up to, width px, opacity)
MAX_LABELLED = 40  # past this many words the points carry no text (it would be a blot); hovering names them
_MAX_LABEL = 18  # characters of a label drawn beside its point; hover gives it whole


def _short(label: str) -> str:
    return label if len(label) <= _MAX_LABEL else label[: _MAX_LABEL - 1] + "…"


def axis_title(axis: int, share: float, n_axes: int, kept: float = 1.0, translate: Translate = untranslated) -> str:
    """ "PC1 (62 % of the variance)"; the second axis of a one-dimensional head says it carries nothing."""
    if axis > n_axes:
        return translate(N_("PC{axis} (none: the head has one dimension)")).format(axis=axis)
    if share == 0.0 and kept == 1.0 and axis == 1:
        return translate(N_("PC1 (no variance: every point is the same)"))
    return translate(N_("PC{axis} ({share:.0f} % of the variance)")).format(axis=axis, share=100 * share)


def _lines(qk: QueryKeyMap) -> list[dict[str, object]]:
    """The query → key lines, in LINE_STEPS groups (None between segments: one trace draws many lines)."""
    largest = max((weight for _, _, weight in qk.pairs), default=0.0)
    traces: list[dict[str, object]] = []
    low = 0.0
    for up_to, width, opacity in LINE_STEPS:
        chosen = [(i, j) for i, j, weight in qk.pairs if low < weight / largest <= up_to] if largest > 0 else []
        low = up_to
        if not chosen:
            continue
        x: list[float | None] = []
        y: list[float | None] = []
        for i, j in chosen:
            x += [float(qk.queries[i, 0]), float(qk.keys[j, 0]), None]
            y += [float(qk.queries[i, 1]), float(qk.keys[j, 1]), None]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": x,
                "y": y,
                "line": {"color": LINE_COLOUR, "width": width},
                "opacity": opacity,
                "hoverinfo": "skip",
                "showlegend": False,
            }
        )
    return traces


# Where a label may sit around its point (Plotly's textposition), in the order tried, and its box's offset from the
# point in units of (label width, label height, marker radius) for x and y (y up): (centre x, centre y).
_PLACES = {
    "top center": ((0.0, 0.0, 0.0), (0.0, 0.5, 1.0)),
    "bottom center": ((0.0, 0.0, 0.0), (0.0, -0.5, -1.0)),
    "middle right": ((0.5, 0.0, 1.0), (0.0, 0.0, 0.0)),
    "middle left": ((-0.5, 0.0, -1.0), (0.0, 0.0, 0.0)),
    "top right": ((0.5, 0.0, 0.7), (0.0, 0.5, 0.7)),
    "top left": ((-0.5, 0.0, -0.7), (0.0, 0.5, 0.7)),
    "bottom right": ((0.5, 0.0, 0.7), (0.0, -0.5, -0.7)),
    "bottom left": ((-0.5, 0.0, -0.7), (0.0, -0.5, -0.7)),
}
_PLOT_PX = (880, -130)  # the plot area of a full-width map on a 1400-px screen: its width, and its height less this
_CHARACTER_PX, _LINE_PX, _MARKER_PX = 7.5, 17.0, 7.0  # a 14-px label's width per character and height; a marker


def place_labels(points: np.ndarray, labels: list[str | None], first: list[str], scale: float) -> list[str]:
    """A textposition for each label (points (m, 2) in data units, `scale` px per unit; None: a point without a
    label), chosen greedily: the first choice (e.g. queries above, keys below) unless its label would cover a label
    already placed or a point, then the first place in _PLACES order that covers nothing, or the one that covers
    least. Labels of points drawn on top of each other can still meet: hovering names each point."""
    px = points * scale
    dots = np.concatenate([px - _MARKER_PX, px + _MARKER_PX], axis=1)  # (m, 4) x0, y0, x1, y1 in px
    boxes = np.zeros((len(labels), 4))  # the labels' boxes as placed
    chosen = []
    for i, label in enumerate(labels):
        if label is None:
            chosen.append(first[i])
            continue
        names = [first[i], *(p for p in _PLACES if p != first[i])]
        offsets = np.array([_PLACES[name] for name in names])  # (8, 2 (x, y), 3 (width, height, marker))
        size = np.array([_CHARACTER_PX * len(label), _LINE_PX, _MARKER_PX])
        centres = px[i] + offsets @ size  # (8, 2)
        half = size[:2] / 2
        candidates = np.concatenate([centres - half, centres + half], axis=1)  # (8, 4)
        others = np.concatenate([boxes[:i][[name is not None for name in labels[:i]]], np.delete(dots, i, axis=0)])
        overlap_x = np.minimum(candidates[:, None, 2], others[None, :, 2]) - np.maximum(
            candidates[:, None, 0], others[None, :, 0]
        )
        overlap_y = np.minimum(candidates[:, None, 3], others[None, :, 3]) - np.maximum(
            candidates[:, None, 1], others[None, :, 1]
        )
        covered = (overlap_x.clip(0) * overlap_y.clip(0)).sum(1)  # (8,) px² each place would cover
        free = np.flatnonzero(covered == 0)
        best = int(free[0]) if free.size else int(covered.argmin())
        chosen.append(names[best])
        boxes[i] = candidates[best]
    return chosen


def _range(values: np.ndarray) -> list[float]:
    """An axis range with room around the points for their labels."""
    low, high = float(values.min()), float(values.max())
    pad = max(0.12 * (high - low), 1e-3 if high == low else 0.0)
    return [low - pad, high + pad]


def query_key_figure(
    qk: QueryKeyMap,
    labels: list[str],
    *,
    rtl: bool = False,
    height: int | None = None,
    translate: Translate = untranslated,
) -> go.Figure:
    """The map of `qk` with each point labelled by its word (labels: one per word, as typed). rtl: the legend starts
    on the right, where a right-to-left reader starts (the plane itself has no reading direction). translate: the
    app's, for the legend, the axis titles and the hover."""
    n = qk.queries.shape[0]
    height = height or min(720, 520 + 8 * n)  # more words, more room for their labels
    if len(labels) != n:
        raise ValueError(f"{n} words on the map but {len(labels)} labels")
    strongest = {i: (j, weight) for i, j, weight in reversed(qk.pairs)}  # each query's first (strongest) pair
    query_hover, strongest_hover = (
        translate(N_("{word}: query (V1)")),
        translate(N_("{word}: query (V1)<br>attends most to {key} ({weight:.2f})")),
    )
    hover_query = [
        strongest_hover.format(word=label, key=labels[strongest[i][0]], weight=strongest[i][1])
        if i in strongest
        else query_hover.format(word=label)
        for i, label in enumerate(labels)
    ]
    text = [_short(label) for label in labels] if n <= MAX_LABELLED else None
    queries, keys = qk.queries.numpy(), qk.keys.numpy()
    both = np.concatenate([queries, keys])
    x_range, y_range = _range(both[:, 0]), _range(both[:, 1])
    # One cloud: each word's label goes on its key, the larger marker around the query, and above it.
    query_text, key_text = (None, text) if qk.same_points else (text, text)
    places = ["top center"] * n + ["top center" if qk.same_points else "bottom center"] * n
    if text:  # px per unit: both axes share one scale, set by the range that needs the most room
        scale = min(_PLOT_PX[0] / (x_range[1] - x_range[0]), (height + _PLOT_PX[1]) / (y_range[1] - y_range[0]))
        unlabelled: list[str | None] = [None] * n
        places = place_labels(both, [*(query_text or unlabelled), *text], places, scale)
    points: list[dict[str, object]] = [
        {
            "type": "scatter",
            "mode": "markers+text" if query_text else "markers",
            "name": translate(N_("query (V1) = key (V2)") if qk.same_points else N_("query (V1)")),
            "x": queries[:, 0],
            "y": queries[:, 1],
            "text": query_text,
            "textposition": places[:n],
            "textfont": {"color": QUERY_TEXT},
            "marker": {"symbol": "circle", "size": 10, "color": QUERY_COLOUR, "line": {"width": 1, "color": "white"}},
            "hovertext": hover_query,
            "hoverinfo": "text",
        },
        {
            "type": "scatter",
            "mode": "markers+text" if key_text else "markers",
            "name": translate(N_("key (V2)")),
            "x": keys[:, 0],
            "y": keys[:, 1],
            "text": key_text,
            "textposition": places[n:],
            "textfont": {"color": QUERY_TEXT if qk.same_points else KEY_TEXT},
            "marker": {"symbol": "diamond-open", "size": 15, "color": KEY_COLOUR, "line": {"width": 2.5}},
            "hovertext": [translate(N_("{word}: key (V2)")).format(word=label) for label in labels],
            "hoverinfo": "text",
            "showlegend": not qk.same_points,  # one cloud: the legend's first entry names both
        },
    ]
    axis = {"zeroline": False, "showgrid": True, "gridcolor": "rgba(128,128,128,0.2)", "tickfont": {"size": 12}}
    layout = {
        "meta": {"kind": "query_key", "rows": labels, "kept": qk.kept, "n_axes": qk.n_axes},
        # Naskh letters are small for their size: Arabic labels get a larger size to read as large as Latin ones.
        "font": {"family": ARABIC_FONTS, "size": 16 if rtl else 14},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "legend": {"orientation": "h", "x": 1.0 if rtl else 0.0, "y": 1.02, "xanchor": "right" if rtl else "left"}
        | {"yanchor": "bottom"},
        "xaxis": axis
        | {"title": {"text": axis_title(1, qk.axis_shares[0], qk.n_axes, qk.kept, translate)}, "range": x_range},
        # The same scale on both axes: a unit up is as long as a unit across (Plotly widens one range to keep it).
        "yaxis": axis
        | {
            "title": {"text": axis_title(2, qk.axis_shares[1], qk.n_axes, translate=translate)},
            "range": y_range,
            "scaleanchor": "x",
            "scaleratio": 1,
            "side": "right" if rtl else "left",  # as every heatmap of a right-to-left sentence
        },
        "hovermode": "closest",
        "plot_bgcolor": "rgba(0,0,0,0)",
    }
    return lean_figure([*_lines(qk), *points], layout)
