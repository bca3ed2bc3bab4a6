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


def local_prior(n_heads: int, max_distance: int, strength: float = 3.0) -> torch.Tensor:
    """(nh, 2K+1) starting biases: head h prefers the word at offset −1, +1, −2, +2, … (its own), and every head
    leans a little towards nearby words (an ALiBi-like −|j − i|/K slope). Training moves them freely; the prior
    only spares the heads the long search for their neighbours at the start."""
    offsets = torch.arange(-max_distance, max_distance + 1, dtype=torch.float32)
    prior = -offsets.abs().repeat(n_heads, 1) / max_distance
    for h in range(n_heads):
        favourite = (h // 2 + 1) * (-1 if h % 2 == 0 else 1)
        if abs(favourite) <= max_distance:
            prior[h, favourite + max_distance] += strength
    return prior


class RelativePositionBias(torch.nn.Module):
    """A learned number per head and per distance j − i (clipped to ±max_distance), added to the scores.

    This is still attention — only its scores change — but it lets a head learn "look at the word before me"
    or "look two words ahead" directly, the locality that word-pair counting exploits (cf. T5's relative
    bias, Raffel et al. 2020, and ALiBi, Press et al. 2022). The app can draw the learned bias.
    """

    def __init__(self, n_heads: int, max_distance: int, *, local_init: bool = False) -> None:
        super().__init__()
        self.max_distance = max_distance
        self.bias = torch.nn.Parameter(torch.zeros(n_heads, 2 * max_distance + 1))  # (nh, 2K+1)
        if local_init:
            with torch.no_grad():
                self.bias.copy_(local_prior(n_heads, max_distance))

    def forward(self, T: int) -> torch.Tensor:
        position = torch.arange(T, device=self.bias.device)
        distance = (position[None, :] - position[:, None]).clamp(-self.max_distance, self.max_distance)
        return self.bias[:, distance + self.max_distance].unsqueeze(0)  # (1, nh, T, T)
