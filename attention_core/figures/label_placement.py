"""Labels beside a scatter's points that cover no other label, no other point and no edge of the plot, on every screen
the figure is drawn on: a 390-px phone, a desktop, a 1280 × 720 projector in presentation mode. Plotly puts text where
it is told (textposition) and never looks whether it collides.

A figure is built once, on the server, and drawn at whatever width the browser gives it. With equal axes
(scaleanchor) the pixels per data unit, s, follow that width: s = min(plot width / x span, plot height / y span). A
label is a box of fixed pixels at a fixed pixel offset from its point, so two labels that clear each other at one s
can meet at another (when each sits on the far side of the other's point). So each candidate position is checked over
the whole interval of s that a screen can give, exactly: every overlap condition is linear in s. A label that fits
nowhere is left to the hover (its text empty), and the figure says how many are.

Sizes are estimates: a character's width in ems (_EMS, measured in Chromium with the figures' fonts: DejaVu Sans
for Latin, Noto Naskh Arabic, whose letters joined in a word are narrower than the isolated forms counted here) and
Plotly's own rule for where text goes around a marker (textPointPosition in plotly.js's drawing/index.js).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

# A character's width in ems, by group (DejaVu Sans and Noto Naskh Arabic, measured at 100 px in Chromium); the rest
# 0.65 (a lowercase letter or digit: 0.55–0.63), and a mark that sits on a letter (a haraka) nothing.
_EMS = (
    ("!',.:;Iijl|اأإآٱـ", 0.3),
    (" ", 0.33),
    ('"()-/[\\]frt’', 0.45),
    ("ABCDEFGHJKLNOPQRSTUVXYZ#&+<=>^~${}_*?", 0.8),
    ("mwMW%@…سشصض", 1.1),
)
_EM = {character: em for characters, em in _EMS for character in characters}
_DEFAULT_EM, _WIDE_EM = 0.65, 1.0  # a character not listed; one of a wide script (CJK)
BOX_EMS = (1.09, 0.66)  # a text box's top above its baseline and its bottom below it, in ems (Chromium's SVG bbox)
GAP_PX = 1.0  # boxes closer than this count as touching

# Plotly's text positions: (vertical, horizontal) signs, -1 up / left, +1 down / right (screen y grows downwards).
PLACES = {
    "top center": (-1, 0),
    "bottom center": (1, 0),
    "middle right": (0, 1),
    "middle left": (0, -1),
    "top right": (-1, 1),
    "top left": (-1, -1),
    "bottom right": (1, 1),
    "bottom left": (1, -1),
}


@dataclass(frozen=True)
class Screen:
    """Where a figure is drawn: its plot area's width in px from the narrowest window to the widest, the px of the
    figure's height that are not plot (margins, ticks, axis titles, legend), the factor by which its fonts and height
    grow (presentation mode's; ui/style.PRESENTATION_SCALE), and whether it is wide: there the labels that fit only
    on wide screens are shown too."""

    name: str
    widths: tuple[float, float]
    furniture: float
    text_scale: float = 1.0
    wide: bool = False

    def font_px(self, font: float) -> float:
        return float(round(font * self.text_scale))  # as figures.heatmaps.enlarged rounds it

    def plot_height(self, height: float) -> float:
        return round(height * self.text_scale) - self.furniture


def text_width(text: str, font_px: float) -> float:
    """The estimated width of a one-line label, in px, plus a pixel either side."""
    ems = sum(
        0.0
        if unicodedata.combining(c)
        else _EM.get(c, _WIDE_EM if unicodedata.east_asian_width(c) in "WF" else _DEFAULT_EM)
        for c in text
    )
    return ems * font_px + 2.0


def text_offset(marker_size: float) -> float:
    """How far Plotly moves a label from its marker's centre, px: "2/1.6 * nominal, bcs some markers are a bit
    bigger" (plotly.js, textPointPosition)."""
    return marker_size / 2 / 0.8 + 1


_SIGNS = np.array(list(PLACES.values()), dtype=np.float64)  # (8, 2): each place's vertical and horizontal sign


def label_boxes(width: np.ndarray, font_px: np.ndarray, marker_size: float) -> np.ndarray:
    """(S, 8, 4): a label's box (x0, y0, x1, y1) in px from its point's centre, screen y downwards, at each of the
    PLACES, for S screens (its width and font px on each), as Plotly places it: the baseline at
    0.75 em + v·r + (v − 1)·0.5 em, the text's start, middle or end at h·r (r: text_offset)."""
    v, h = _SIGNS[:, 0], _SIGNS[:, 1]
    r = text_offset(marker_size)
    font, width = font_px[:, None], width[:, None]  # (S, 1)
    baseline = 0.75 * font + v * r + (v - 1) * font / 2
    left = h * r - width * (h == 0) / 2 - width * (h < 0)
    return np.stack([left, baseline - BOX_EMS[0] * font, left + width, baseline + BOX_EMS[1] * font], axis=-1)


def label_box(place: str, width: float, font_px: float, marker_size: float) -> np.ndarray:
    """(x0, y0, x1, y1): one label's box at one place (see label_boxes)."""
    boxes = label_boxes(np.array([width]), np.array([font_px]), marker_size)
    return boxes[0, list(PLACES).index(place)]


def _interval(d: np.ndarray, ahead: np.ndarray, behind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The open interval of scales s at which −behind < d·s < ahead (one axis of two boxes overlapping). When d = 0
    the division's infinities give everything (both positive) or nothing, which is the answer there too."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = -behind / d, ahead / d
    return np.minimum(t1, t2), np.maximum(t1, t2)


def overlapping(d: np.ndarray, mine: np.ndarray, theirs: np.ndarray, s_lo: np.ndarray, s_hi: np.ndarray) -> np.ndarray:
    """Whether box A (mine, px around its point) comes within GAP_PX of box B (theirs, px around its point) at some
    scale s in [s_lo, s_hi] of each screen, where d (…, 2) is A's point less B's in data units turned to the screen
    (x, −y). Boxes (…, S, 4) broadcast together; the result is (…, S). On each axis the boxes overlap while A starts
    before B ends and B starts before A ends: −(A's end − B's start) < d·s < B's end − A's start, an interval of s."""
    x_lo, x_hi = _interval(
        d[..., None, 0], theirs[..., 2] - mine[..., 0] + GAP_PX, mine[..., 2] - theirs[..., 0] + GAP_PX
    )
    y_lo, y_hi = _interval(
        d[..., None, 1], theirs[..., 3] - mine[..., 1] + GAP_PX, mine[..., 3] - theirs[..., 1] + GAP_PX
    )
    return np.maximum(np.maximum(x_lo, y_lo), s_lo) <= np.minimum(np.minimum(x_hi, y_hi), s_hi)


@dataclass(frozen=True)
class Placement:
    """Where each point's label goes (Plotly's textposition) and the axis ranges that keep every placed label inside
    the plot. places: labels that fit on every screen; wide_places: those that fit only on the wide screens (None:
    not there, or nowhere: the hover names the point)."""

    texts: tuple[str | None, ...]
    places: tuple[str | None, ...]
    wide_places: tuple[str | None, ...]
    x_range: tuple[float, float]
    y_range: tuple[float, float]

    def hidden(self, *, wide: bool) -> int:
        """How many labels are on no screen of the kind (narrow, or wide): the hover alone names their points."""
        shown = [p or (q if wide else None) for p, q in zip(self.places, self.wide_places, strict=True)]
        return sum(text is not None and place is None for text, place in zip(self.texts, shown, strict=True))


@dataclass(frozen=True)
class _Plane:
    """The axis ranges, and the data-to-pixel scales each screen can give with them: from s_lo to s_hi (S,)."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    s_lo: np.ndarray
    s_hi: np.ndarray


HEIGHT_SLACK_PX = 24  # a plot's height on a screen is estimated to within this (a second line of axis title, say)


def _plane(
    points: np.ndarray, height: float, screens: tuple[Screen, ...], pad_px: tuple[float, float], reach: float
) -> _Plane:
    """Ranges with pad_px of room beyond the outermost points on the most crowded screen (more on any other), at least
    a marker's reach (the markers are whole), and each
    screen's interval of scales: s = min(plot width / x span, plot height / y span) over its widths (and heights:
    from a little less than estimated to twice, as in Streamlit's full-screen view)."""
    low, high = points.min(0), points.max(0)
    span = np.maximum(high - low, max(1e-6, 1e-3 * float((high - low).max())))
    pad = np.maximum(np.asarray(pad_px, dtype=np.float64), reach + GAP_PX)
    widths = np.array([screen.widths for screen in screens])  # (S, 2)
    plot = np.array([screen.plot_height(height) for screen in screens])
    heights = np.stack([plot - HEIGHT_SLACK_PX, 2 * plot], axis=1)  # (S, 2)
    s_min = float(np.minimum((widths[:, 0] - 2 * pad[0]) / span[0], (heights[:, 0] - 2 * pad[1]) / span[1]).min())
    half = span / 2 + pad / max(s_min, 1e-9)
    centre = (low + high) / 2
    scales = np.minimum(widths / (2 * half[0]), heights / (2 * half[1]))  # (S, 2)
    x_range = (float(centre[0] - half[0]), float(centre[0] + half[0]))
    y_range = (float(centre[1] - half[1]), float(centre[1] + half[1]))
    return _Plane(x_range, y_range, scales[:, 0], scales[:, 1])


def _inside(points: np.ndarray, boxes: np.ndarray, plane: _Plane) -> np.ndarray:
    """(m, 8, S): whether each label box (m, 8, S, 4) at its point (m, 2; x, y up) lies inside the plot's ranges at
    each screen's smallest scale (and so at any larger: the point moves away from the edges)."""
    (x0, x1), (y0, y1) = plane.x_range, plane.y_range
    x, y, s = points[:, None, None, 0], points[:, None, None, 1], plane.s_lo
    return (
        ((x - x0) * s + boxes[..., 0] >= 0)
        & ((x - x1) * s + boxes[..., 2] <= 0)
        & ((y1 - y) * s + boxes[..., 1] >= 0)
        & ((y0 - y) * s + boxes[..., 3] <= 0)
    )


@dataclass(frozen=True)
class _Labels:
    """The labels to place: points (m, 2), data units, y up; their texts (None: no label); each one's places in the
    order tried (m, 8: indices into PLACES, its first choice first); their boxes at every place on every screen
    (m, 8, S, 4, px); the markers' reach in px (m,)."""

    points: np.ndarray
    texts: list[str | None]
    preference: np.ndarray
    boxes: np.ndarray
    reach: np.ndarray


def _free(labels: _Labels, plane: _Plane) -> np.ndarray:
    """(m, 8, S): whether the label at that place stays inside the plot and clear of every marker but its own on
    that screen (a marker at the label's own point: Plotly sets the text beside it)."""
    flipped = labels.points * np.array([1.0, -1.0])  # x, −y: the screen's y grows downwards
    d = flipped[:, None] - flipped[None]  # (m, m, 2)
    markers = np.stack([-labels.reach, -labels.reach, labels.reach, labels.reach], axis=1)  # (m, 4)
    on_marker = overlapping(
        d[:, None], labels.boxes[:, :, None], markers[None, None, :, None], plane.s_lo, plane.s_hi
    )  # (m, 8, m, S)
    own = np.all(d == 0, axis=-1)  # (m, m)
    return ~(on_marker & ~own[:, None, :, None]).any(2) & _inside(labels.points, labels.boxes, plane)


def _greedy(
    labels: _Labels, order: list[int], plane: _Plane, free: np.ndarray, blocked: np.ndarray, screens: np.ndarray
) -> list[int | None]:
    """Each label in turn takes its first place that is free and not blocked by a label placed before on any of the
    given screens (S,), or none; once placed, it blocks the places of other labels that would meet it there."""
    flipped = labels.points * np.array([1.0, -1.0])
    places: list[int | None] = [None] * len(free)
    for i in order:
        ok = (free[i] & ~blocked[i])[labels.preference[i]][:, screens].all(-1)
        if ok.any():
            place = int(labels.preference[i][np.argmax(ok)])
            places[i] = place
            meets = overlapping(
                (flipped - flipped[i])[:, None], labels.boxes, labels.boxes[i, place], plane.s_lo, plane.s_hi
            )  # (m, 8, S)
            blocked |= meets & screens
    return places


def _place(labels: _Labels, screens: tuple[Screen, ...], plane: _Plane) -> Placement:
    """Labels that fit on every screen, most crowded points first; then, for the wide screens alone, those left."""
    free = _free(labels, plane)
    flipped = labels.points * np.array([1.0, -1.0])
    crowding = (np.abs(flipped[:, None] - flipped[None]).max(-1) * plane.s_lo.min() < 40).sum(1)
    order = [int(i) for i in np.argsort(-crowding, kind="stable") if labels.texts[i] is not None]
    blocked = np.zeros_like(free)
    places = _greedy(labels, order, plane, free, blocked, np.ones(len(screens), dtype=bool))
    left = [i for i in order if places[i] is None]
    wide = np.array([screen.wide for screen in screens])
    wide_places = _greedy(labels, left, plane, free, blocked, wide) if wide.any() else [None] * len(places)
    names = list(PLACES)
    return Placement(
        tuple(labels.texts),
        tuple(None if k is None else names[k] for k in places),
        tuple(None if k is None else names[k] for k in wide_places),
        plane.x_range,
        plane.y_range,
    )


PADS_PX = ((12.0, 30.0), (24.0, 30.0))  # room beyond the outermost points (px across, up and down) to try


def place_labels(
    points: np.ndarray,
    texts: list[str | None],
    first: list[str],
    sizes: np.ndarray,
    reach: np.ndarray,
    *,
    font: float,
    height: float,
    screens: tuple[Screen, ...],
    pads: tuple[tuple[float, float], ...] = PADS_PX,
) -> Placement:
    """Labels for points (m, 2) in data units (y up) whose markers have Plotly sizes `sizes` and reach `reach` px from
    their centres (texts[i] None: a point without a label; first: each label's preferred place). font: the labels'
    px; height: the figure's. Several margins around the points are tried: wider ones leave the outer labels more
    room but crowd the points; the one that leaves fewest labels to the hover wins (on a narrow screen first, then on
    a wide one; the narrowest margin on a tie)."""
    font_px = np.array([screen.font_px(font) for screen in screens])  # (S,)
    names = list(PLACES)
    preference = np.array([[names.index(f), *(k for k, name in enumerate(names) if name != f)] for f in first])
    widths = np.array([[text_width(text or "", f) for f in font_px] for text in texts])  # (m, S)
    boxes = np.stack([label_boxes(w, font_px, size) for w, size in zip(widths, sizes, strict=True)])  # (m, S, 8, 4)
    labels = _Labels(points, texts, preference, boxes.transpose(0, 2, 1, 3), reach)
    placements = [_place(labels, screens, _plane(points, height, screens, pad, float(reach.max()))) for pad in pads]
    return min(placements, key=lambda p: (p.hidden(wide=False), p.hidden(wide=True)))
