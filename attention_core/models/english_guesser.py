"""English that can guess a hidden word: MiniLM with a word-guessing head, its layers frozen or retrained here.

MiniLM (all-MiniLM-L6-v2) was distilled for sentence similarity and ships no masked-word head. The head is BERT's
own: a dense layer, GELU and LayerNorm on the blank's final vector, then a dot product with every word piece's input
vector (MiniLM's word embeddings, tied and frozen) plus a bias per piece. Trained alone on the frozen MiniLM
(training/english_head.py) it learns 179,130 numbers and guesses poorly: MiniLM never read a [MASK]. What ships
(attention_core/shipped/english) is MiniLM's six layers and [MASK] row retrained with the head
(training/english_tune.py, docs/english-guessing.md), loaded on a copy of MiniLM so the reading pages keep the
pretrained one; the heads a sentence with a blank shows are the ones that decide its guess.

from attention_core.models.english_guesser import load_guessing_minilm
english = load_guessing_minilm()  # the shipped guesser
english.fill_mask("The cat sat on the [MASK].")
"""

from __future__ import annotations

import copy
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
# MiniLM's layers as retrained here (attention_core/training/english_tune.py), stored in half precision (the guesses
# it changes are below the shown digits; the file halves): every tensor but the word-piece table, plus the [MASK] row.
TUNED_WEIGHTS, MASK_ROW, MASK_PIECE = "tuned_layers.safetensors", "mask_row", 103
# A guess is a whole word: a piece that starts a word (not "##ing") and is made of letters, with at most one
# apostrophe inside (MiniLM's vocabulary is lower case); never [CLS], [MASK], punctuation or a number.
GUESSABLE = re.compile(r"[a-z]+(?:'[a-z]+)?")
CREDIT = N_(
    "English guesses: MiniLM's layers (all-MiniLM-L6-v2, Apache-2.0), unchanged, with a word-guessing head trained "
    "here on WordNet's glosses and examples, The Devil's Dictionary and everyday sentences written for this project."
)
CREDIT_RETRAINED = N_(
    "English guesses: MiniLM (all-MiniLM-L6-v2, Apache-2.0) with its six layers retrained here, with a word-guessing "
    "head, on WordNet's glosses and examples and on everyday sentences written for this project."
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

    def __init__(
        self,
        minilm: PretrainedModel,
        head: GuessHead,
        *,
        card: dict[str, object] | None = None,
        retrained: bool = False,
    ) -> None:
        name = "MiniLM-L6 retrained to guess (English)" if retrained else "MiniLM-L6 + a guessing head (English)"
        PretrainedModel.__init__(self, minilm.model, minilm.tokenizer, name=name)
        self.retrained = retrained  # MiniLM's layers retrained with the head (english_tune), not only a head
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
    offers English guesses only then."""
    return ((folder or HEAD_FOLDER) / HEAD_WEIGHTS).is_file()


def retrained_shipped(folder: Path | None = None) -> bool:
    """Whether `folder` (the shipped one by default) also holds MiniLM's layers retrained with the head."""
    return head_shipped(folder) and ((folder or HEAD_FOLDER) / TUNED_WEIGHTS).is_file()


def guesser_credit(folder: Path | None = None) -> str:
    """The credit of the English guesser in `folder` (untranslated, N_): a head alone, or retrained layers."""
    return CREDIT_RETRAINED if retrained_shipped(folder) else CREDIT


def save_head(head: GuessHead, folder: Path, card: dict[str, object]) -> None:
    """The head's weights and a card saying how it was made and what it scored (JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    save_file({name: value.detach().contiguous() for name, value in head.state_dict().items()}, folder / HEAD_WEIGHTS)
    (folder / HEAD_CARD).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def save_guesser(guesser: GuessingMiniLM, folder: Path, card: dict[str, object]) -> None:
    """A retrained guesser: its head (save_head) and MiniLM's retrained layers and [MASK] row (TUNED_WEIGHTS)."""
    save_head(guesser.head, folder, card)
    tensors = {name: value for name, value in guesser.model.state_dict().items() if name != "word_embeddings.weight"}
    tensors[MASK_ROW] = guesser.model.word_embeddings.weight[MASK_PIECE]
    save_file({name: value.detach().half().contiguous() for name, value in tensors.items()}, folder / TUNED_WEIGHTS)


def load_guessing_minilm(folder: Path | None = None, minilm: PretrainedModel | None = None) -> GuessingMiniLM:
    """MiniLM (from its package, or `minilm`) with the head in `folder` (the shipped one by default), and MiniLM's
    layers as retrained there when the folder holds them (then on a copy: `minilm` itself is left as it was).
    Raises ModelNotInstalledError without MiniLM's package, FileNotFoundError without the head."""
    folder = folder or HEAD_FOLDER
    minilm = minilm or load_minilm()
    config = minilm.model.config
    head = GuessHead(config.d_model, config.vocab_size, eps=config.eps)
    head.load_state_dict(load_file(folder / HEAD_WEIGHTS))
    retrained = (folder / TUNED_WEIGHTS).is_file()
    if retrained:
        minilm = PretrainedModel(copy.deepcopy(minilm.model), minilm.tokenizer, name=minilm.name)
        tensors = {name: value.float() for name, value in load_file(folder / TUNED_WEIGHTS).items()}
        mask_row = tensors.pop(MASK_ROW)
        missing, unexpected = minilm.model.load_state_dict(tensors, strict=False)
        if missing != ["word_embeddings.weight"] or unexpected:
            found = f"missing {missing}, unexpected {unexpected}"
            raise ValueError(f"{folder / TUNED_WEIGHTS}: not MiniLM's layers ({found})")
        with torch.no_grad():
            minilm.model.word_embeddings.weight[MASK_PIECE] = mask_row
    card_path = folder / HEAD_CARD
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    return GuessingMiniLM(minilm, head, card=card, retrained=retrained)
