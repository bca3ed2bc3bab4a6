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
    ("ABCDEFGHJKLNOPQRSTUVXYZ", 0.8),
    ("#&+<=>^~", 0.85),
    ("mwMW%@…سشصض", 1.1),
)
_EM = {character: em for characters, em in _EMS for character in characters}
_DEFAULT_EM, _WIDE_EM = 0.65, 1.0  # a character not listed; one of a wide script (CJK)
BOX_EMS = (1.09, 0.66)  # a text box's top above its baseline and its bottom below it, in ems (Chromium's SVG bbox)
# The reach of a label's letters from the baseline (Chromium's canvas measureText): Latin capitals with accents 0.94 em
# up, Arabic with a kasra under a descender 0.33 em down. A marker must not touch the letters; a text with a symbol
# (an emoji reaches 1.06 em up) or a wide script counts its whole box.
INK_EMS = (0.95, 0.35)
GAP_PX = 1.0  # boxes closer than this count as touching
MARKER_GAP_PX = 2.0  # and a label's letters closer than this to a marker (else they seem to touch on a phone)

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
class PlotRange:
    """Where a figure is drawn: its plot area's width in px from the narrowest window to the widest, the px of the
    figure's height that are not plot (margins, ticks, axis titles, legend), the factor by which its fonts and height
    grow (presentation mode's; screen.PRESENTATION_SCALE), and whether it is wide: there the labels that fit only
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


def _plain_letters(text: str) -> bool:
    """Whether every character's letters stay within INK_EMS: no symbol (an emoji), no wide script."""
    return not any(unicodedata.category(c) == "So" or unicodedata.east_asian_width(c) in "WF" for c in text)


def text_offset(marker_size: np.ndarray | float) -> np.ndarray:
    """How far Plotly moves a label from its marker's centre, px: "2/1.6 * nominal, bcs some markers are a bit
    bigger" (plotly.js, textPointPosition)."""
    return np.asarray(marker_size, dtype=np.float64) / 2 / 0.8 + 1


_SIGNS = np.array(list(PLACES.values()), dtype=np.float64)  # (8, 2): each place's vertical and horizontal sign


def label_boxes(
    width: np.ndarray, font_px: np.ndarray, marker_size: np.ndarray | float, ems: tuple[float, float] = BOX_EMS
) -> np.ndarray:
    """(…, S, 8, 4): a label's box (x0, y0, x1, y1) in px from its point's centre, screen y downwards, at each of the
    PLACES, for S screens (width (…, S) and font_px (S,) on each; marker_size (…)), as Plotly places it: the baseline
    at 0.75 em + v·r + (v − 1)·0.5 em, the text's start, middle or end at h·r (r: text_offset)."""
    v, h = _SIGNS[:, 0], _SIGNS[:, 1]
    r = text_offset(marker_size)[..., None, None]
    font, width = font_px[:, None], width[..., None]  # (S, 1), (…, S, 1)
    baseline = 0.75 * font + v * r + (v - 1) * font / 2
    left = h * r - width * (h == 0) / 2 - width * (h < 0)
    return np.stack([left, baseline - ems[0] * font, left + width, baseline + ems[1] * font], axis=-1)


def _interval(d: np.ndarray, ahead: np.ndarray, behind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The open interval of scales s at which −behind < d·s < ahead (one axis of two boxes overlapping). When d = 0
    the division's infinities give everything (both positive) or nothing, which is the answer there too."""
    t1, t2 = -behind / d, ahead / d  # place_labels lets numpy divide by zero without a warning
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
    points: np.ndarray, height: float, screens: tuple[PlotRange, ...], pad_px: tuple[float, float], reach: float
) -> _Plane:
    """Ranges with pad_px of room beyond the outermost points on the most crowded screen (more on any other; at least
    a marker's reach, so that the markers are whole), and each screen's interval of scales: s = min(plot width / x
    span, plot height / y span) over its widths (and heights: from a little less than estimated to twice, as in
    Streamlit's full-screen view)."""
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
    """The labels to place, r of them, and every point's marker: points (m, 2), data units, y up, and the markers'
    reach in px (m,); rows (r,): the point each label is set by; texts (r); each label's places in the order tried
    (r, 8: indices into PLACES, its first choice first); its boxes at every place on every screen (r, 8, S, 4, px),
    and the boxes of its letters alone (ink: what must not touch a marker)."""

    points: np.ndarray
    reach: np.ndarray
    rows: np.ndarray
    texts: list[str]
    preference: np.ndarray
    boxes: np.ndarray
    ink: np.ndarray

    @property
    def flipped(self) -> np.ndarray:
        return self.points * np.array([1.0, -1.0])  # x, −y: the screen's y grows downwards


