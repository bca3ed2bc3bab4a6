"""A trained model as the app uses it: fill in a [MASK], or look inside — V and every head's attention.

from attention_core import load_model
model = load_model()                      # the shipped Qur'an model
model.fill_mask("بسم الله [MASK] الرحيم")  # [("الرحمن", 0.93), …]
analysis = model.analyze("الحمد لله رب العالمين")
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch

from attention_core.attention_model import AttentionModel
from attention_core.checkpoint import load_checkpoint
from attention_core.embeddings import Sentence, TableEmbedding
from attention_core.encoder import MaskedLanguageModel
from attention_core.text import Token, tokenize
from attention_core.vocabulary import CLS, Vocabulary
from attention_core.word_pieces import WordPieces

SHIPPED = Path(__file__).parent / "shipped" / "quran"
CLS_TOKEN = Token(CLS, CLS, is_word=False)


@dataclass(frozen=True)
class Analysis:
    """A sentence inside a model. Row/column 0 is [CLS], which every sentence starts with in training."""

    tokens: tuple[Token, ...]  # the model's tokens: [CLS], then the words (or word pieces), then [SEP] if it uses one
    known: tuple[bool, ...]  # False for tokens the model cannot read (they enter as [UNK])
    V: torch.Tensor  # (n, d) what the first layer reads: word embedding + positions
    weights: torch.Tensor  # (n_layers, n_heads, n, n) softmax attention weights of every head
    pieces: WordPieces  # which tokens make which typed word
    inputs: tuple[torch.Tensor, ...]  # per layer (n, d): what its attention reads (heads.head_view starts there)

    @property
    def labels(self) -> list[str]:
        return [t.surface for t in self.tokens]

    def attention_from(self, position: int) -> tuple[list[str], torch.Tensor]:
        """How the token at `position` spreads its attention: one row per (layer, head), shape (L·H, n)."""
        n_layers, n_heads = self.weights.shape[:2]
        rows = [f"layer {layer + 1} · head {head + 1}" for layer in range(n_layers) for head in range(n_heads)]
        return rows, self.weights[:, :, position, :].reshape(n_layers * n_heads, -1)


class TrainedModel(AttentionModel):
    """A masked-language model trained here (the shipped Arabic one, or a user's), one token per typed word."""

    can_fill_mask = True
    reads_word_pieces = False  # one token per typed word

    def __init__(self, model: MaskedLanguageModel, vocabulary: Vocabulary, *, name: str, step: int) -> None:
        self.model = model.eval()
        self.vocabulary = vocabulary
        self.name = name
        self.step = step

    @property
    def has_position_bias(self) -> bool:
        """True when the heads add a learned bias per distance to their scores (the shipped "quran" preset)."""
        return self.model.config.position_bias

    def encode(self, tokens: list[Token]) -> tuple[list[Token], torch.Tensor, tuple[bool, ...]]:
        """([CLS] + tokens cut to max_len, their ids (1, n), which ones the vocabulary knows)."""
        tokens = [CLS_TOKEN, *tokens][: self.model.config.max_len]
        ids = self.vocabulary.encode(t.norm for t in tokens)
        known = tuple(t.norm in self.vocabulary.index for t in tokens)
        return tokens, torch.tensor([ids]), known

    @property
    def max_words(self) -> int:
        """The longest sentence the model reads: its position table's length less the [CLS] in front."""
        return self.model.config.max_len - 1

    def words_read(self, tokens: list[Token]) -> int:
        """How many of the typed words and marks the model reads."""
        return min(len(tokens), self.max_words)

    def known_share(self, tokens: list[Token]) -> float:
        """Share of the words (not punctuation) that the vocabulary knows; 0.0 for a sentence without words."""
        words = [t for t in tokens if t.is_word]
        return sum(t.norm in self.vocabulary.index for t in words) / len(words) if words else 0.0

    def fill_mask(self, text: str, k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest words for the first [MASK] in text, with their probabilities, best first."""
        return self.predict(tokenize(text), k)

    @torch.no_grad()
    def predict(self, tokens: list[Token], k: int = 5) -> list[tuple[str, float]]:
        """fill_mask for tokens: the k likeliest words for the first [MASK] token."""
        _, ids, _ = self.encode(tokens)
        blanks = (ids[0] == self.vocabulary.mask_id).nonzero().flatten()
        if len(blanks) == 0:
            raise ValueError("the text has no [MASK] to fill")
        logits = self.model(ids).logits[0, blanks[0]]
        logits[: self.vocabulary.n_special] = float("-inf")  # never answer with [PAD], [UNK], [MASK], [CLS]
        probabilities = torch.softmax(logits, dim=-1)
        top = torch.topk(probabilities, min(k, len(self.vocabulary) - self.vocabulary.n_special))
        return [(self.vocabulary.words[i], float(p)) for p, i in zip(top.values, top.indices, strict=True)]

    @torch.no_grad()
    def analyze(self, text: str | list[Token]) -> Analysis:
        """Tokens, V, what every layer's attention reads and every head's weights for a sentence (text or tokens).
        The layers run one by one, as MaskedLanguageModel.forward runs them in eval mode (a test compares)."""
        tokens, ids, known = self.encode(tokenize(text) if isinstance(text, str) else list(text))
        V = self.model.embed(ids)
        x, inputs, weights = V, [], []
        for layer in self.model.layers:
            inputs.append(layer.norm1(x)[0])  # pre-norm: the attention reads the normalised input
            x, layer_weights = layer(x, None, True)
            weights.append(layer_weights[0])
        labels = [t.surface for t in tokens]
        pieces = WordPieces.one_per_token(labels, [i == 0 for i in range(len(tokens))], list(known))
        return Analysis(tuple(tokens), known, V[0], torch.stack(weights), pieces, tuple(inputs))

    def position_bias(self, layer: int, n: int) -> torch.Tensor | None:
        """(n_heads, n, n) the layer's learned relative-position bias, or None without one."""
        bias = self.model.layers[layer].position_bias
        return bias(n)[0] if bias is not None else None

    def sentence(self, tokens: list[Token], use_position: bool = True, whole_words: bool = True) -> Sentence:
        """The sentence as the model's first layer sees it (without its [CLS]): trained word vectors, plus the
        positional encoding of the places the words take after [CLS] when use_position is on."""
        all_tokens, ids, known = self.encode(tokens)
        with torch.no_grad():  # the model's own embedding step only: no layer needs to run for V
            words = self.model.embed(ids, use_position=False)[0, 1:]
            V = self.model.embed(ids)[0, 1:] if use_position else words
        return Sentence(tokens=tuple(all_tokens[1:]), words=words, V=V, known=known[1:])

    def embedding(self) -> TableEmbedding:
        """The trained word vectors (scaled by √d, as the model scales them) as an embedding table."""
        table = self.model.embedding.weight.detach() * math.sqrt(self.model.config.d_model)
        return TableEmbedding(self.vocabulary.index, table, self.vocabulary.unk_id)


def load_model(path: str | Path | None = None) -> TrainedModel:
    """The shipped default model, or the checkpoint folder at `path` (raises CheckpointError if unusable)."""
    folder = Path(path) if path is not None else SHIPPED
    model, vocabulary, step = load_checkpoint(folder)
    return TrainedModel(model, vocabulary, name=folder.name, step=step)
