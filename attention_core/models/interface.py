"""What the app reads from any model, ours or pretrained. AttentionModel: its shape, how it reads a sentence
(encode, words_read, known_share, sentence), each layer's attention module and what it reads, and `analyze`,
which returns an Analysis. MaskedWordModel adds guessing a hidden word. TrainedModel (ours: one token per word,
its vector built from its pieces; a MaskedWordModel) and PretrainedModel (MiniLM, one token per word piece) build
on them, so heads.head_view and the pages take either."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import nn

from attention_core.models.knock_out import Ablation, HeadSet
from attention_core.models.multihead import MultiHeadAttention
from attention_core.models.word_pieces import WordPieces
from attention_core.story.embeddings import Sentence
from attention_core.story.text import CLS, MASK, SEP, Token, tokenize


@dataclass(frozen=True)
class Analysis:
    """A sentence inside a model. Row/column 0 is [CLS], which every sentence starts with in training."""

    tokens: tuple[Token, ...]  # the model's tokens: [CLS], then the words (or word pieces), then [SEP] if it uses one
    known: tuple[bool, ...]  # False for tokens the model cannot read (they enter as [UNK])
    V: torch.Tensor  # (n, d) what the first layer reads: word embedding + positions
    weights: torch.Tensor  # (n_layers, n_heads, n, n) softmax attention weights of every head
    pieces: WordPieces  # which tokens make which typed word
    inputs: tuple[torch.Tensor, ...]  # per layer (n, d): what its attention reads (heads.head_view starts there)
    final: torch.Tensor  # (n, d) the model's final word vectors (a masked-word model guesses a blank from its row)

    @property
    def labels(self) -> list[str]:
        return [t.surface for t in self.tokens]

    @property
    def special(self) -> tuple[bool, ...]:
        """Which tokens are the model's own [CLS] and [SEP] (typed text never makes them: "[CLS]" typed is three
        tokens)."""
        return tuple(t.surface in (CLS, SEP) for t in self.tokens)

    def attention_from(self, position: int) -> tuple[list[str], torch.Tensor]:
        """How the token at `position` spreads its attention: one row per (layer, head), shape (L·H, n)."""
        n_layers, n_heads = self.weights.shape[:2]
        rows = [f"layer {layer + 1} · head {head + 1}" for layer in range(n_layers) for head in range(n_heads)]
        return rows, self.weights[:, :, position, :].reshape(n_layers * n_heads, -1)


def unknown_as_zero(vectors: torch.Tensor, unknown: torch.Tensor) -> torch.Tensor:
    """The word vectors (n, d) with the rows of [UNK] pieces (unknown: (n,) bool) set to zero: the rule of every
    model's `sentence`. [UNK] stands for everything a model cannot read (every emoji for MiniLM, a word with a
    letter never seen for a model trained here), so one shared vector would make all of them alike, above every
    pair of real words (docs/english-model.md). Zero says that nothing is known of the word. A word of several
    pieces is the mean of its pieces' rows, an [UNK] piece counting as zero.

    Only V·Vᵀ's story reads this: a model's own layers read its own [UNK] vector. The models trained here zero it
    in their weights (TrainedModel), so their layers read zero too; MiniLM's layers read the vector it learned in
    pretraining, as Hugging Face's BERT does on the same ids (tests/test_pretrained.py compares the two)."""
    return vectors.masked_fill(unknown[:, None], 0.0)


def unread_rows_as_zero(V: torch.Tensor, known: tuple[bool, ...]) -> torch.Tensor:
    """V (n, d) with the whole row of every word the model cannot read set to zero, its position too: the rule of
    every model's `sentence`. With its position left in, two unknown neighbours compared by their places alone
    (cosine 0.67–0.89 for the emoji of "I love 🍕 and 🐱 so much 😊👍🏽" on MiniLM, above every pair of real words);
    a zero row resembles nothing, in dot products and in cosines, whatever its neighbours."""
    return unknown_as_zero(V, ~torch.tensor(known, dtype=torch.bool))


class ModelShape(Protocol):
    """What every network's config says (read-only: the configs are frozen dataclasses)."""

    @property
    def n_layers(self) -> int: ...
    @property
    def n_heads(self) -> int: ...
    @property
    def d_model(self) -> int: ...
    @property
    def max_len(self) -> int: ...


