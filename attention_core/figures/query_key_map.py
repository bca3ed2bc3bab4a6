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
from attention_core.figures.label_placement import Placement, PlotRange, place_labels
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
    queries, keys = qk.queries.numpy(), qk.keys.numpy()  # a numpy element is read faster than a tensor's
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
            x += [float(queries[i, 0]), float(keys[j, 0]), None]
            y += [float(queries[i, 1]), float(keys[j, 1]), None]
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


# The screens the map must read on (label_placement.PlotRange), by its plot area's width in px, measured in Chromium: a
# 390-px phone (271; 278 in Arabic, whose y axis is on the right) up to a chart WIDE_PX wide, and wider; in
# presentation mode (fonts and height × 1.4, screen.PRESENTATION_SCALE), a 1024-px projector with the sidebar open
# (390) and a 1280 × 720 one (639). The plot is narrower than the chart by 80–125 px (the y axis's ticks and title).
# Furniture: the px of the figure's height that are not plot (margins, ticks, titles, the legend below): 138 at 14-px
# type, 167 at 20.
WIDE_PX = 680  # a chart at least this wide (CSS px) also shows the labels that fit only on wide screens
FURNITURE_PX, PRESENTATION_FURNITURE_PX, PRESENTATION = 140.0, 170.0, 1.4
SCREENS = (
    PlotRange("a phone, a narrow window", widths=(255.0, WIDE_PX - 75.0), furniture=FURNITURE_PX),
    PlotRange("a wide window", widths=(WIDE_PX - 130.0, 2400.0), furniture=FURNITURE_PX, wide=True),
    PlotRange(
        "a narrow projector",
        widths=(380.0, WIDE_PX - 75.0),
        furniture=PRESENTATION_FURNITURE_PX,
        text_scale=PRESENTATION,
    ),
    PlotRange(
        "a wide projector",
        widths=(WIDE_PX - 130.0, 2400.0),
        furniture=PRESENTATION_FURNITURE_PX,
        text_scale=PRESENTATION,
        wide=True,
    ),
)
# The labels that fit only on wide screens are drawn by traces of their own, which the page shows only in a chart at
# least WIDE_PX wide, by a CSS container query. Plotly lets nothing of a trace name its SVG elements (plotly.io.to_json
# drops a trace's uid), so their font's family list starts with WIDE_FONT, a name no font has: the browser passes
# over it to the next, and the CSS finds it in the text's style. A browser without container queries (before 2023)
# shows the labels that fit everywhere, and no more.
WIDE_FONT = "wide-screen-label"
_WIDE_TEXT = f'.js-plotly-plot text[style*="{WIDE_FONT}"]'
WIDE_LABELS_CSS = f"""<style>
[data-testid="stElementContainer"]:has({_WIDE_TEXT}) {{ container-type: inline-size; }}
{_WIDE_TEXT} {{ display: none; }}
@container (min-width: {WIDE_PX}px) {{ {_WIDE_TEXT} {{ display: inline; }} }}
</style>"""
QUERY_SIZE, KEY_SIZE = 10, 15  # the markers' Plotly sizes; their reach from the centre in px, line included:
QUERY_REACH, KEY_REACH = QUERY_SIZE / 2 + 1, 1.3 * KEY_SIZE / 2 + 1.25  # a circle's radius, a diamond's half-diagonal


def query_key_figure(
    qk: QueryKeyMap,
    labels: list[str],
    *,
    rtl: bool = False,
    height: int | None = None,
    translate: Translate = untranslated,
    screens: tuple[PlotRange, ...] = SCREENS,
) -> go.Figure:
    """The map of `qk` with each point labelled by its word (labels: one per word, as typed). rtl: the legend starts
    on the right, where a right-to-left reader starts (the plane itself has no reading direction). translate: the
    app's, for the legend, the axis titles and the hover. screens: where the labels must read (see SCREENS); a
    label that would cover another label, a point or the plot's edge there is left to the hover, and meta["hidden"]
    says how many are, on a narrow screen and on a wide one (the page's caption tells the reader)."""
    n = qk.queries.shape[0]
    height = height or min(720, 520 + 8 * n)  # more words, more room for their labels
    if len(labels) != n:
        raise ValueError(f"{n} words on the map but {len(labels)} labels")
    text = [_short(label) for label in labels] if n <= MAX_LABELLED else None
    # One cloud: each word's label goes on its key, the larger marker around the query, and above it.
    query_text, key_text = (None, text) if qk.same_points else (text, text)
    font = 16 if rtl else 14  # Naskh letters are small for their size: Arabic gets a larger size to read as large
    placement = _placement(qk, query_text, key_text, font, height, screens)
    traces = _point_traces(qk, labels, placement, query_text, key_text, translate)
    hidden = {kind: placement.hidden(wide=kind == "wide") for kind in ("narrow", "wide")}
    layout = _layout(qk, labels, placement, hidden, font, height, rtl, translate)
    return lean_figure([*_lines(qk), *traces], layout)


