"""Which heads matter: every head knocked out alone, and how much the model's answer moves.

Two measures, one per kind of model:
- "guess" (a masked-word model, a sentence with a [MASK]): how much the probability of the model's top guess falls
  when the head is removed (negative: the guess grew surer without it);
- "sentence" (any model, e.g. MiniLM, which was trained to turn sentences into vectors): the angle, in degrees,
  between the mean of the final word vectors with and without the head (0°: nothing changed). An angle, not
  1 − cosine: 1 − cos θ ≈ θ²/2 squares small changes away (docs/heads-apart.md gives MiniLM's numbers).

Every layer runs once; then, for each layer, a batch of n_heads copies of the sentence (copy h loses head h) runs
from that layer's input to the top. A head can change only the layers from its own up, so the layers below are
shared, and MiniLM's 72 knock-outs cost about as much as 42 forward passes, in six batched calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F

from attention_core.models.interface import AttentionModel, MaskedWordModel
from attention_core.models.knock_out import Ablation
from attention_core.story.rounding import without_rounding_noise
from attention_core.story.text import MASK, Token

Measure = Literal["guess", "sentence"]


@dataclass(frozen=True)
class HeadImportance:
    """How much each head matters for one sentence."""

    scores: torch.Tensor  # (n_layers, n_heads): the fall in the guess's probability, or the angle in degrees
    measure: Measure
    guess: str | None  # "guess": the model's top guess with every head, whose probability is followed
    whole: float  # "guess": its probability with every head; "sentence": 1.0 (the cosine of the sentence with itself)
    knocked: torch.Tensor  # (n_layers, n_heads): the guess's probability, or the cosine, with that head out

    def ranked(self) -> list[tuple[int, int, float]]:
        """(layer, head, score) from the head that matters most down, both counted from 0."""
        n_heads = self.scores.shape[1]
        order = torch.argsort(self.scores.flatten(), descending=True, stable=True)
        return [(int(i) // n_heads, int(i) % n_heads, float(self.scores.flatten()[i])) for i in order]


@torch.no_grad()
def final_states_one_head_out(
    model: AttentionModel, tokens: list[Token], ablation: Ablation = "zero"
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the final word vectors with every head (n, d), with each head out alone (n_layers, n_heads, n, d))."""
    n_layers, n_heads = model.n_layers, model.n_heads
    inputs = [model.first_input(tokens)]  # inputs[l]: what layer l reads, (1, n, d)
    for layer in range(n_layers):
        inputs.append(model.run_layer(layer, inputs[layer]))
    one_each = torch.eye(n_heads, dtype=torch.bool)  # (n_heads, n_heads): copy h of the sentence loses head h
    knocked = []
    for layer in range(n_layers):
        x = inputs[layer].expand(n_heads, -1, -1)  # (n_heads, n, d): the layers below are the same for every copy
        x = model.run_layer(layer, x, one_each, ablation)
        for later in range(layer + 1, n_layers):
            x = model.run_layer(later, x)
        knocked.append(model.final_states(x))
    return model.final_states(inputs[-1])[0], torch.stack(knocked)


def measure_for(model: AttentionModel, tokens: list[Token]) -> Measure:
    """ "guess" for a masked-word model on a sentence with a [MASK], "sentence" otherwise."""
    if isinstance(model, MaskedWordModel) and any(t.norm == MASK for t in model.encode(tokens)[0]):
        return "guess"
    return "sentence"


@torch.no_grad()
def head_importance(model: AttentionModel, tokens: list[Token], ablation: Ablation = "zero") -> HeadImportance:
    """Every head of `model` knocked out alone on `tokens`, scored by the measure that fits (measure_for)."""
    whole, knocked = final_states_one_head_out(model, tokens, ablation)
    if measure_for(model, tokens) == "guess":
        assert isinstance(model, MaskedWordModel)  # measure_for says so
        blank = model.blank_position(model.encode(tokens)[0])
        before = model.word_probabilities(whole[blank])
        top = int(torch.argmax(before))
        after = model.word_probabilities(knocked[:, :, blank])[..., top]  # (n_layers, n_heads)
        whole_p = float(before[top])
        fall = without_rounding_noise(before[top] - after, before[top], after)  # the batch sums in another order
        return HeadImportance(fall, "guess", model.word_shown(top), whole_p, after)
    # In float64: a turn of 0.5° is a cosine of 0.99996, which float32 keeps to about a tenth of a degree.
    cosine = F.cosine_similarity(knocked.double().mean(dim=2), whole.double().mean(dim=0), dim=-1)
    degrees = torch.rad2deg(torch.arccos(cosine.clamp(-1.0, 1.0)))  # (n_layers, n_heads)
    return HeadImportance(degrees.float(), "sentence", None, 1.0, cosine.float())
