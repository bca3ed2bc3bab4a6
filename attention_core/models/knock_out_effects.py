"""What a knock-out changed: the guesses before → after, and how far each later head's attention moved."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.models.knock_out import Ablation, HeadSet
from attention_core.story.rounding import without_rounding_noise
from attention_core.story.text import Token


@dataclass(frozen=True)
class GuessChange:
    word: str
    before: float  # its probability with every head
    after: float  # with the knocked-out heads removed

    @property
    def change(self) -> float:
        """after − before, 0 where only float32 rounding tells them apart (story/rounding.py)."""
        before, after = torch.tensor(self.before), torch.tensor(self.after)
        return float(without_rounding_noise(after - before, before, after))


@torch.no_grad()
def compare_guesses(
    model: MaskedWordModel, tokens: list[Token], knock_out: HeadSet, ablation: Ablation = "zero", k: int = 5
) -> list[GuessChange]:
    """The k likeliest words for the first [MASK] with every head, and the k likeliest with the heads knocked out,
    each with both probabilities; the whole model's guesses first (best first), then the new ones."""
    whole, knocked = model.analyze(tokens), model.analyze(tokens, knock_out=knock_out, ablation=ablation)
    return guess_changes(model, whole, knocked, k)


def guess_changes(model: MaskedWordModel, whole: Analysis, knocked: Analysis, k: int = 5) -> list[GuessChange]:
    """compare_guesses from the two analyses a page already has (the model with every head, and knocked out)."""
    blank = model.blank_position(list(whole.tokens))
    before, after = model.word_probabilities(whole.final[blank]), model.word_probabilities(knocked.final[blank])
    order = list(dict.fromkeys([*torch.topk(before, k).indices.tolist(), *torch.topk(after, k).indices.tolist()]))
    return [GuessChange(model.word_shown(i), float(before[i]), float(after[i])) for i in order]


def attention_shift(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    """(n_layers, n_heads): how far each head's attention moved, as the share of a row's attention that went
    elsewhere (half the summed absolute change of a row; 0 unchanged, 1 all of it), averaged over the rows.
    before, after: (n_layers, n_heads, n, n)."""
    return 0.5 * without_rounding_noise(after - before, before, after).abs().sum(-1).mean(-1)
