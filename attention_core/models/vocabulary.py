"""What a model trained here reads and writes, built on the training split only.

- It *reads* every word through its word pieces (`attention_core.models.piece_tokenizer`): any typed word gets a vector.
- It *writes* (guesses a masked word from) a list of whole words: those seen at least `min_count` times, the most
  frequent first; never an empty form or a mark (`never_guessed` keeps one that a vocabulary built before that rule
  holds out of every guess). Each is shown as people write it: the most frequent written form of that word in training
  (with hamza and tāʾ marbūṭa, without harakat), while the model looks words up in their normalised form.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import torch

from attention_core.models.piece_tokenizer import CLS, MASK, PAD, SPECIALS, UNK, Pieces, learn_pieces
from attention_core.story.text import TATWEEL, is_word_form, tokenize

__all__ = ["CLS", "MASK", "PAD", "SPECIALS", "UNK", "Vocabulary", "build_vocabulary", "written_form"]


def written_form(surface: str) -> str:
    """A word as people write it: the typed letters (hamza, tāʾ marbūṭa, alef forms kept), no harakat or tatweel."""
    text = unicodedata.normalize("NFC", surface)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn" and ch != TATWEEL)


@dataclass(frozen=True)
class Vocabulary:
    """Output words (ids: specials 0–3, then words by falling count) and the pieces every input word is read by."""

    words: tuple[str, ...]  # normalised, specials first
    pieces: Pieces = field(compare=False, repr=False)
    min_count: int = 1
    counts: tuple[int, ...] = field(default=(), compare=False)  # training counts, aligned with words
    written: tuple[str, ...] = field(default=(), compare=False)  # display form, aligned with words

    pad_id, unk_id, mask_id, cls_id = 0, 1, 2, 3
    n_special = len(SPECIALS)

    @cached_property
    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    @cached_property
    def never_guessed(self) -> tuple[int, ...]:
        """Output ids no guess may be: the specials, and any entry that is no word (a vocabulary built before the
        tokenizer called a lone tatweel a mark holds its empty form '': the shipped one, as id 18)."""
        return tuple(i for i, w in enumerate(self.words) if i < self.n_special or not is_word_form(w))

    def encode(self, norms: Iterable[str]) -> list[int]:
        """Output ids of normalised words ([UNK] for a word the model cannot guess)."""
        return [self.index.get(w, self.unk_id) for w in norms]

    def shown(self, word_id: int) -> str:
        """How a guessed word is displayed: its most frequent written form in training."""
        return self.written[word_id] if self.written else self.words[word_id]

    def is_known(self, norm: str) -> bool:
        """True when the model has a learned vector for the word: none of its pieces is [UNK]."""
        return self.pieces.is_known(norm)

    def output_pieces(self) -> torch.Tensor:
        """(len(self), P) the pieces of every word the model can guess, padded with [PAD] (0)."""
        rows = [self.pieces.ids(w) for w in self.words]
        table = torch.zeros(len(rows), max(map(len, rows)), dtype=torch.long)
        for i, row in enumerate(rows):
            table[i, : len(row)] = torch.tensor(row)
        return table

    def to_json(self) -> str:
        data = {
            "words": list(self.words),
            "counts": list(self.counts),
            "written": list(self.written),
            "min_count": self.min_count,
        }
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, pieces: Pieces) -> Vocabulary:
        data = json.loads(text)
        words = tuple(data["words"])
        if words[: len(SPECIALS)] != SPECIALS:
            raise ValueError(f"vocabulary must start with the special tokens {SPECIALS}")
        written = tuple(data.get("written", ()))
        if written and len(written) != len(words):
            raise ValueError(f"{len(written)} written forms for {len(words)} words")
        return cls(words, pieces, int(data.get("min_count", 1)), tuple(data.get("counts", ())), written)


def build_vocabulary(
    lines: Iterable[str], min_count: int = 2, max_size: int = 24_000, n_pieces: int = 16_000
) -> Vocabulary:
    """Pieces learned from every token of the lines; output words seen at least min_count times (punctuation
    and lone marks, tokens that are no word, are read but never guessed), at most max_size entries with the
    specials."""
    norms: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    for line in lines:
        for token in tokenize(line):
            norms[token.norm] += 1
            if token.is_word:
                forms.setdefault(token.norm, Counter())[written_form(token.surface)] += 1
    pieces = learn_pieces(norms, n_pieces)
    kept = [(w, c) for w, c in norms.most_common() if c >= min_count and w in forms and w not in SPECIALS]
    kept = kept[: max(0, max_size - len(SPECIALS))]
    written = SPECIALS + tuple(forms[w].most_common(1)[0][0] for w, _ in kept)
    counts = (0,) * len(SPECIALS) + tuple(c for _, c in kept)
    return Vocabulary(SPECIALS + tuple(w for w, _ in kept), pieces, min_count, counts, written)
