"""Maps of a model's heads, one cell per head (layers × heads): their roles, how much each matters, and the roles
over a training run. Pure functions (record → figure), built like heatmaps.py's figures (lean_figure).

The roles' names are data inside these figures (each cell's text, the hover, the legend's ticks), which the app's
translation of a figure does not reach: a figure takes the app's `translate` and writes them in the reader's
language itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import plotly.graph_objects as go
import torch

from attention_core.figures.heatmaps import ARABIC_FONTS, BLUES, RED_BLUE, Translate, lean_figure, untranslated
from attention_core.figures.numbers import written_alone
from attention_core.head_names import head_column_name, head_name, layer_name
from attention_core.models.head_importance import HeadImportance
from attention_core.models.head_roles import ROLES, HeadRoles
from attention_core.words import N_

# One colour per role (Okabe & Ito's palette, which colour-blind readers tell apart), in ROLES order.
ROLE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#999999", "#CC79A7", "#F0E442")
# The roles' names as a reader sees them (ROLES, marked for the catalog), and the short ones written in the cells.
ROLE_NAMES = {
    "previous word": N_("previous word"),
    "next word": N_("next word"),
    "self": N_("self"),
    "sink": N_("sink"),
    "broad": N_("broad"),
    "mixed": N_("mixed"),
}
ROLE_SHORT = {
    "previous word": N_("prev"),
    "next word": N_("next"),
    "self": N_("self"),
    "sink": N_("sink"),
    "broad": N_("broad"),
    "mixed": N_("mixed"),
}
# A head's five scores, in the hover of the map of roles.
SCORES_LINE = N_("previous {previous:.2f}, next {next:.2f}, self {self:.2f}, sink {sink:.2f}, broad {broad:.2f}")
KNOCKED = "✕ "  # marks a knocked-out head's cell


def _discrete_scale() -> list[list[object]]:
    """A colour scale of len(ROLES) flat bands, so z = role index picks the role's colour."""
    k = len(ROLES)
    scale: list[list[object]] = []
    for i, colour in enumerate(ROLE_COLOURS):
        scale += [[i / k, colour], [(i + 1) / k, colour]]
    return scale


def _role_text(roles: HeadRoles, layer: int, head: int, translate: Translate) -> str:
    """ "prev 0.72": the role and the score that named it; a mixed head has no such score."""
    role = roles.roles[layer][head]
    short = translate(ROLE_SHORT[role])
    return short if role == "mixed" else f"{short} {roles.score_of(layer, head):.2f}"


def _role_legend(translate: Translate) -> list[str]:
    return [translate(ROLE_NAMES[role]) for role in ROLES]


def _head_axes(n_layers: int, n_heads: int, rtl: bool) -> dict[str, object]:
    heads, layers = [head_column_name(h) for h in range(n_heads)], [layer_name(layer) for layer in range(n_layers)]
    return {
        "xaxis": {"type": "category", "tickvals": heads, "ticktext": heads, "side": "top", "tickfont": {"size": 13}}
        | ({"autorange": "reversed"} if rtl else {}),
        "yaxis": {
            "type": "category",
            "tickvals": layers,
            "ticktext": layers,
            "autorange": "reversed",
            "tickfont": {"size": 13},
        }
        | ({"side": "right"} if rtl else {}),
        "x": heads,
        "y": layers,
    }


def _height(n_rows: int) -> int:
    return 110 + 42 * n_rows


def role_map(
    roles: HeadRoles,
    *,
    knocked: Sequence[tuple[int, int]] = (),
    rtl: bool = False,
    translate: Translate = untranslated,
) -> go.Figure:
    """Layers × heads, each cell coloured by the head's role and showing the score that named it; a legend of the
    roles as the colour bar. Knocked-out heads are marked ✕. translate: the app's, for the roles' names."""
    n_layers, n_heads = roles.scores.shape[:2]
    axes = _head_axes(n_layers, n_heads, rtl)
    z = [[ROLES.index(roles.roles[layer][head]) for head in range(n_heads)] for layer in range(n_layers)]
    text = [
        [
            (KNOCKED if (layer, head) in knocked else "") + _role_text(roles, layer, head, translate)
            for head in range(n_heads)
        ]
        for layer in range(n_layers)
    ]
    scores_line = translate(SCORES_LINE)
    names = ("previous", "next", "self", "sink", "broad")
    hover = [
        [
            f"{head_name(layer, head, translate)}: {translate(ROLE_NAMES[roles.roles[layer][head]])}<br>"
            + scores_line.format(**dict(zip(names, roles.table[layer][head], strict=True)))
            for head in range(n_heads)
        ]
        for layer in range(n_layers)
    ]
    k = len(ROLES)
    trace = {
        "type": "heatmap",
        "z": z,
        "x": axes["x"],
        "y": axes["y"],
        "zmin": -0.5,
        "zmax": k - 0.5,
        "colorscale": _discrete_scale(),
        "text": text,
        "texttemplate": "%{text}" if n_heads <= 6 else "",
        "textfont": {"size": 12},
        "customdata": hover,
        "hovertemplate": "%{customdata}<extra></extra>",
        "xgap": 2,
        "ygap": 2,
        "colorbar": {
            "tickvals": list(range(k)),
            "ticktext": _role_legend(translate),
            "thickness": 14,
            "title": {"text": translate(N_("role")), "side": "top"},
        }
        | ({"x": -0.01, "xanchor": "right"} if rtl else {}),
    }
    layout = _layout(axes, n_layers, "roles", rtl)
    layout["height"] = max(260, _height(n_layers))  # the legend's six roles need the room on a 1- or 2-layer model
    return lean_figure([trace], layout)


