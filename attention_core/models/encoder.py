"""The masked-language-model encoder: word vectors built from word pieces + positional encoding, N attention layers,
a word predictor.

A word's vector is the mean of its pieces' vectors (fastText's idea), so every typed word has one, and attention
runs over whole words. The predictor scores every output word by its own vector built the same way (tied weights:
predicting a word = finding the word vector nearest to the masked place's final vector).

A layer is two residual lines (pre-norm, as in GPT-2 and nanoGPT; the trainer still warms up its learning rate):
    x = x + attention(norm(x))
    x = x + feed_forward(norm(x))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from attention_core.models.knock_out import Ablation
from attention_core.models.multihead import MultiHeadAttention
from attention_core.models.position_bias import RelativePositionBias
from attention_core.story.attention import future_blocked
from attention_core.story.positional import positional_encoding

if TYPE_CHECKING:
    from attention_core.models.vocabulary import Vocabulary


@dataclass(frozen=True)
class EncoderConfig:
    vocab_size: int = 8000  # words the model can guess, special tokens included
    n_pieces: int | None = None  # word pieces it reads words by; None: one piece per word (piece i = word i)
    d_model: int = 128  # width of every word vector
    n_heads: int = 4  # attentions side by side; each has width d_model / n_heads
    n_layers: int = 2  # attention layers stacked; higher ones can combine lower ones' relations
    d_ff: int = 512  # hidden width of the feed-forward part of a layer, usually 4 · d_model
    max_len: int = 256  # longest sentence the positional encoding table covers
    dropout: float = 0.1  # regularisation; small corpora overfit quickly without it
    attention_dropout: float | None = None  # dropout on attention weights; None: the same as dropout
    pad_id: int = 0  # the [PAD] token's id: never attended to, never predicted
    sinusoidal: bool = True  # add the sinusoidal positional encoding to the word vectors
    position_bias: bool = False  # a learned bias per head and relative distance inside attention's scores
    max_distance: int = 8  # distances beyond ± this share one bias value
    local_init: bool = False  # start each head's position bias on a neighbour (−1, +1, −2, …) instead of 0
    position_bias_lr: float = 1.0  # the position bias's learning rate, as a multiple of the trainer's


# The shipped Arabic model (Qurʾān + hadith, read through word pieces): three layers of 4 heads, d = 128, each head's
# position bias started on a neighbour (−1, +1, −2, +2: see RelativePositionBias), so the heads do not have to find
# their neighbours first. No dropout on the attention weights: it would hide a head's neighbour from it at random.
# Why this size: docs/arabic-model.md.
_ARABIC = EncoderConfig(
    d_model=128,
    n_heads=4,
    n_layers=3,
    d_ff=512,
    dropout=0.1,
    attention_dropout=0.0,
    position_bias=True,
    local_init=True,
    max_len=256,
)

PRESETS: dict[str, EncoderConfig] = {
    # name: config                                            parameters with 8,000 pieces
    "tiny": EncoderConfig(d_model=32, n_heads=2, n_layers=1, d_ff=64),  # 0.27 M, for tests
    "small": EncoderConfig(d_model=128, n_heads=4, n_layers=2, d_ff=512),  # 1.43 M
    "base": EncoderConfig(d_model=256, n_heads=8, n_layers=4, d_ff=1024),  # 5.22 M
    "arabic": _ARABIC,
    # The Train page's live demo: the shipped model's size and shape with nothing built in. Its position bias
    # starts at 0 (no head prefers any place) and learns 50 times faster than the other weights, so a class sees
    # heads become previous- and next-word heads within a minute or two (at 1 ×: none in 2 minutes). Measured by
    # bench/live_emergence.py (docs/runs/live_emergence.txt).
    "live": replace(_ARABIC, local_init=False, position_bias_lr=50.0),
}


def preset(name: str, **overrides: Any) -> EncoderConfig:
    """A named preset, with fields overridden (e.g. the vocabulary size of a corpus)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return replace(PRESETS[name], **overrides)


