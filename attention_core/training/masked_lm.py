"""BERT-style masking (Devlin et al., 2019): choose a share of the words; of those, 80 % become [MASK],
10 % a random word, 10 % stay as they are. The model must predict every chosen word."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class MaskedBatch:
    inputs: torch.Tensor  # (B, T) ids with the chosen words replaced
    targets: torch.Tensor  # (N,) the original ids of the chosen words
    chosen: torch.Tensor  # (B, T) bool, True where a word was chosen


def mask_words(
    ids: torch.Tensor,
    *,
    rate: float,
    mask_id: int,
    n_special: int,
    vocab_size: int,
    generator: torch.Generator,
) -> MaskedBatch:
    """Mask a batch of token ids (B, T). Only the words the model can guess are chosen: ids from n_special
    (after [PAD], [UNK], [MASK], [CLS]) up to vocab_size (rarer words and punctuation come after it)."""
    eligible = (ids >= n_special) & (ids < vocab_size)
    draw = torch.rand(ids.shape, generator=generator)
    chosen = (draw < rate) & eligible
    if not chosen.any() and eligible.any():  # a tiny batch may draw nothing: take its likeliest word instead
        chosen.view(-1)[torch.where(eligible.view(-1), draw.view(-1), 2.0).argmin()] = True
    roll = torch.rand(ids.shape, generator=generator)
    inputs = ids.clone()
    inputs[chosen & (roll < 0.8)] = mask_id
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs[swap] = torch.randint(n_special, vocab_size, ids.shape, generator=generator)[swap]
    return MaskedBatch(inputs=inputs, targets=ids[chosen], chosen=chosen)
