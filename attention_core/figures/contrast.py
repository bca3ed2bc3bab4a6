"""Black or white text on a coloured cell, whichever reads: WCAG 2.1's relative luminance and contrast ratio, and
each heatmap cell's colour as Plotly paints it (its colour scale's stops interpolated linearly in RGB).

One of black and white always reaches 4.58:1 against any colour (the worst case is a luminance of 0.179), above the
4.5:1 that WCAG 2.1 AA asks of text; Plotly's own choice (black on a "light" colour by its perceived brightness)
left cells of the app's figures at 2.58:1.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import plotly.colors

Props = dict


def colour_mapping(layout: Props, trace: Props, z: np.ndarray) -> tuple[tuple, float, float]:
    """The trace's colour scale and the values at its ends (its own, or its colour axis's)."""
    if trace.get("coloraxis"):
        axis = layout[trace["coloraxis"]]
        scale, low, high = axis.get("colorscale"), axis.get("cmin"), axis.get("cmax")
    else:
        scale, low, high = trace.get("colorscale"), trace.get("zmin"), trace.get("zmax")
    finite = z[np.isfinite(z)]
    low = float(finite.min()) if low is None and finite.size else float(low or 0.0)
    high = float(finite.max()) if high is None and finite.size else float(high if high is not None else 1.0)
    scale = scale if scale is not None else plotly.colors.get_colorscale("Plasma")
    return tuple((float(stop), str(colour)) for stop, colour in scale), low, high


@cache
def _stops(scale: tuple[tuple[float, str], ...]) -> tuple[np.ndarray, np.ndarray]:
    positions = np.array([stop for stop, _ in scale])
    colours = np.array([_rgb(colour) for _, colour in scale], dtype=np.float64)
    return positions, colours


def _rgb(colour: str) -> tuple[float, float, float]:
    if colour.startswith("#"):
        r, g, b = plotly.colors.hex_to_rgb(colour)
        return float(r), float(g), float(b)
    numbers = re.findall(r"[\d.]+", colour)[:3]
    return float(numbers[0]), float(numbers[1]), float(numbers[2])


def cell_colours(z: np.ndarray, scale: tuple[tuple[float, str], ...], low: float, high: float) -> np.ndarray:
    """(…, 3): each cell's colour (0–255 RGB) as Plotly paints it: the scale's stops interpolated linearly in RGB
    at (z − low) / (high − low), clipped to the ends."""
    positions, colours = _stops(scale)
    t = np.clip((z - low) / ((high - low) or 1.0), 0.0, 1.0)
    t = np.nan_to_num(t)
    return np.stack([np.interp(t, positions, colours[:, channel]) for channel in range(3)], axis=-1)


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2.1's relative luminance of sRGB colours (…, 3) in 0–255."""
    c = rgb / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """WCAG 2.1's contrast ratio of two luminances, 1 to 21."""
    return (np.maximum(a, b) + 0.05) / (np.minimum(a, b) + 0.05)


def prefers_white(rgb: np.ndarray) -> np.ndarray:
    """Whether white text contrasts more than black with each colour (the better one is always ≥ 4.58:1)."""
    lum = luminance(rgb)
    return contrast(lum, np.ones_like(lum)) > contrast(lum, np.zeros_like(lum))
