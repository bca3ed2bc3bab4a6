"""How many digits a figure's numbers need, so that no number reads 0 where something changed.

A heatmap colours its cells on a scale that runs to its largest value, so a cell coloured at all must not read
0.00. Two ways, one per kind of figure:

- a heatmap of words (one format for all its cells, a d3 format Plotly applies in the browser): as many decimals
  as its largest |value| needs for two significant digits, and never fewer than two (0.25 and −14.67 as before,
  0.0027 where a difference is that small). Every cell at least a twentieth of the largest then writes a digit
  that is not 0; a paler cell is all but white on the scale too.
- a map of heads (each cell's text written here): each number with its own two significant digits, so a map whose
  values span orders of magnitude (a head's share of the change: 0.0002 to 0.24) writes 0.0002, not 0.00; only a
  true zero writes 0.

A caption that says "all white" or "nothing changed" asks `reads_zero`, which reads the numbers as written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import torch

LEAST_DECIMALS = 2  # 0.25, −14.67: what every figure wrote before, and still writes for values of that size
MOST_DECIMALS = 6  # past a millionth, a number no longer fits a cell; the hover and the CSV keep it whole
SIGNIFICANT = 2


def _finite(values: torch.Tensor | np.ndarray | Iterable[float]) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        array = values.detach().to(torch.float64).cpu().numpy()
    else:
        array = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=np.float64)
    return array[np.isfinite(array)]


def decimals(
    values: torch.Tensor | np.ndarray | Iterable[float],
    *,
    significant: int = SIGNIFICANT,
    least: int = LEAST_DECIMALS,
) -> int:
    """The decimals that write the largest |value| with `significant` significant digits (0.0027 → 4, 0.25 → 2,
    14.67 → 2: never fewer than `least`, never more than MOST_DECIMALS); `least` for values that are all 0."""
    finite = _finite(values)
    largest = float(np.abs(finite).max()) if finite.size else 0.0
    if largest == 0.0:
        return least
    largest = float(f"{largest:.{significant - 1}e}")  # as rounded: 0.09996 is 0.10, two decimals, not 0.100
    return min(MOST_DECIMALS, max(least, significant - 1 - math.floor(math.log10(largest))))


def number_format(values: torch.Tensor | np.ndarray | Iterable[float], *, least: int = LEAST_DECIMALS) -> str:
    """The format spec (Python's and Plotly's d3 both read it) for a figure's numbers: ".2f", ".4f", …"""
    return f".{decimals(values, least=least)}f"


def written(value: float, spec: str) -> str:
    """value as `spec` writes it, with the sign of a rounded zero dropped (−0.0000 reads as a change)."""
    text = f"{value:{spec}}"
    return text.lstrip("-+") if float(text) == 0.0 else text


def written_alone(
    value: float, *, significant: int = SIGNIFICANT, sign: bool = False, least: int = LEAST_DECIMALS
) -> str:
    """One number with its own `significant` significant digits (0.24, 0.0053, 0.00022, −0.013), at least `least`
    decimals, 0 for a true zero (or one past MOST_DECIMALS). sign: a + before a positive number."""
    places = decimals([value], significant=significant, least=least)
    text = written(value, f"{'+' if sign else ''}.{places}f")
    return "0" if float(text) == 0.0 else text


def reads_zero(values: torch.Tensor | np.ndarray | Iterable[float], spec: str) -> bool:
    """Whether every value writes as 0 in `spec` (an empty figure reads zero)."""
    return all(float(f"{v:{spec}}") == 0.0 for v in _finite(values))