def _free(labels: _Labels, plane: _Plane) -> np.ndarray:
    """(r, 8, S): whether the label at that place stays inside the plot and clear of every marker but its own on
    that screen (a marker at the label's own point: Plotly sets the text beside it)."""
    flipped = labels.flipped
    d = (flipped[labels.rows, None] - flipped[None]).astype(np.float32)  # (r, m, 2); single precision: px need no more
    reach = labels.reach + MARKER_GAP_PX - GAP_PX
    markers = np.stack([-reach, -reach, reach, reach], axis=1).astype(np.float32)  # (m, 4)
    ink, s_lo, s_hi = labels.ink.astype(np.float32), plane.s_lo.astype(np.float32), plane.s_hi.astype(np.float32)
    on_marker = overlapping(d[:, None], ink[:, :, None], markers[None, None, :, None], s_lo, s_hi)  # (r, 8, m, S)
    own = np.all(d == 0, axis=-1)  # (r, m)
    return ~(on_marker & ~own[:, None, :, None]).any(2) & _inside(labels.points[labels.rows], labels.boxes, plane)


def _greedy(
    labels: _Labels, order: list[int], plane: _Plane, free: np.ndarray, blocked: np.ndarray, screens: np.ndarray
) -> dict[int, int]:
    """Each label in turn takes its first place that is free and not blocked by a label placed before on any of the
    given screens (S,), or none; once placed, it blocks the places of other labels that would meet it there.
    Returns {label: place}."""
    at = labels.flipped[labels.rows]  # (r, 2)
    places = {}
    for k in order:
        ok = (free[k] & ~blocked[k])[labels.preference[k]][:, screens].all(-1)
        if ok.any():
            place = places[k] = int(labels.preference[k][np.argmax(ok)])
            meets = overlapping((at - at[k])[:, None], labels.boxes, labels.boxes[k, place], plane.s_lo, plane.s_hi)
            blocked |= meets & screens  # (r, 8, S)
    return places


def _place(labels: _Labels, screens: tuple[PlotRange, ...], plane: _Plane) -> Placement:
    """Labels that fit on every screen, most crowded points first; then, for the wide screens alone, those left."""
    free = _free(labels, plane)
    at = labels.flipped[labels.rows]
    crowding = (np.abs(at[:, None] - at[None]).max(-1) * plane.s_lo.min() < 40).sum(1)
    order = [int(k) for k in np.argsort(-crowding, kind="stable")]
    blocked = np.zeros_like(free)
    placed = _greedy(labels, order, plane, free, blocked, np.ones(len(screens), dtype=bool))
    wide = np.array([screen.wide for screen in screens])
    left = [k for k in order if k not in placed]
    placed_wide = _greedy(labels, left, plane, free, blocked, wide) if wide.any() else {}
    names, m = list(PLACES), len(labels.points)
    texts: list[str | None] = [None] * m
    places: list[str | None] = [None] * m
    wide_places: list[str | None] = [None] * m
    for k, point in enumerate(labels.rows):
        texts[point] = labels.texts[k]
        places[point] = names[placed[k]] if k in placed else None
        wide_places[point] = names[placed_wide[k]] if k in placed_wide else None
    return Placement(tuple(texts), tuple(places), tuple(wide_places), plane.x_range, plane.y_range)


# Room beyond the outermost points, px across and up and down: tried in turn while a label is left to the hover. Over
# 96 maps (bench/query_key_labels.py's) a second margin of 24 px across left 4 % fewer labels to the hover, at twice
# the cost: one is tried.
PADS_PX = ((12.0, 30.0),)


def place_labels(
    points: np.ndarray,
    texts: list[str | None],
    first: list[str],
    sizes: np.ndarray,
    reach: np.ndarray,
    *,
    font: float,
    height: float,
    screens: tuple[PlotRange, ...],
    pads: tuple[tuple[float, float], ...] = PADS_PX,
) -> Placement:
    """Labels for points (m, 2) in data units (y up) whose markers have Plotly sizes `sizes` and reach `reach` px from
    their centres (texts[i] None: a point without a label; first: each label's preferred place). font: the labels'
    px; height: the figure's. Several margins around the points are tried: wider ones leave the outer labels more
    room but crowd the points; the one that leaves fewest labels to the hover wins (on a narrow screen first, then on
    a wide one; the narrowest margin on a tie)."""
    font_px = np.array([screen.font_px(font) for screen in screens])  # (S,)
    rows = np.array([i for i, text in enumerate(texts) if text is not None], dtype=np.int64)
    shown = [text for text in texts if text is not None]
    names = list(PLACES)
    preference = np.array([[names.index(f), *(k for k, name in enumerate(names) if name != f)] for f in first])[rows]
    widths = np.array([[text_width(text, f) for f in font_px] for text in shown]).reshape(len(rows), len(screens))
    boxes, ink = (label_boxes(widths, font_px, sizes[rows], ems).transpose(0, 2, 1, 3) for ems in (BOX_EMS, INK_EMS))
    ink = np.where(np.array([_plain_letters(text) for text in shown], dtype=bool)[:, None, None, None], ink, boxes)
    labels = _Labels(points, reach, rows, shown, preference.reshape(len(rows), len(names)), boxes, ink)
    placements: list[Placement] = []
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero gap between two points divides by zero
        for pad in pads:
            placements.append(_place(labels, screens, _plane(points, height, screens, pad, float(reach.max()))))
            if placements[-1].hidden(wide=False) == 0:
                break  # no label is left to the hover (nor on a wide screen): a wider margin cannot do better
    return min(placements, key=lambda p: (p.hidden(wide=False), p.hidden(wide=True)))