def _placement(
    qk: QueryKeyMap,
    query_text: list[str] | None,
    key_text: list[str] | None,
    font: float,
    height: float,
    screens: tuple[PlotRange, ...],
) -> Placement:
    """Where the labels go: queries above their circles and keys below their diamonds, unless that covers something;
    one cloud, each label above its key."""
    n = qk.queries.shape[0]
    points = np.concatenate([qk.queries.numpy(), qk.keys.numpy()]).astype(np.float64)
    unlabelled: list[str | None] = [None] * n
    first = ["top center"] * n + ["top center" if qk.same_points else "bottom center"] * n
    sizes = np.array([QUERY_SIZE] * n + [KEY_SIZE] * n, dtype=np.float64)
    reach = np.array([QUERY_REACH] * n + [KEY_REACH] * n)
    words = [*(query_text or unlabelled), *(key_text or unlabelled)]
    return place_labels(points, words, first, sizes, reach, font=font, height=height, screens=screens)


def _point_traces(
    qk: QueryKeyMap,
    labels: list[str],
    placement: Placement,
    query_text: list[str] | None,
    key_text: list[str] | None,
    translate: Translate,
) -> list[dict[str, object]]:
    """The queries' circles and the keys' diamonds, each with the labels that fit on every screen; then, in traces of
    their own (their font WIDE_FONT, shown only on wide screens), the labels that fit only there. A label placed
    nowhere is left out: hovering names its point."""
    n = qk.queries.shape[0]
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
    hover_key = [translate(N_("{word}: key (V2)")).format(word=label) for label in labels]
    names = (translate(N_("query (V1) = key (V2)") if qk.same_points else N_("query (V1)")), translate(N_("key (V2)")))
    markers = (
        {"symbol": "circle", "size": QUERY_SIZE, "color": QUERY_COLOUR, "line": {"width": 1, "color": "white"}},
        {"symbol": "diamond-open", "size": KEY_SIZE, "color": KEY_COLOUR, "line": {"width": 2.5}},
    )
    traces: list[dict[str, object]] = []
    wide: list[dict[str, object]] = []
    for k, (xy, text, hover) in enumerate(((qk.queries, query_text, hover_query), (qk.keys, key_text, hover_key))):
        colour = {"color": QUERY_TEXT if k == 0 or qk.same_points else KEY_TEXT}
        places, wide_places = (placed[k * n : (k + 1) * n] for placed in (placement.places, placement.wide_places))
        shown = [word if place else "" for word, place in zip(text, places, strict=True)] if text else None
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text" if shown else "markers",
                "name": names[k],
                "x": xy.numpy()[:, 0],
                "y": xy.numpy()[:, 1],
                "text": shown,
                "textposition": [place or "top center" for place in places],
                "textfont": colour,
                "marker": markers[k],
                "hovertext": hover,
                "hoverinfo": "text",
                "showlegend": k == 0 or not qk.same_points,  # one cloud: the legend's first entry names both
            }
        )
        only_wide = [i for i, place in enumerate(wide_places) if place]
        if text and only_wide:  # the same markers, invisible: Plotly sets text around a marker by its size
            wide.append(
                {
                    "type": "scatter",
                    "mode": "markers+text",
                    "x": xy.numpy()[only_wide, 0],
                    "y": xy.numpy()[only_wide, 1],
                    "text": [text[i] for i in only_wide],
                    "textposition": [wide_places[i] for i in only_wide],
                    "textfont": colour | {"family": f"{WIDE_FONT}, {ARABIC_FONTS}"},
                    "marker": {"size": markers[k]["size"], "opacity": 0},
                    "hoverinfo": "skip",
                    "showlegend": False,
                }
            )
    return traces + wide


def _layout(
    qk: QueryKeyMap,
    labels: list[str],
    placement: Placement,
    hidden: dict[str, int],
    font: float,
    height: int,
    rtl: bool,
    translate: Translate,
) -> dict[str, object]:
    """Equal axes over the placement's ranges, and the legend below the plot, where Plotly's toolbar (top right)
    cannot cover it. meta's hidden: how many labels are left to the hover on a narrow and on a wide screen."""
    axis = {"zeroline": False, "showgrid": True, "gridcolor": "rgba(128,128,128,0.2)", "tickfont": {"size": 12}}
    return {
        "meta": {"kind": "query_key", "rows": labels, "kept": qk.kept, "n_axes": qk.n_axes} | {"hidden": hidden},
        "font": {"family": ARABIC_FONTS, "size": font},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "legend": {"orientation": "h", "x": 1.0 if rtl else 0.0, "xanchor": "right" if rtl else "left"}
        | {"y": 0.0, "yref": "container", "yanchor": "bottom"},
        "xaxis": axis
        | {
            "title": {"text": axis_title(1, qk.axis_shares[0], qk.n_axes, qk.kept, translate)},
            "range": list(placement.x_range),
        },
        # The same scale on both axes: a unit up is as long as a unit across (Plotly widens one range to keep it).
        "yaxis": axis
        | {
            "title": {"text": axis_title(2, qk.axis_shares[1], qk.n_axes, translate=translate)},
            "range": list(placement.y_range),
            "scaleanchor": "x",
            "scaleratio": 1,
            "side": "right" if rtl else "left",  # as every heatmap of a right-to-left sentence
        },
        "hovermode": "closest",
        "plot_bgcolor": "rgba(0,0,0,0)",
    }