def head_values(
    values: torch.Tensor,
    *,
    scale_title: str,
    signed: bool,
    knocked: Sequence[tuple[int, int]] = (),
    rtl: bool = False,
    largest: float | None = None,
    unit: str = "",
    least_decimals: int = 2,
) -> go.Figure:
    """Layers × heads, one number per head (values (n_layers, n_heads)), written in its cell with its own two
    significant digits and at least `least_decimals`; knocked-out heads are marked ✕; the hover adds `unit` ("°";
    the cells leave it to the colour bar's title, where 12 heads leave little room). signed: a scale symmetric
    around 0 (red below, blue above), and a + before a positive number; else white 0 to blue at `largest` (a
    share's 1, so 0.02 looks small) or, without it, at the largest value (a ranking)."""
    values = values.detach().float()
    n_layers, n_heads = values.shape
    axes = _head_axes(n_layers, n_heads, rtl)
    bound = largest or float(values.abs().max()) or 1e-6
    colours: dict[str, object] = (
        {"colorscale": RED_BLUE, "zmin": -bound, "zmax": bound}
        if signed
        else {"colorscale": BLUES, "zmin": 0.0, "zmax": bound}
    )
    # Each number with its own two significant digits (figures/numbers.py): 0.24 beside 0.0002, never 0.00 for a
    # head that changed something; the hover gives three.
    mark = [[KNOCKED if (layer, head) in knocked else "" for head in range(n_heads)] for layer in range(n_layers)]
    text = [
        [
            mark[layer][head] + written_alone(float(values[layer, head]), sign=signed, least=least_decimals)
            for head in range(n_heads)
        ]
        for layer in range(n_layers)
    ]
    hover = [
        [
            written_alone(float(values[layer, head]), significant=3, sign=signed, least=least_decimals)
            for head in range(n_heads)
        ]
        for layer in range(n_layers)
    ]
    trace = {
        "type": "heatmap",
        "z": values.numpy(),
        "x": axes["x"],
        "y": axes["y"],
        "text": text,
        "texttemplate": "%{text}",
        "textfont": {"size": 11 if n_heads > 6 else 13},
        "customdata": hover,
        "hovertemplate": "%{y} %{x}: %{customdata}" + unit + "<extra></extra>",
        "xgap": 2,
        "ygap": 2,
        "colorbar": {"thickness": 12, "title": {"text": scale_title, "side": "top"}}
        | ({"x": -0.01, "xanchor": "right"} if rtl else {}),
        **colours,
    }
    return lean_figure([trace], _layout(axes, n_layers, "signed" if signed else "weights", rtl))


def importance_map(
    importance: HeadImportance, *, knocked: Sequence[tuple[int, int]] = (), rtl: bool = False
) -> go.Figure:
    """How much knocking each head out alone moves the answer (HeadImportance). A guess's fall can be negative (it
    grew surer without the head), so that measure gets a scale symmetric around 0; the sentence's turn is in
    degrees."""
    guess = importance.measure == "guess"
    if guess:
        return head_values(importance.scores, scale_title=N_("fall in p"), signed=True, knocked=knocked, rtl=rtl)
    angle = N_("angle (°)")  # one decimal is enough for a turn: 0.54, 5.9, 40.4
    return head_values(
        importance.scores, scale_title=angle, signed=False, knocked=knocked, rtl=rtl, unit="°", least_decimals=1
    )


