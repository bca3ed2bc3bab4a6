"""What the app reads from any model, ours or pretrained: its shape, each layer's attention module, and what each
layer's attention reads. TrainedModel (ours: one token per word, its vector built from its pieces) and
PretrainedModel (MiniLM, one token per word piece) both build on it, so heads.head_view and the pages take either."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

import torch
from torch import nn

from attention_core.multihead import MultiHeadAttention
from attention_core.text import Token

if TYPE_CHECKING:
    from attention_core.inference import Analysis


class AttentionModel(ABC):
    """A model whose `model` has a `config` (n_layers, n_heads, d_model) and `layers`, each with an `attention`."""

    model: nn.Module
    reads_word_pieces: bool  # a typed word may be several tokens
    builds_words_from_pieces: bool = False  # one token per typed word, its vector the mean of its pieces' vectors
    has_position_bias: bool  # heads add a learned bias per distance to their scores
    can_fill_mask: bool  # the model has a masked-word head

    @property
    def n_layers(self) -> int:
        return self.model.config.n_layers

    @property
    def n_heads(self) -> int:
        return self.model.config.n_heads

    @property
    def d_model(self) -> int:
        return self.model.config.d_model

    @abstractmethod
    def analyze(self, tokens: list[Token]) -> Analysis:
        """The model's tokens, V, what each layer's attention reads, and every head's weights."""

    def layer_inputs(self, tokens: list[Token]) -> tuple[tuple[Token, ...], list[torch.Tensor]]:
        """The model's tokens and what every layer's attention reads, (n, d) each."""
        analysis = self.analyze(tokens)
        return analysis.tokens, list(analysis.inputs)

    def attention_block(self, layer: int) -> MultiHeadAttention:
        return self.model.layers[layer].attention

    def position_bias(self, layer: int, n: int) -> torch.Tensor | None:
        """(n_heads, n, n) the layer's learned bias per distance added to the scores, or None (the default)."""
        return None
