"""A BERT encoder in plain torch, built from our own MultiHeadAttention, so a pretrained BERT-family model
(MiniLM) runs through the same attention code, W1/W2/W3 included, as the models trained here.

BERT differs from our masked-language model in three ways, all kept here exactly as Devlin et al. (2019) have it:
- learned position vectors (a table of max_len rows) and a token-type vector are added to the word vector, and the
  sum is normalised before the first layer;
- post-norm layers: x = LayerNorm(x + attention(x)), then x = LayerNorm(x + feed_forward(x));
- the exact (erf) GELU in the feed-forward part.
Hugging Face's tensor names are mapped onto ours by `hf_state_dict_names`: query/key/value → W1/W2/W3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from attention_core.models.knock_out import Ablation
from attention_core.models.multihead import MultiHeadAttention
from attention_core.story.attention import future_blocked


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int
    d_model: int  # hidden_size
    n_heads: int  # num_attention_heads
    n_layers: int  # num_hidden_layers
    d_ff: int  # intermediate_size
    max_len: int  # max_position_embeddings: the longest input, [CLS] and [SEP] included
    type_vocab_size: int
    eps: float  # layer_norm_eps

    @classmethod
    def from_hf(cls, config: dict[str, Any]) -> BertConfig:
        """From a Hugging Face config.json of model_type "bert" with the exact GELU and absolute positions."""
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ValueError("only BERT models with the exact GELU are supported")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only BERT models with absolute (learned) position vectors are supported")
        return cls(
            vocab_size=int(config["vocab_size"]),
            d_model=int(config["hidden_size"]),
            n_heads=int(config["num_attention_heads"]),
            n_layers=int(config["num_hidden_layers"]),
            d_ff=int(config["intermediate_size"]),
            max_len=int(config["max_position_embeddings"]),
            type_vocab_size=int(config["type_vocab_size"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
        )


class BertLayer(nn.Module):
    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.norm1 = nn.LayerNorm(config.d_model, eps=config.eps)
        self.up = nn.Linear(config.d_model, config.d_ff)
        self.down = nn.Linear(config.d_ff, config.d_model)
        self.norm2 = nn.LayerNorm(config.d_model, eps=config.eps)

    def forward(
        self,
        x: torch.Tensor,
        need_weights: bool,
        knock_out: torch.Tensor | None = None,
        ablation: Ablation = "zero",
        causal: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        bias = future_blocked(x.shape[1], x.dtype) if causal else None  # only the words before (and itself)
        attended, weights = self.attention(
            x, need_weights=need_weights, attn_bias=bias, knock_out=knock_out, ablation=ablation
        )
        x = self.norm1(x + attended)  # post-norm: the attention reads x as the previous layer left it
        return self.norm2(x + self.down(F.gelu(self.up(x)))), weights


@dataclass(frozen=True)
class BertOutput:
    hidden_states: tuple[torch.Tensor, ...]  # n_layers + 1 of (B, T, d): the embedding output, then every layer's
    weights: tuple[torch.Tensor, ...] | None  # per layer (B, nh, T, T) when asked


class BertEncoder(nn.Module):
    """BERT's embeddings and layers (no pooler, no prediction head): ids (B, T) → hidden states and attention."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embeddings = nn.Embedding(config.max_len, config.d_model)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.d_model)
        self.embedding_norm = nn.LayerNorm(config.d_model, eps=config.eps)
        self.layers = nn.ModuleList(BertLayer(config) for _ in range(config.n_layers))

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """What the first layer reads: LayerNorm(word + position + token type 0) for ids (B, T)."""
        T = ids.shape[1]
        if T > self.config.max_len:
            raise ValueError(f"input of {T} word pieces is longer than the model's max_len {self.config.max_len}")
        positions = self.position_embeddings.weight[:T]
        segment = self.token_type_embeddings.weight[0]  # one sentence: every piece is of type 0
        return self.embedding_norm(self.word_embeddings(ids) + positions + segment)

    @property
    def blocks(self) -> list[BertLayer]:
        """The layers, typed (an nn.ModuleList does not say what it holds)."""
        return cast("list[BertLayer]", list(self.layers))

    def forward(
        self,
        ids: torch.Tensor,
        *,
        need_weights: bool = False,
        knock_out: Sequence[torch.Tensor | None] | None = None,
        ablation: Ablation = "zero",
        causal: bool = False,
    ) -> BertOutput:
        x = self.embed(ids)
        hidden, all_weights = [x], []
        for i, layer in enumerate(self.blocks):
            x, weights = layer(x, need_weights, knock_out[i] if knock_out is not None else None, ablation, causal)
            hidden.append(x)
            all_weights.append(weights)
        return BertOutput(tuple(hidden), tuple(all_weights) if need_weights else None)


def hf_state_dict_names(config: BertConfig) -> dict[str, str]:
    """Our parameter name → the Hugging Face BertModel name (no "bert." prefix) it is loaded from."""
    names = {
        "word_embeddings.weight": "embeddings.word_embeddings.weight",
        "position_embeddings.weight": "embeddings.position_embeddings.weight",
        "token_type_embeddings.weight": "embeddings.token_type_embeddings.weight",
        "embedding_norm.weight": "embeddings.LayerNorm.weight",
        "embedding_norm.bias": "embeddings.LayerNorm.bias",
    }
    ours_to_hf = {
        "attention.W1": "attention.self.query",
        "attention.W2": "attention.self.key",
        "attention.W3": "attention.self.value",
        "attention.out": "attention.output.dense",
        "norm1": "attention.output.LayerNorm",
        "up": "intermediate.dense",
        "down": "output.dense",
        "norm2": "output.LayerNorm",
    }
    for i in range(config.n_layers):
        for ours, hf in ours_to_hf.items():
            for kind in ("weight", "bias"):
                names[f"layers.{i}.{ours}.{kind}"] = f"encoder.layer.{i}.{hf}.{kind}"
    return names


def load_hf_weights(model: BertEncoder, tensors: dict[str, torch.Tensor]) -> None:
    """Copy a Hugging Face BertModel's tensors into `model`; a missing tensor or a wrong shape raises ValueError."""
    state = {}
    for ours, hf in hf_state_dict_names(model.config).items():
        if hf not in tensors:
            raise ValueError(f"the weights have no tensor {hf}")
        state[ours] = tensors[hf]
    expected = model.state_dict()
    for name, tensor in state.items():
        if tensor.shape != expected[name].shape:
            raise ValueError(f"{name}: shape {tuple(tensor.shape)} in the file, {tuple(expected[name].shape)} expected")
    model.load_state_dict(state, strict=True)
