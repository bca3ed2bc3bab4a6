"""Lines of text → windows of token ids → padded batches of word pieces, similar lengths together.

A token id is a word's place in a `Lexicon`: the vocabulary's words first (ids below len(vocabulary), the words
the model can guess), then every other token met (rarer words, punctuation), each with its pieces. The model reads
pieces (B, T, P); masking and scoring use the ids.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

from attention_core.models.piece_tokenizer import MAX_PIECES
from attention_core.models.vocabulary import Vocabulary
from attention_core.story.text import tokenize


class Lexicon:
    """Every token of a text as an id, with its word pieces. Grows as new tokens are met (training and
    evaluation only, one thread); the vocabulary's words keep their ids, so id < n_output means "guessable"."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.n_output = len(vocabulary)
        self.index: dict[str, int] = dict(vocabulary.index)
        self.pieces: list[tuple[int, ...]] = [vocabulary.pieces.ids(w) for w in vocabulary.words]
        self.is_word: list[bool] = [i >= vocabulary.n_special for i in range(len(vocabulary))]
        self._table: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.pieces)

    def copy(self) -> Lexicon:
        """A lexicon with the same ids that grows on its own (a shared prepared corpus stays as it was)."""
        twin = Lexicon.__new__(Lexicon)
        twin.vocabulary, twin.n_output, twin._table = self.vocabulary, self.n_output, self._table
        twin.index, twin.pieces, twin.is_word = dict(self.index), list(self.pieces), list(self.is_word)
        return twin

    def id(self, norm: str, is_word: bool) -> int:
        found = self.index.get(norm)
        if found is None:
            found = self.index[norm] = len(self.pieces)
            self.pieces.append(self.vocabulary.pieces.ids(norm))
            self.is_word.append(is_word)
            self._table = None
        return found

    def encode_line(self, line: str) -> list[int]:
        return [self.id(t.norm, t.is_word) for t in tokenize(line)]

    def table(self) -> torch.Tensor:
        """(len(self), MAX_PIECES) piece ids of every token, padded with [PAD] (0)."""
        if self._table is None or len(self._table) != len(self.pieces):
            table = torch.zeros(len(self.pieces), MAX_PIECES, dtype=torch.long)
            for i, pieces in enumerate(self.pieces):
                table[i, : len(pieces)] = torch.tensor(pieces)
            self._table = table
        return self._table

    def word_mask(self) -> torch.Tensor:
        """(len(self),) True for words (punctuation and specials are read, never masked)."""
        return torch.tensor(self.is_word)

    def pieces_of(self, ids: torch.Tensor) -> torch.Tensor:
        """(…,) token ids → (…, P) piece ids, P the most pieces any of these tokens has."""
        rows = self.table()[ids]
        width = max(1, int((rows != 0).sum(-1).max())) if rows.numel() else 1
        return rows[..., :width]


def encode_lines(lines: tuple[str, ...] | list[str], lexicon: Lexicon, max_len: int) -> list[list[int]]:
    """[CLS] + the line's token ids; a line longer than max_len becomes consecutive windows of it (a long hadith
    is read in parts, each with its own [CLS]). Lines without tokens are dropped."""
    encoded = []
    width = max_len - 1
    for line in lines:
        ids = lexicon.encode_line(line)
        for start in range(0, len(ids), width):
            encoded.append([lexicon.vocabulary.cls_id, *ids[start : start + width]])
    return encoded


def pad(sequences: list[list[int]], pad_id: int = 0) -> torch.Tensor:
    """(B, T) with T the longest sequence; shorter ones padded on the right."""
    T = max(len(s) for s in sequences)
    batch = torch.full((len(sequences), T), pad_id, dtype=torch.long)
    for row, sequence in enumerate(sequences):
        batch[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
    return batch


def length_bucketed_batches(
    sequences: list[list[int]],
    batch_size: int,
    generator: torch.Generator,
    *,
    rank: int = 0,
    world_size: int = 1,
    max_tokens: int | None = None,
) -> Iterator[torch.Tensor]:
    """One epoch of shuffled batches. Sequences are sorted by length inside random pools of 50 batches, so a
    batch holds similar lengths (a line runs from 2 to 128 tokens) while the order of batches stays random.
    max_tokens caps a batch's size × its longest sequence, so batches of long windows hold fewer of them.
    With several processes, each rank takes every world_size-th batch (all ranks see equal batch counts)."""
    order = torch.randperm(len(sequences), generator=generator).tolist()
    pool = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(sequences[i]))
        batch: list[int] = []
        for i in chunk:
            longest = len(sequences[i])  # sorted: the newest is the longest
            if batch and (len(batch) == batch_size or (max_tokens and (len(batch) + 1) * longest > max_tokens)):
                batches.append(batch)
                batch = []
            batch.append(i)
        if batch:
            batches.append(batch)
    shuffled = [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]
    usable = len(shuffled) - len(shuffled) % world_size
    for batch in shuffled[rank:usable:world_size]:
        yield pad([sequences[i] for i in batch])
