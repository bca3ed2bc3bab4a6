"""What the layers make of the words: each typed word's vector at every depth, and how alike they are there.

The article's central claim is that attention lets higher layers work on relations, grammar and meaning rather
than on raw words. Its measurable trace: the vectors of two texts with other words and the same meaning come
closer through the layers, and those of the same words with another meaning (roles swapped, a negation) move
apart. Depth 0 is the input V, word embedding + positions (the Similarity page's V), depth ℓ the output of layer ℓ:
the residual stream the next layer reads (for a pre-norm model, before its LayerNorm; for MiniLM, post-norm, the
layer's normalised output). A word read as several pieces is the mean of its pieces' vectors; [CLS] and [SEP]
are left out: one row per typed word, as every other page draws them.

Deep layers give every word a share of one common direction, so the raw cosine of any two words rises towards 1
with depth and can hide what changed. `centred=True` subtracts the sentence's mean word vector at each depth
before the cosine: what is left is how each word differs from the sentence's average, and two words compare by
that (Ethayarajh 2019 measured the common direction; centring is the usual correction, e.g. Mu & Viswanath 2018).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from attention_core.models.interface import AttentionModel
from attention_core.models.knock_out import Ablation, HeadSet, head_masks
from attention_core.story.text import tokenize


@dataclass(frozen=True)
class LayerStates:
    """A text inside a model, depth by depth."""

    words: tuple[str, ...]  # the typed words the model read, as the heatmaps label them
    known: tuple[bool, ...]  # False for a word the model cannot read (its vector at depth 0 is zero)
    states: torch.Tensor  # (n_layers + 1, n_words, d): depth 0 the input V, depth ℓ the output of layer ℓ

    @property
    def pooled(self) -> torch.Tensor:
        """(n_layers + 1, d) the text's vector at each depth: the mean of its words' vectors."""
        return self.states.mean(dim=1)


@torch.no_grad()
def layer_states_each(
    model: AttentionModel, text: str, knock_outs: Sequence[HeadSet], *, ablation: Ablation = "zero"
) -> tuple[LayerStates, ...]:
    """Every typed word's vector at every depth, once per head set of `knock_outs` ((layer, head) from 0, removed as
    `analyze` removes them; all heads out: the words pass through the feed-forward layers alone), in one batch but
    for every head out, which runs apart and skips the attention it would multiply by zero."""
    tokens = tokenize(text)
    tokens = tokens[: model.words_read(tokens)]
    pieces = model.word_pieces(tokens)
    words, known = pieces.typed_words()
    typed = [i for i, special in enumerate(pieces.special) if not special]
    membership = pieces.membership()[typed]  # (n_words, n_tokens) 1 where the token is a piece of the word
    to_words = membership / membership.sum(dim=1, keepdim=True).clamp_min(1.0)  # the mean over a word's pieces
    V = model.sentence(tokens).V  # (n_words, d) the Similarity page's input: word embedding + positions
    assert V.shape[0] == len(words), "the model's sentence and its word pieces disagree on the typed words"
    x = model.first_input(tokens)  # (1, n_tokens, d)
    # Every head out (the page's model without attention) runs on its own: its layers then skip the attention they
    # would multiply by zero (MultiHeadAttention). The other head sets share one batch.
    every = {(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)}
    alone = [ablation == "zero" and set(knock_out) == every for knock_out in knock_outs]
    batched = [knock_out for knock_out, apart in zip(knock_outs, alone, strict=True) if not apart]
    depths: list[torch.Tensor] = []  # one (n_layers, n_words, d) per head set, in order
    if batched:
        depths += list(_stream(model, x, to_words, _batched_masks(batched, model), ablation, len(batched)))
    if any(alone):
        bare = _stream(model, x, to_words, head_masks(list(every), model.n_layers, model.n_heads), ablation, 1)[0]
        shared = iter(depths)
        depths = [bare if apart else next(shared) for apart in alone]
    return tuple(LayerStates(tuple(words), known, torch.cat([V[None], stream])) for stream in depths)


def _stream(
    model: AttentionModel,
    x: torch.Tensor,
    to_words: torch.Tensor,
    masks: list[torch.Tensor | None],
    ablation: Ablation,
    rows: int,
) -> torch.Tensor:
    """(rows, n_layers, n_words, d) each layer's output pooled to the typed words, from the first input x (1, T, d)
    run `rows` times (masks, per layer: (rows, n_heads), (n_heads,) for every row, or None)."""
    x = x.expand(rows, -1, -1)
    stream = []
    for layer in range(model.n_layers):
        x = model.run_layer(layer, x, masks[layer], ablation)
        stream.append(to_words @ x)  # (B, n_words, d)
    return torch.stack(stream, dim=1)


def layer_states(
    model: AttentionModel, text: str, *, knock_out: HeadSet = (), ablation: Ablation = "zero"
) -> LayerStates:
    """Every typed word's vector at every depth, with the heads in `knock_out` removed."""
    return layer_states_each(model, text, [knock_out], ablation=ablation)[0]


def _batched_masks(knock_outs: Sequence[HeadSet], model: AttentionModel) -> list[torch.Tensor | None]:
    """Per layer, (B, n_heads) bool: the heads each head set removes there; None where no set removes any."""
    n_layers, n_heads = model.n_layers, model.n_heads
    per_set = [head_masks(knock_out, n_layers, n_heads) for knock_out in knock_outs]
    masks: list[torch.Tensor | None] = []
    for layer in range(n_layers):
        rows = [m[layer] for m in per_set]
        if all(row is None for row in rows):
            masks.append(None)
        else:
            masks.append(torch.stack([torch.zeros(n_heads, dtype=torch.bool) if r is None else r for r in rows]))
    return masks


def cosine_matrix(vectors: torch.Tensor, *, centred: bool = False) -> torch.Tensor:
    """(…, n, d) → (…, n, n) cosines of every pair of rows; centred: of the rows less their mean. A zero row (an
    unknown word at depth 0, or a one-word text centred) has cosine 0 with everything, itself included."""
    if centred:
        vectors = vectors - vectors.mean(dim=-2, keepdim=True)
    unit = F.normalize(vectors, dim=-1)
    return unit @ unit.transpose(-1, -2)


def layer_similarity(
    model: AttentionModel,
    text: str,
    centred: bool = False,
    *,
    knock_out: HeadSet = (),
    ablation: Ablation = "zero",
) -> torch.Tensor:
    """(n_layers + 1, n, n) cosine similarities of the typed words' vectors at every depth: entry 0 the input V
    (the Similarity page's V·Vᵀ as cosines), entry ℓ the output of layer ℓ."""
    return cosine_matrix(layer_states(model, text, knock_out=knock_out, ablation=ablation).states, centred=centred)


def sentence_similarity(
    model: AttentionModel, text_a: str, text_b: str, *, knock_out: HeadSet = (), ablation: Ablation = "zero"
) -> torch.Tensor:
    """(n_layers + 1,) the plain cosine of the two texts' pooled vectors (the mean of their typed words' vectors;
    [CLS], [SEP] and padding left out) at each depth."""
    a = layer_states(model, text_a, knock_out=knock_out, ablation=ablation).pooled
    b = layer_states(model, text_b, knock_out=knock_out, ablation=ablation).pooled
    return F.cosine_similarity(a, b, dim=-1)