@dataclass(frozen=True)
class EncoderOutput:
    V: torch.Tensor  # (B, T, d) word embedding + positional encoding: the sentence as the first layer sees it
    hidden: torch.Tensor  # (B, T, d) the last layer's word vectors, normalised
    logits: torch.Tensor | None  # (B, T, vocab) or (N, vocab) at the asked positions; None if not asked
    weights: tuple[torch.Tensor, ...] | None  # per layer (B, nh, T, T); None when not asked


class FeedForward(nn.Module):
    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.up = nn.Linear(config.d_model, config.d_ff)
        self.down = nn.Linear(config.d_ff, config.d_model)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.down(F.gelu(self.up(x))))


class EncoderLayer(nn.Module):
    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(config.d_model)
        attention_dropout = config.dropout if config.attention_dropout is None else config.attention_dropout
        self.attention = MultiHeadAttention(config.d_model, config.n_heads, dropout=attention_dropout)
        self.norm2 = nn.LayerNorm(config.d_model)
        self.feed_forward = FeedForward(config)
        self.dropout = nn.Dropout(config.dropout)
        self.position_bias = (
            RelativePositionBias(config.n_heads, config.max_distance, local_init=config.local_init)
            if config.position_bias
            else None
        )

    def forward(
        self,
        x: torch.Tensor,
        key_padding_mask: torch.Tensor | None,
        need_weights: bool,
        knock_out: torch.Tensor | None = None,
        ablation: Ablation = "zero",
        causal: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        bias = self.position_bias(x.shape[1]) if self.position_bias is not None else None
        if causal:  # a word reads only itself and the words before it: the future's scores are −∞
            blocked = future_blocked(x.shape[1], x.dtype)
            bias = blocked if bias is None else bias + blocked
        attended, weights = self.attention(
            self.norm1(x),
            key_padding_mask,
            need_weights=need_weights,
            attn_bias=bias,
            knock_out=knock_out,
            ablation=ablation,
        )
        x = x + self.dropout(attended)
        x = x + self.feed_forward(self.norm2(x))
        return x, weights


class PieceEmbedding(nn.Module):
    """Word vectors from word pieces: (…, P) piece ids → (…, d), the mean of the word's pieces' vectors.
    [PAD] (piece 0) fills the unused places of a row and counts for nothing; a row of only [PAD] is a zero vector."""

    def __init__(self, n_pieces: int, d_model: int, pad_id: int = 0) -> None:
        super().__init__()
        self.pad_id = pad_id
        self.weight = nn.Parameter(torch.randn(n_pieces, d_model) * d_model**-0.5)

    def forward(self, pieces: torch.Tensor) -> torch.Tensor:
        # embedding_bag averages each row's pieces without materialising (…, P, d); padding_idx leaves [PAD] out.
        flat = F.embedding_bag(pieces.reshape(-1, pieces.shape[-1]), self.weight, mode="mean", padding_idx=self.pad_id)
        return flat.reshape(*pieces.shape[:-1], self.weight.shape[1])


class MaskedLanguageModel(nn.Module):
    """Predicts masked words from the words around them; attention is the only way words meet.

    `output_pieces` (vocab_size, P) holds the pieces of every word the model can guess; without it, output word i
    is piece i alone (a model with one vector per word, as in the tests)."""

    position: torch.Tensor  # buffers, registered in __init__ (nn.Module's attribute lookup does not say so)
    output_pieces: torch.Tensor

    def __init__(self, config: EncoderConfig, output_pieces: torch.Tensor | None = None) -> None:
        super().__init__()
        self.config = config
        n_pieces = config.n_pieces or config.vocab_size
        self.embedding = PieceEmbedding(n_pieces, config.d_model, config.pad_id)
        if output_pieces is None:
            output_pieces = torch.arange(config.vocab_size).unsqueeze(1)
        if output_pieces.shape[0] != config.vocab_size or int(output_pieces.max()) >= n_pieces:
            raise ValueError(f"output_pieces must have {config.vocab_size} rows of piece ids below {n_pieces}")
        # Derived from the tokenizer and the vocabulary, so not saved with the weights.
        self.register_buffer("output_pieces", output_pieces, persistent=False)  # (vocab_size, P)
        # Fixed, not learned: the sinusoidal table of Vaswani et al.; a buffer, so it is not saved with the weights.
        self.register_buffer("position", positional_encoding(config.max_len, config.d_model), persistent=False)
        self.dropout = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model)
        self.output_bias = nn.Parameter(torch.zeros(config.vocab_size))  # how common each word is

    @property
    def blocks(self) -> list[EncoderLayer]:
        """The layers, typed (an nn.ModuleList does not say what it holds)."""
        return cast("list[EncoderLayer]", list(self.layers))

    @classmethod
    def for_vocabulary(cls, config: EncoderConfig, vocabulary: Vocabulary) -> MaskedLanguageModel:
        """A new model of this config's shape, sized for the vocabulary: its output words and its pieces."""
        sized = replace(config, vocab_size=len(vocabulary), n_pieces=len(vocabulary.pieces))
        return cls(sized, vocabulary.output_pieces())

    @staticmethod
    def as_pieces(ids: torch.Tensor) -> torch.Tensor:
        """(B, T) ids of one-piece tokens → (B, T, 1); (B, T, P) pieces pass through."""
        return ids.unsqueeze(-1) if ids.dim() == 2 else ids

    def word_vectors(self, pieces: torch.Tensor) -> torch.Tensor:
        """(…, P) pieces → (…, d) word vectors, before the √d scaling of `embed`."""
        return self.embedding(pieces)

    def output_vectors(self) -> torch.Tensor:
        """(vocab_size, d) the vector of every word the model can guess, built from its pieces."""
        return self.embedding(self.output_pieces)

    def embed(self, ids: torch.Tensor, use_position: bool = True) -> torch.Tensor:
        """V for a batch (B, T, P) of pieces (or (B, T) one-piece ids): word vectors scaled by √d (so the
        positional encoding, amplitude 1, does not drown them, as Vaswani et al. do) plus the positional encoding."""
        pieces = self.as_pieces(ids)
        T = pieces.shape[1]
        if T > self.config.max_len:
            raise ValueError(f"sentence of {T} tokens is longer than the model's max_len {self.config.max_len}")
        V = self.embedding(pieces) * math.sqrt(self.config.d_model)
        return V + self.position[:T] if use_position and self.config.sinusoidal else V

    def predict_words(self, hidden: torch.Tensor, output_vectors: torch.Tensor | None = None) -> torch.Tensor:
        """(…, d) final vectors → (…, vocab_size) scores of every word. output_vectors: this model's own
        output_vectors() computed earlier (frozen weights), so a caller guessing often builds them once."""
        vectors = self.output_vectors() if output_vectors is None else output_vectors
        return hidden @ vectors.T + self.output_bias

    def forward(
        self,
        ids: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        *,
        need_weights: bool = False,
        predict_at: torch.Tensor | None = None,
        predict: bool = True,
        knock_out: Sequence[torch.Tensor | None] | None = None,
        ablation: Ablation = "zero",
        causal: bool = False,
    ) -> EncoderOutput:
        """pieces (B, T, P) (or one-piece ids (B, T)) → EncoderOutput. predict_at (B, T) bool limits the word
        predictions to those positions (training predicts only masked words: the word-wide output layer is most
        of the cost)."""
        pieces = self.as_pieces(ids)
        if key_padding_mask is None:
            key_padding_mask = pieces[..., 0] == self.config.pad_id
        V = self.embed(pieces)
        x = self.dropout(V)
        all_weights = []
        for i, layer in enumerate(self.blocks):
            removed = knock_out[i] if knock_out is not None else None  # per layer: models/knock_out.head_masks
            x, weights = layer(x, key_padding_mask, need_weights, removed, ablation, causal)
            all_weights.append(weights)
        hidden = self.norm(x)
        logits = None
        if predict:
            logits = self.predict_words(hidden if predict_at is None else hidden[predict_at])
        return EncoderOutput(V=V, hidden=hidden, logits=logits, weights=tuple(all_weights) if need_weights else None)
