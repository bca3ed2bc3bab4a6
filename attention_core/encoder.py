"""The masked-language-model encoder: word embedding + positional encoding, N attention layers, a word predictor.

A layer is two residual lines (pre-norm, as in GPT-2 and nanoGPT, which trains stably without warm-up tricks):
    x = x + attention(norm(x))
    x = x + feed_forward(norm(x))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn

from attention_core.multihead import MultiHeadAttention
from attention_core.positional import RelativePositionBias, positional_encoding


@dataclass(frozen=True)
class EncoderConfig:
    vocab_size: int = 8000  # words the model knows, special tokens included
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


PRESETS: dict[str, EncoderConfig] = {
    # name: config                                            parameters with an 8,000-word vocabulary
    "tiny": EncoderConfig(d_model=32, n_heads=2, n_layers=1, d_ff=64),  # 0.27 M, for tests
    "small": EncoderConfig(d_model=128, n_heads=4, n_layers=2, d_ff=512),  # 1.43 M
    "base": EncoderConfig(d_model=256, n_heads=8, n_layers=4, d_ff=1024),  # 5.22 M
    # The shipped Qur'an model: small and fast (steps per second matter most in 10 minutes on 2 cores), with a
    # learned relative-position bias whose heads start on the neighbouring words (see RelativePositionBias).
    # No dropout on the attention weights: it would hide a head's neighbour from it at random. 1.43 M (1.12 M
    # with the Qur'an's 5,639 words).
    "quran": EncoderConfig(
        d_model=128,
        n_heads=4,
        n_layers=2,
        d_ff=512,
        dropout=0.2,
        attention_dropout=0.0,
        position_bias=True,
        local_init=True,
    ),
}


def preset(name: str, **overrides: object) -> EncoderConfig:
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
        self, x: torch.Tensor, key_padding_mask: torch.Tensor | None, need_weights: bool
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        bias = self.position_bias(x.shape[1]) if self.position_bias is not None else None
        attended, weights = self.attention(self.norm1(x), key_padding_mask, need_weights=need_weights, attn_bias=bias)
        x = x + self.dropout(attended)
        x = x + self.feed_forward(self.norm2(x))
        return x, weights


class MaskedLanguageModel(nn.Module):
    """Predicts masked words from the words around them; attention is the only way words meet."""

    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_id)
        # Fixed, not learned: the sinusoidal table of Vaswani et al.; a buffer, so it is not saved with the weights.
        self.register_buffer("position", positional_encoding(config.max_len, config.d_model), persistent=False)
        self.dropout = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model)
        self.predictor = nn.Linear(config.d_model, config.vocab_size)
        self.predictor.weight = self.embedding.weight  # tied: predicting a word = finding the nearest word vector
        nn.init.normal_(self.embedding.weight, std=config.d_model**-0.5)

    def embed(self, ids: torch.Tensor, use_position: bool = True) -> torch.Tensor:
        """V for ids (B, T): word vectors scaled by √d (so the positional encoding, amplitude 1, does not
        drown them, as Vaswani et al. do) plus the positional encoding."""
        T = ids.shape[1]
        if T > self.config.max_len:
            raise ValueError(f"sentence of {T} tokens is longer than the model's max_len {self.config.max_len}")
        V = self.embedding(ids) * math.sqrt(self.config.d_model)
        return V + self.position[:T] if use_position and self.config.sinusoidal else V

    def forward(
        self,
        ids: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        *,
        need_weights: bool = False,
        predict_at: torch.Tensor | None = None,
        predict: bool = True,
    ) -> EncoderOutput:
        """ids (B, T) → EncoderOutput. predict_at (B, T) bool limits the word predictions to those positions
        (training predicts only masked words: the vocabulary-wide output layer is most of the cost)."""
        if key_padding_mask is None:
            key_padding_mask = ids == self.config.pad_id
        V = self.embed(ids)
        x = self.dropout(V)
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, key_padding_mask, need_weights)
            all_weights.append(weights)
        hidden = self.norm(x)
        logits = None
        if predict:
            logits = self.predictor(hidden if predict_at is None else hidden[predict_at])
        return EncoderOutput(V=V, hidden=hidden, logits=logits, weights=tuple(all_weights) if need_weights else None)
