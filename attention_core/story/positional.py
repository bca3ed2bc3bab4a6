"""Where a word stands: the sinusoidal positional encoding of Vaswani et al. (2017), section 3.5.

PE[pos, 2i] = sin(pos / 10000^(2i/d)) and PE[pos, 2i+1] = cos(pos / 10000^(2i/d)). Each pair of dimensions is a
clock turning at its own speed, so every position gets a distinct pattern and nearby positions similar ones.
"""

from __future__ import annotations

import math

import torch


def positional_encoding(n: int, d: int) -> torch.Tensor:
    """The (n, d) matrix whose row `pos` is added to the word vector at position `pos`."""
    if n < 0 or d < 1:
        raise ValueError(f"positional_encoding needs n >= 0 and d >= 1, got n={n}, d={d}")
    position = torch.arange(n, dtype=torch.float32).unsqueeze(1)  # (n, 1)
    even = torch.arange(0, d, 2, dtype=torch.float32)  # the 2i of the formula
    frequency = torch.exp(-math.log(10000.0) * even / d)  # 1 / 10000^(2i/d), (ceil(d/2),)
    angles = position * frequency  # (n, ceil(d/2))
    encoding = torch.zeros(n, d)
    encoding[:, 0::2] = torch.sin(angles)
    encoding[:, 1::2] = torch.cos(angles[:, : d // 2])  # an odd d has one sine more than cosines
    return encoding
