"""Where word vectors come from before a model is trained: the sentence as the matrix V (n × d).

- "random": each word gets a seeded random vector, the same vector every time the same (normalised) word is
  seen, so "The" and "the" are one word and repeated words are identical rows.
- "one-hot": each distinct word gets its own axis (d = number of distinct words): every word is similar only
  to itself, which shows what V·Vᵀ means before embeddings carry any meaning.
A trained model's own vectors come from the model (`AttentionModel.sentence`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

import torch

from attention_core.story.positional import positional_encoding
from attention_core.story.text import Token

EmbeddingKind = Literal["random", "one-hot"]


@dataclass(frozen=True)
class Sentence:
    """A sentence as matrices: `V` = word vectors (+ positions when asked); `known[i]` False for unknown words."""

    tokens: tuple[Token, ...]
    words: torch.Tensor  # (n, d) the word vectors alone
    V: torch.Tensor  # (n, d) words + positional encoding, or the words alone
    known: tuple[bool, ...]
    learned_positions: bool = False  # P = V − words is a learned table (BERT's), not the sinusoidal encoding

    @property
    def labels(self) -> list[str]:
        return [t.surface for t in self.tokens]


def _word_seed(word: str, seed: int) -> int:
    # A stable hash (Python's hash() changes between processes) so a word keeps its vector across runs.
    digest = hashlib.blake2b(f"{seed}\x00{word}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF


def random_vectors(words: list[str], d: int, seed: int = 0) -> torch.Tensor:
    """(n, d): a standard-normal vector per word, drawn from a generator seeded by the word and `seed`."""
    rows = [torch.randn(d, generator=torch.Generator().manual_seed(_word_seed(w, seed))) for w in words]
    return torch.stack(rows) if rows else torch.zeros(0, d)


def one_hot_vectors(words: list[str]) -> torch.Tensor:
    """(n, k) for k distinct words: row i has a single 1 at its word's axis (first occurrence order)."""
    axis = {w: i for i, w in enumerate(dict.fromkeys(words))}
    V = torch.zeros(len(words), max(len(axis), 1))
    for row, w in enumerate(words):
        V[row, axis[w]] = 1.0
    return V


def embed_sentence(
    tokens: list[Token],
    kind: EmbeddingKind = "random",
    *,
    d: int = 64,
    seed: int = 0,
    use_position: bool = True,
) -> Sentence:
    """The sentence as V (n × d): word vectors of the chosen kind, plus the sinusoidal positional encoding."""
    words = [t.norm for t in tokens]
    if kind == "random":
        vectors, known = random_vectors(words, d, seed), (True,) * len(words)
    elif kind == "one-hot":
        vectors, known = one_hot_vectors(words), (True,) * len(words)
    else:
        raise ValueError(f"unknown embedding kind {kind!r}")
    V = vectors + positional_encoding(len(words), vectors.shape[1]) if use_position else vectors
    return Sentence(tokens=tuple(tokens), words=vectors, V=V, known=known)
