"""English that can guess a hidden word: MiniLM's own layers, frozen, with a word-guessing head trained here.

MiniLM (all-MiniLM-L6-v2) was distilled for sentence similarity and ships no masked-word head. The head trained here
is BERT's own: a dense layer, GELU and LayerNorm on the blank's final vector, then a dot product with every word
piece's input vector (MiniLM's word embeddings, tied and frozen) plus a bias per piece. Only the head learns
(179,130 numbers); the heads a student sees on Multi-head are the ones that decide the guess.

from attention_core.models.english_guesser import load_guessing_minilm
english = load_guessing_minilm(folder)  # a head made by `python -m attention_core.training.english_head`
english.fill_mask("The cat sat on the [MASK].")

A head that passes the measurement (bench/english_guess_report.py) travels with the package in
attention_core/shipped/english, and the app then offers English guesses; none does yet (docs/english-guessing.md:
a frozen MiniLM gave its head too little to guess content words from).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from torch.nn import functional as F

from attention_core.models.interface import MaskedWordModel
from attention_core.models.knock_out import Ablation, HeadSet
from attention_core.models.pretrained import PretrainedModel, load_minilm
from attention_core.story.text import Token
from attention_core.words import N_

HEAD_FOLDER = Path(__file__).parents[1] / "shipped" / "english"  # attention_core/shipped/english
HEAD_WEIGHTS, HEAD_CARD = "guess_head.safetensors", "guess_head.json"
# A guess is a whole word: a piece that starts a word (not "##ing") and is made of letters, with at most one
# apostrophe inside (MiniLM's vocabulary is lower case); never [CLS], [MASK], punctuation or a number.
GUESSABLE = re.compile(r"[a-z]+(?:'[a-z]+)?")
CREDIT = N_(
    "English guesses: MiniLM's layers (all-MiniLM-L6-v2, Apache-2.0), unchanged, with a word-guessing head trained "
    "here on WordNet's glosses and examples, The Devil's Dictionary and everyday sentences written for this project."
)


class GuessHead(nn.Module):
    """BERT's masked-word head over a frozen encoder: transform (dense, GELU, LayerNorm), then scores against the
    encoder's own word-piece vectors (tied, not trained here) plus a learned bias per piece."""

    def __init__(self, d_model: int, vocab_size: int, eps: float = 1e-12) -> None:
        super().__init__()
        self.dense = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model, eps=eps)
        self.bias = nn.Parameter(torch.zeros(vocab_size))

    def forward(self, final: torch.Tensor, word_vectors: torch.Tensor) -> torch.Tensor:
        """(…, d) final vectors at blanks → (…, vocabulary) scores (logits)."""
        return self.norm(F.gelu(self.dense(final))) @ word_vectors.T + self.bias


def piece_vocabulary(model: PretrainedModel) -> list[str]:
    """Every word piece of the model's tokenizer, by id ("" for an id it does not name)."""
    return [model.tokenizer.id_to_token(i) or "" for i in range(model.model.config.vocab_size)]


def guessable_ids(vocabulary: list[str]) -> torch.Tensor:
    """(vocabulary,) bool: which pieces are whole words a guess may be (GUESSABLE)."""
    return torch.tensor([GUESSABLE.fullmatch(piece) is not None for piece in vocabulary])


class GuessingMiniLM(MaskedWordModel, PretrainedModel):
    """MiniLM with a word-guessing head: a MaskedWordModel whose attention, analysis and knock-outs are
    PretrainedModel's (word pieces, [CLS] … [SEP]). A blank is one [MASK] piece, so a guess is one piece: a
    whole word of MiniLM's 30,522 pieces (21,745 of them are words, GUESSABLE)."""

    can_fill_mask = True

    def __init__(self, minilm: PretrainedModel, head: GuessHead, *, card: dict[str, object] | None = None) -> None:
        PretrainedModel.__init__(self, minilm.model, minilm.tokenizer, name="MiniLM-L6 + a guessing head (English)")
        self.head = head.eval()
        self.card = card or {}
        self._vocabulary = piece_vocabulary(self)
        self._guessable = guessable_ids(self._vocabulary)

    @property
    def max_words(self) -> int:
        """The longest input in word pieces, less [CLS] and [SEP] (a word may be several pieces)."""
        return self.model.config.max_len - 2

    @property
    def guessable_words(self) -> int:
        return int(self._guessable.sum())

    @torch.no_grad()
    def word_probabilities(self, final: torch.Tensor) -> torch.Tensor:
        logits = self.head(final, self.model.word_embeddings.weight)
        logits = logits.masked_fill(~self._guessable, float("-inf"))
        return torch.softmax(logits, dim=-1)

    def word_shown(self, index: int) -> str:
        return self._vocabulary[index]

    @torch.no_grad()
    def predict(
        self, tokens: list[Token], k: int = 5, knock_out: HeadSet = (), ablation: Ablation = "zero"
    ) -> list[tuple[str, float]]:
        """The k likeliest words for the first [MASK], with the heads in `knock_out` removed."""
        analysis = self.analyze(tokens, knock_out, ablation)
        return self.guesses(analysis.final[self.blank_position(list(analysis.tokens))], k)


def head_shipped(folder: Path | None = None) -> bool:
    """Whether a head's weights are in `folder` (the shipped one by default), without loading anything: the app
    offers English guesses only then (docs/english-guessing.md says why none ships yet)."""
    return ((folder or HEAD_FOLDER) / HEAD_WEIGHTS).is_file()


def save_head(head: GuessHead, folder: Path, card: dict[str, object]) -> None:
    """The head's weights and a card saying how it was made and what it scored (JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    save_file({name: value.detach().contiguous() for name, value in head.state_dict().items()}, folder / HEAD_WEIGHTS)
    (folder / HEAD_CARD).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_guessing_minilm(folder: Path | None = None, minilm: PretrainedModel | None = None) -> GuessingMiniLM:
    """MiniLM (from its package, or `minilm`) with the head in `folder` (the shipped one by default). Raises
    ModelNotInstalledError without MiniLM's package, FileNotFoundError without the head."""
    folder = folder or HEAD_FOLDER
    minilm = minilm or load_minilm()
    config = minilm.model.config
    head = GuessHead(config.d_model, config.vocab_size, eps=config.eps)
    head.load_state_dict(load_file(folder / HEAD_WEIGHTS))
    card_path = folder / HEAD_CARD
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    return GuessingMiniLM(minilm, head, card=card)