class AttentionModel(ABC):
    """A model whose `model` has a `config` (n_layers, n_heads, d_model) and `layers`, each with an `attention`."""

    model: nn.Module
    name: str
    reads_word_pieces: bool  # a typed word may be several tokens
    builds_words_from_pieces: bool = False  # one token per typed word, its vector the mean of its pieces' vectors
    has_position_bias: bool  # heads add a learned bias per distance to their scores
    can_fill_mask: bool  # the model has a masked-word head (a MaskedWordModel)

    @property
    @abstractmethod
    def shape(self) -> ModelShape:
        """The network's config: EncoderConfig or BertConfig, which both have these four numbers."""

    @property
    def n_layers(self) -> int:
        return self.shape.n_layers

    @property
    def n_heads(self) -> int:
        return self.shape.n_heads

    @property
    def d_model(self) -> int:
        return self.shape.d_model

    @abstractmethod
    def encode(self, tokens: list[Token]) -> tuple[list[Token], torch.Tensor, tuple[bool, ...]]:
        """(the model's own tokens for these typed ones, their ids as the model reads them, which are known)."""

    @abstractmethod
    def words_read(self, tokens: list[Token]) -> int:
        """How many of the typed words and marks the model reads (the rest are past its longest input)."""

    @abstractmethod
    def known_share(self, tokens: list[Token]) -> float:
        """Share of the typed words the model has a learned vector for."""

    @abstractmethod
    def sentence(self, tokens: list[Token], use_position: bool = True, whole_words: bool = True) -> Sentence:
        """The typed words as V = E + P from the model's own tables (its first layer's input, without [CLS]), for
        the raw V·Vᵀ story. Every model follows one rule there (unknown_as_zero): the word vector of an [UNK]
        piece is zero, so a word the model cannot read resembles no word and its row of V is its position alone."""

    @abstractmethod
    def analyze(
        self, tokens: list[Token], knock_out: HeadSet = (), ablation: Ablation = "zero", *, causal: bool = False
    ) -> Analysis:
        """The model's tokens, V, what each layer's attention reads, and every head's weights; with the heads in
        `knock_out` ((layer, head), from 0) removed, as models/knock_out.py says; causal: every word reads only
        itself and the words before it (a text generator's view), in every layer."""

    # One layer at a time, for whoever runs the stack themselves (models/head_importance.py runs every layer once,
    # then each later layer again on a batch of copies of the sentence, one head knocked out in each).
    @abstractmethod
    def first_input(self, tokens: list[Token]) -> torch.Tensor:
        """(1, n, d) what the first layer reads for the typed tokens (the model's tokens as `encode` gives them)."""

    @abstractmethod
    def run_layer(
        self, layer: int, x: torch.Tensor, knock_out: torch.Tensor | None = None, ablation: Ablation = "zero"
    ) -> torch.Tensor:
        """Layer `layer` (from 0) on x (B, n, d); knock_out (n_heads,) or (B, n_heads) bool: the heads removed."""

    @abstractmethod
    def final_states(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d) the model's final word vectors from the last layer's output x (B, n, d)."""

    def word_pieces(self, tokens: list[Token]) -> WordPieces:
        """Which of the model's tokens make which typed word ([CLS] and [SEP] are words of their own). This default
        is a model that reads one token per typed word (ours); a word-piece model overrides it."""
        model_tokens, _, known = self.encode(tokens)
        labels = [t.surface for t in model_tokens]
        return WordPieces.one_per_token(labels, [label in (CLS, SEP) for label in labels], list(known))

    def layer_inputs(self, tokens: list[Token]) -> tuple[tuple[Token, ...], list[torch.Tensor]]:
        """The model's tokens and what every layer's attention reads, (n, d) each."""
        analysis = self.analyze(tokens)
        return analysis.tokens, list(analysis.inputs)

    def attention_block(self, layer: int) -> MultiHeadAttention:
        block = self.model.get_submodule(f"layers.{layer}.attention")
        assert isinstance(block, MultiHeadAttention)  # every layer of both networks attends with this module
        return block

    def position_bias(self, layer: int, n: int) -> torch.Tensor | None:
        """(n_heads, n, n) the layer's learned bias per distance added to the scores, or None (the default)."""
        return None


class MaskedWordModel(AttentionModel):
    """A model that guesses a hidden word ([MASK]) from the words around it: what Fill the blank needs."""

    can_fill_mask = True

    @property
    @abstractmethod
    def max_words(self) -> int:
        """The longest sentence the model reads."""

    @property
    @abstractmethod
    def guessable_words(self) -> int:
        """How many whole words the model chooses its guesses from."""

    @abstractmethod
    def word_probabilities(self, final: torch.Tensor) -> torch.Tensor:
        """(…, d) final word vectors at a blank → (…, vocabulary) the probability of each word there."""

    @abstractmethod
    def word_shown(self, index: int) -> str:
        """Word `index` of word_probabilities' last axis, as people write it."""

    @abstractmethod
    def predict(
        self, tokens: list[Token], k: int = 5, knock_out: HeadSet = (), ablation: Ablation = "zero"
    ) -> list[tuple[str, float]]:
        """The k likeliest words for the first [MASK] token, with their probabilities, best first."""

    @staticmethod
    def blank_position(model_tokens: list[Token]) -> int:
        """Where the first [MASK] is among the model's tokens; ValueError if there is none."""
        blanks = [i for i, t in enumerate(model_tokens) if t.norm == MASK]
        if not blanks:
            raise ValueError("the text has no [MASK] to fill")
        return blanks[0]

    @torch.no_grad()
    def guesses(self, final: torch.Tensor, k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest words from a blank's final vector (d,), with their probabilities, best first."""
        probabilities = self.word_probabilities(final)
        top = torch.topk(probabilities, min(k, self.guessable_words))
        return [(self.word_shown(int(i)), float(p)) for p, i in zip(top.values, top.indices, strict=True)]

    def fill_mask(
        self, text: str, k: int = 5, knock_out: HeadSet = (), ablation: Ablation = "zero"
    ) -> list[tuple[str, float]]:
        """predict for a text as typed, with the heads in `knock_out` removed."""
        return self.predict(tokenize(text), k, knock_out, ablation)
