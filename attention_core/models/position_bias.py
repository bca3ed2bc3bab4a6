"""A learned bias per head and per distance between two words, added to that head's scores: how the shipped
model's heads learn "look at the word before me" directly (the sinusoidal encoding, story/positional.py, is added
to the words once instead)."""

from __future__ import annotations

import torch


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
