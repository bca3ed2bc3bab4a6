"""A model's queries and keys as the heatmaps draw its words, and the head whose query–key map teaches most.

MiniLM reads "didn't" as didn ' t, but every heatmap shows one row and one column for the typed word (pooled as
word_pieces.py says: attention *from* a word is the mean of its pieces' rows, attention *to* it the sum of their
columns). The query–key map draws the same words: a word's query is the mean of its pieces' queries (V1) and its key
the mean of its pieces' keys (V2), the same averaging R that pools the heatmap's rows; since a projection is linear,
that point is also the centroid of its pieces' points. Its lines are the heatmap's pooled weights. Hiding [CLS] and
[SEP] drops their points and renormalises the rows, as the heatmaps do.

Which head to open on: a head where most words attend to [SEP] has each query next to [SEP]'s key, and a map that
is "right" about every word teaches nothing. story.query_key_map.explained_words counts the words that attend most
to *another word* whose key is also the nearest to their query; the head that explains most words (then the one whose
plane keeps most of the variance, then the first) is where the geometry shows attention best.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention_core.models.interface import Analysis, AttentionModel
from attention_core.models.word_pieces import shown_attention
from attention_core.story.query_key_map import explained_words, nearest_keys, plane


@dataclass(frozen=True)
class DrawnQueriesKeys:
    """One head's queries, keys and weights over the words as the heatmaps draw them (m words or pieces)."""

    V1: torch.Tensor  # (…, m, d_h) queries: a word's is the mean of its pieces'
    V2: torch.Tensor  # (…, m, d_h) keys: the same mean
    weights: torch.Tensor  # (…, m, m) the heatmap's weights (pooled, [CLS]/[SEP] dropped and renormalised if hidden)
    labels: list[str]
    known: tuple[bool, ...]
    special: tuple[bool, ...]  # one per drawn word: [CLS] or [SEP]
    pooled: bool  # at least one drawn word is the mean of several pieces


def drawn_queries_keys(
    V1: torch.Tensor,
    V2: torch.Tensor,
    weights: torch.Tensor,
    analysis: Analysis,
    *,
    whole_words: bool = True,
    show_special: bool = True,
) -> DrawnQueriesKeys:
    """V1, V2 (…, tokens, d_h) and weights (…, tokens, tokens) over the model's tokens → over the drawn words."""
    pieces = analysis.pieces
    shown = shown_attention(
        weights, analysis.labels, analysis.known, pieces, whole_words=whole_words, show_special=show_special
    )
    if whole_words:
        C = pieces.membership().to(V1.dtype)  # (words, tokens)
        R = C / C.sum(dim=1, keepdim=True)  # the rows' averaging of word_pieces.pool_to_words
        V1, V2, special = R @ V1, R @ V2, pieces.special
    else:
        special = tuple(pieces.special[w] for w in pieces.word_of)
    keep = [i for i, s in enumerate(special) if show_special or not s]
    return DrawnQueriesKeys(
        V1=V1[..., keep, :],
        V2=V2[..., keep, :],
        weights=shown.weights,
        labels=shown.labels,
        known=shown.known,
        special=tuple(special[i] for i in keep),
        pooled=whole_words and pieces.splits_words,
    )


def every_head_queries_keys(model: AttentionModel, analysis: Analysis) -> tuple[torch.Tensor, torch.Tensor]:
    """(V1, V2), each (n_layers, n_heads, tokens, d_h): every head's trained queries and keys, one product per layer
    (head_view.head_view's V1 = x·W1 + b1 on the head's slice of features, for all heads at once)."""
    queries: list[torch.Tensor] = []
    keys: list[torch.Tensor] = []
    with torch.no_grad():
        for layer, x in enumerate(analysis.inputs):  # x (tokens, d): what the layer's attention reads
            block = model.attention_block(layer)
            for linear, out in ((block.W1, queries), (block.W2, keys)):
                projected = torch.nn.functional.linear(x, linear.weight, linear.bias)  # (tokens, d)
                out.append(projected.view(x.shape[0], block.n_heads, block.d_head).transpose(0, 1))  # (H, tokens, d_h)
    return torch.stack(queries), torch.stack(keys)


@dataclass(frozen=True)
class TeachingHead:
    layer: int  # from 0
    head: int  # from 0
    explained: int  # words that attend most to another word whose key is the nearest to their query on its map
    words: int  # the drawn words that are not [CLS]/[SEP]
    heads: int  # how many heads were compared


def teaching_head(
    model: AttentionModel, analysis: Analysis, *, whole_words: bool = True, show_special: bool = True
) -> TeachingHead:
    """The head whose query–key map (trained W1 and W2, words drawn as the heatmaps draw them) explains most words;
    ties: the larger share of the variance kept, then the first head."""
    V1, V2 = every_head_queries_keys(model, analysis)
    drawn = drawn_queries_keys(
        V1, V2, analysis.weights, analysis, whole_words=whole_words, show_special=show_special
    )  # (L, H, m, …)
    queries, keys, shares = plane(drawn.V1, drawn.V2)
    special = torch.tensor(drawn.special, dtype=torch.bool)
    explained = explained_words(drawn.weights.argmax(-1), nearest_keys(queries, keys), special)  # (L, H)
    n_layers, n_heads = explained.shape
    scores = list(zip(explained.flatten().tolist(), shares.sum(-1).flatten().tolist(), strict=True))  # (L·H,)
    best = max(range(len(scores)), key=lambda i: (*scores[i], -i))  # most words, then most variance, then first
    return TeachingHead(
        layer=best // n_heads,
        head=best % n_heads,
        explained=scores[best][0],
        words=int((~special).sum()),
        heads=n_layers * n_heads,
    )
