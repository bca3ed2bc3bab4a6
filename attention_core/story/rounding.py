"""Rounding noise: a difference that only float32 rounding made is a difference of zero.

Two computations equal in exact arithmetic — a sentence's scores and its shuffle's scores put back in order, a
layer's attention with a later head knocked out and without — can still differ in float32, by a few units in the
last place of the numbers they compare. How much depends on the CPU: the order in which a BLAS kernel sums a dot
product follows its vector width and its threads, so one machine writes 0.00 where another wrote 0.000001 (issue
32). Shown, that noise tells a learner that word order mattered without positions. So every difference a page
shows, and every caption that reads it, goes through `without_rounding_noise` first: a change no larger than float32
rounding of the numbers compared, relative to their size, is exactly 0; any larger change is kept as it is.
"""

from __future__ import annotations

import torch

FLOAT32_EPSILON = float(torch.finfo(torch.float32).eps)  # 1.19e-7: one unit in the last place of 1.0
# Rounding a sum of d products in another order moved a result by at most 1.7 units in the last place of the largest
# |value| (random sentences of 3–32 words, 8–384 dimensions, AVX-512, AVX2 and plain kernels; see
# tests/test_rounding.py); 64 units leave a margin of almost 40, and still keep a change of a millionth of the
# largest value: MiniLM's positions move its scores by 0.2 % of theirs.
ROUNDING_UNITS = 64


def rounding_floor(*operands: torch.Tensor) -> float:
    """The largest change float32 rounding can make to numbers the size of `operands`: ROUNDING_UNITS units in the
    last place of their largest |value| (0 for operands that are all 0 or empty)."""
    largest = max(
        (float(o.detach().abs().nan_to_num(posinf=0.0, neginf=0.0).max()) for o in operands if o.numel()), default=0.0
    )
    return ROUNDING_UNITS * FLOAT32_EPSILON * largest


def without_rounding_noise(difference: torch.Tensor, *operands: torch.Tensor) -> torch.Tensor:
    """`difference` (e.g. after − before) with every entry no larger than the rounding floor of `operands` (the
    tensors it was computed from) set to exactly 0; the other entries unchanged. Non-finite entries are kept."""
    floor = rounding_floor(*operands)
    return torch.where(difference.abs() <= floor, torch.zeros_like(difference), difference)