def roles_over_training(
    steps: Sequence[int],
    roles: Sequence[HeadRoles],
    *,
    picked: int | None = None,
    translate: Translate = untranslated,
) -> go.Figure:
    """One row per head, one column per snapshot of a training run: each cell the head's role at that step, so the
    roles can be seen to emerge. picked: a snapshot's column to outline (the one a slider shows in detail).
    translate: the app's, for the roles' names."""
    n_layers, n_heads = roles[0].scores.shape[:2]
    rows = [head_name(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    columns = [f"{step:,}" for step in steps]
    z = torch.tensor(
        [[ROLES.index(r.roles[layer][head]) for r in roles] for layer in range(n_layers) for head in range(n_heads)]
    )
    at_step = translate(N_("step {step:,} · {head}: {role}"))
    hover = [
        [
            at_step.format(
                step=step,
                head=head_name(i // n_heads, i % n_heads, translate),
                role=translate(ROLE_NAMES[r.roles[i // n_heads][i % n_heads]]),
            )
            for step, r in zip(steps, roles, strict=True)
        ]
        for i in range(len(rows))
    ]
    k = len(ROLES)
    trace = {
        "type": "heatmap",
        "z": z.numpy(),
        "x": columns,
        "y": rows,
        "zmin": -0.5,
        "zmax": k - 0.5,
        "colorscale": _discrete_scale(),
        "customdata": hover,
        "hovertemplate": "%{customdata}<extra></extra>",
        "ygap": 1,
        "colorbar": {"tickvals": list(range(k)), "ticktext": _role_legend(translate), "thickness": 14},
    }
    layout = {
        "meta": {"rows": rows, "cols": columns, "kind": "roles", "cell_px": 700 / max(1, len(columns))},
        "font": {"family": ARABIC_FONTS, "size": 13},
        "height": 90 + 22 * len(rows),
        "margin": {"l": 10, "r": 10, "t": 20, "b": 10},
        "xaxis": {"type": "category", "title": {"text": N_("training step")}, "tickfont": {"size": 12}},
        "yaxis": {"type": "category", "autorange": "reversed", "tickfont": {"size": 12}},
    }
    if picked is not None:  # a category axis places column i at x = i
        column = {"x0": picked - 0.5, "x1": picked + 0.5, "y0": 0, "y1": 1}
        layout["shapes"] = [{"type": "rect", "xref": "x", "yref": "paper", **column, "line": {"color": "#222222"}}]
    return lean_figure([trace], layout)


def _layout(axes: dict[str, object], n_layers: int, kind: str, rtl: bool) -> dict[str, object]:
    return {
        "meta": {
            "rows": axes["y"],
            "cols": axes["x"],
            "kind": kind,
            "cell_px": 700 / len(cast("list[str]", axes["x"])),
        },
        "font": {"family": ARABIC_FONTS, "size": 13},
        "height": _height(n_layers),
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "xaxis": axes["xaxis"],
        "yaxis": axes["yaxis"],
        "plot_bgcolor": "rgba(0,0,0,0)",
    }


def clickable_heads_map(
    roles: HeadRoles,
    *,
    knocked: Sequence[tuple[int, int]] = (),
    rtl: bool = False,
    translate: Translate = untranslated,
) -> go.Figure:
    """The heads as squares to click (layers × heads, coloured by role; a knocked-out head faded and marked ✕).
    Points, not a heatmap: Streamlit reports clicks on a scatter's points, not on a heatmap's cells. Each point's
    customdata is its (layer, head), from 0. translate: the app's, for the roles' names."""
    n_layers, n_heads = roles.scores.shape[:2]
    axes = _head_axes(n_layers, n_heads, rtl)
    height = 110 + 60 * n_layers
    side = int(min(660 / n_heads, (height - 150) / n_layers) * 0.82)  # a square's side in px, with a gap around it
    heads = [(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    role_of = [roles.roles[layer][head] for layer, head in heads]
    points = {
        "type": "scatter",
        "mode": "markers+text",
        "x": [head_column_name(head) for _, head in heads],
        "y": [layer_name(layer) for layer, _ in heads],
        "customdata": [[layer, head] for layer, head in heads],
        "text": [KNOCKED.strip() if h in knocked else "" for h in heads],
        "textposition": "middle center",
        "textfont": {"size": max(12, side // 2), "color": "#000000"},
        "marker": {
            "symbol": "square",
            "size": side,
            "color": [ROLE_COLOURS[ROLES.index(role)] for role in role_of],
            "opacity": [0.3 if h in knocked else 1.0 for h in heads],
            "line": {"width": 0},
        },
        "hovertext": [
            translate(N_("{head}: {role} (knocked out)") if (layer, head) in knocked else N_("{head}: {role}")).format(
                head=head_name(layer, head, translate), role=translate(ROLE_NAMES[role])
            )
            for (layer, head), role in zip(heads, role_of, strict=True)
        ],
        "hoverinfo": "text",
        "showlegend": False,
    }
    # The legend: one invisible point per role, so the colours are named without a colour bar.
    legend = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": [None],
            "y": [None],
            "name": name,
            "marker": {"symbol": "square", "size": 14, "color": colour},
            "hoverinfo": "skip",
        }
        for name, colour in zip(_role_legend(translate), ROLE_COLOURS, strict=True)
    ]
    layout = _layout(axes, n_layers, "roles", rtl) | {
        "height": height,
        "legend": {
            "orientation": "h",
            "y": -0.02,
            "yanchor": "top",
            "x": 1.0 if rtl else 0.0,
            "xanchor": "right" if rtl else "left",
        },
        "clickmode": "event+select",
        "dragmode": False,
    }
    # Points, unlike a heatmap's cells, can leave a category out of the axis order: name the order, as the maps do.
    for axis, names in (("xaxis", axes["x"]), ("yaxis", axes["y"])):
        layout[axis] = {
            **cast("dict[str, object]", layout[axis]),
            "categoryorder": "array",
            "categoryarray": names,
            "showgrid": False,
        }
    return lean_figure([points, *legend], layout)
