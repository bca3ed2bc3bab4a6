"""The query–key map: a head's V1 (queries) and V2 (keys) on one plane, the raw V·Vᵀ story seen as geometry.

A head's score for the pair (i, j) is the dot product V1ᵢ·V2ⱼ (scaled by 1/√d_h): a word attends to the keys that
point where its query points. The map draws every query and every key of the sentence in the same two dimensions,
the first two principal components of the joint cloud [V1; V2] (2n points), centred on its mean, after
AttentionViz (Yeh et al., 2023), which draws queries and keys in one space too. With W1 and W2 both the identity,
V1 = V2 = V: each word's query and key are one point, the two clouds become one, and the scores are the raw V·Vᵀ.

What the plane keeps, and what it loses:
  - the fraction of the cloud's variance that the two axes keep (1.0 when d_h ≤ 2);
  - centring on the joint mean m: V1ᵢ·V2ⱼ = (q̃ᵢ + m)·(k̃ⱼ + m) = q̃ᵢ·k̃ⱼ + m·k̃ⱼ + (terms the same for every key of
    row i, which the softmax ignores); the m·k̃ⱼ term is not drawn;
  - a dot product is not a distance: the key nearest a query on the map need not be the one it attends to most.
    `nearest_is_strongest` counts the words for which it is, so the page can say how far to trust the picture, and
    `explained_words` those for which it is another word (not [CLS]/[SEP], not itself): what a head's map teaches.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

Pair = tuple[int, int, float]  # (query i, key j, weight of row i on column j)


@dataclass(frozen=True)
class QueryKeyMap:
    """Queries and keys of one head on one plane (shapes for a sentence of n words, d_h the head's width)."""

    queries: torch.Tensor  # (n, 2) each word's V1 on the two axes (the second column is 0 when there is one axis)
    keys: torch.Tensor  # (n, 2) each word's V2 on the same axes
    axis_shares: tuple[float, float]  # the fraction of the cloud's variance along each axis (0.0: no such axis)
    kept: float  # sum of axis_shares: what the plane keeps of the 2n points' variance (1.0 when they are all equal)
    n_axes: int  # 1 when d_h == 1 (a line), else 2
    pairs: tuple[Pair, ...]  # each query joined to its strongest keys, strongest first within a query
    strongest: tuple[int, ...]  # each query's strongest key (the largest weight of its row; ties: the first)
    nearest: tuple[int, ...]  # each query's nearest key on the map
    nearest_is_strongest: int  # words whose nearest key on the map is the key they attend to most
    same_points: bool  # V1 == V2: queries and keys coincide exactly (W1 and W2 both the identity)


def principal_axes(points: torch.Tensor, k: int = 2) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(mean (…, d), components (…, k', d), variance shares (…, k')) of the points (…, m, d), k' = min(k, m, d); any
    leading dimensions are a batch (every head of a layer at once).

    The components are the right singular vectors of the centred points (torch.linalg.svd), each turned so that its
    largest-magnitude loading is positive (scikit-learn's svd_flip rule): the same points always give the same
    picture, not its mirror image. Shares are σ²/Σσ²; all zeros when the points do not vary at all."""
    mean = points.mean(-2)
    centred = points - mean[..., None, :]
    _, sigma, Vh = torch.linalg.svd(centred, full_matrices=False)  # (…, min(m, d)), (…, min(m, d), d)
    components = Vh[..., :k, :]
    biggest = components.abs().argmax(-1, keepdim=True)  # the first of equal magnitudes: still one fixed rule
    signs = torch.sign(components.gather(-1, biggest))  # (…, k', 1)
    components = components * torch.where(signs == 0, 1.0, signs).to(components.dtype)
    variance = sigma**2
    total = variance.sum(-1, keepdim=True)
    shares = torch.where(total > 0, variance[..., :k] / total.clamp_min(torch.finfo(total.dtype).tiny), 0.0)
    return mean, components, shares


def plane(V1: torch.Tensor, V2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(queries (…, n, 2), keys (…, n, 2), axis shares (…, 2)): V1 and V2 (…, n, d_h) projected on the first two
    principal axes of their joint cloud, in float64. Queries and keys are projected by the same operation, each on
    its own: equal vectors give bitwise-equal points. An axis that carries nothing (d_h = 1; one word, whose two
    points span one axis; rounding noise) is all zeros, and so is its share."""
    q, k = V1.detach().to(torch.float64).cpu(), V2.detach().to(torch.float64).cpu()
    mean, components, shares = principal_axes(torch.cat([q, k], dim=-2))  # the joint cloud (…, 2n, d_h)
    n_axes = components.shape[-2]
    pad = (0, 2 - n_axes)  # a line (d_h = 1 or one point): a second axis of zeros
    queries = torch.nn.functional.pad((q - mean[..., None, :]) @ components.mT, pad)  # (…, n, 2)
    keys = torch.nn.functional.pad((k - mean[..., None, :]) @ components.mT, pad)
    shares = torch.nn.functional.pad(shares, pad)
    empty = (shares < 1e-12)[..., None, :]  # (…, 1, 2): rounding noise only
    return queries.masked_fill(empty, 0.0), keys.masked_fill(empty, 0.0), shares.masked_fill(empty[..., 0, :], 0.0)


def nearest_keys(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """(…, n) the key nearest each query on the map (the first of equal distances), from points (…, n, 2). Exact
    distances (no matrix-product shortcut), so a batch of heads and one head alone find the same keys."""
    return torch.cdist(queries, keys, compute_mode="donot_use_mm_for_euclid_dist").argmin(-1)


def explained_words(strongest: torch.Tensor, nearest: torch.Tensor, special: torch.Tensor) -> torch.Tensor:
    """(…,) how many words the map explains: words (not [CLS]/[SEP], `special` (n,) bool) that attend most to
    another word (again not [CLS]/[SEP], and not themselves) whose key is the nearest one to their query on the map.
    A head that sends every word to [SEP] has nearest = strongest everywhere and explains nothing."""
    n = strongest.shape[-1]
    other = (strongest != torch.arange(n)) & ~special & ~special[strongest]
    return ((nearest == strongest) & other).sum(-1)


def strongest_pairs(weights: torch.Tensor, per_query: int) -> tuple[Pair, ...]:
    """Each row's `per_query` largest weights, strongest first (ties: the earlier key), weights > 0 only: a key
    masked out or given nothing is not drawn as a link."""
    left = weights.clone()
    keys, values = [], []
    for _ in range(min(per_query, weights.shape[1])):  # k ≤ 3 argmaxes: far cheaper than sorting 512-word rows
        best = left.argmax(1)  # the first of equal weights: the earlier key
        keys.append(best)
        values.append(weights.gather(1, best[:, None])[:, 0])
        left.scatter_(1, best[:, None], float("-inf"))
    if not keys:
        return ()
    rows = zip(torch.stack(keys, 1).tolist(), torch.stack(values, 1).tolist(), strict=True)  # (n, k) each, as lists
    return tuple(
        (i, j, w) for i, (row, row_values) in enumerate(rows) for j, w in zip(row, row_values, strict=True) if w > 0
    )


def query_key_map(V1: torch.Tensor, V2: torch.Tensor, weights: torch.Tensor, per_query: int = 1) -> QueryKeyMap:
    """The map of one head: V1 (n, d_h) queries, V2 (n, d_h) keys, its weights (n, n), and how many of each
    query's strongest keys to join it to. The PCA runs in float64, so the variance shares match numpy's."""
    n, d_h = V1.shape
    if V2.shape != (n, d_h) or weights.shape != (n, n):
        raise ValueError(f"V1 {tuple(V1.shape)}, V2 {tuple(V2.shape)} and weights {tuple(weights.shape)} do not match")
    queries, keys, shares = plane(V1, V2)
    n_axes = min(2, 2 * n, d_h)  # the axes the 2n points can span
    total = float(shares.sum())
    nearest, strongest = nearest_keys(queries, keys), weights.detach().cpu().argmax(1)
    return QueryKeyMap(
        queries=queries.float(),
        keys=keys.float(),
        axis_shares=(float(shares[0]), float(shares[1])),
        kept=total if total > 0 else 1.0,  # points that are all equal: the plane loses nothing
        n_axes=n_axes if d_h > 1 else 1,
        pairs=strongest_pairs(weights.detach().cpu(), per_query),
        strongest=tuple(int(j) for j in strongest),
        nearest=tuple(int(j) for j in nearest),
        nearest_is_strongest=int((nearest == strongest).sum()),
        same_points=bool(torch.equal(V1, V2)),
    )
