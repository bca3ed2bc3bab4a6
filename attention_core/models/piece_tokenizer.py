"""Word pieces: how a model trained here reads any word, also one it never saw in training.

A WordPiece vocabulary (Hugging Face `tokenizers`, the algorithm of BERT) is learned from the normalised words of
the training text: frequent words stay whole, rarer ones split into frequent parts, so «المدرسة», absent from the
Qurʾān and the hadith, is read as المد ##رس ##ة. The model then builds each word's vector from its pieces' vectors
(their mean, as fastText builds a word from its parts), and attention still runs over whole words: one row per
typed word in every heatmap. Only a word with a character never seen in training is [UNK].

WordPiece rather than BPE or Unigram: at 16,000 pieces it keeps common words whole and splits the rest into
readable parts (Unigram split everyday words more finely, see docs/arabic-model.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from attention_core.story.text import CLS, MASK, PAD, UNK

SPECIALS = (PAD, UNK, MASK, CLS)  # piece ids 0, 1, 2, 3, as the word ids of the vocabulary
MAX_PIECES = 12  # a word split into more pieces keeps its first twelve (longer words are names or typos)


class Pieces:
    """The word-piece tokenizer of a model trained here: normalised word → piece ids (special tokens whole)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        if [tokenizer.token_to_id(s) for s in SPECIALS] != [0, 1, 2, 3]:
            raise ValueError(f"a piece vocabulary must start with {SPECIALS}")
        self.tokenizer = tokenizer
        self._cache: dict[str, tuple[int, ...]] = {}  # a word's pieces never change: computed once per word

    def __len__(self) -> int:
        return self.tokenizer.get_vocab_size()

    def ids(self, word: str) -> tuple[int, ...]:
        """The piece ids of one normalised word (a special token is its own single piece)."""
        cached = self._cache.get(word)
        if cached is None:
            special = self.tokenizer.token_to_id(word) if word in SPECIALS else None
            ids = (special,) if special is not None else tuple(self.tokenizer.encode(word).ids[:MAX_PIECES])
            cached = ids or (1,)  # a word the tokenizer reads as nothing is unknown
            self._cache[word] = cached
        return cached

    def strings(self, word: str) -> list[str]:
        """The pieces as text (continuations start with ##), for showing how a word was read."""
        return [self.tokenizer.id_to_token(i) or "[UNK]" for i in self.ids(word)]  # every id here is the vocabulary's

    def is_known(self, word: str) -> bool:
        """False when a piece of the word is [UNK]: it has a character never seen in training."""
        return 1 not in self.ids(word)

    def to_json(self) -> str:
        return self.tokenizer.to_str()

    @classmethod
    def from_json(cls, text: str) -> Pieces:
        return cls(Tokenizer.from_str(text))


def learn_pieces(words: Counter[str], size: int = 16_000, min_frequency: int = 2) -> Pieces:
    """A WordPiece vocabulary of at most `size` pieces learned from word counts (normalised words).

    Each word is shown to the trainer as often as it occurs, capped at 50, so the formulaic words of the
    hadith's chains of narrators do not take all the long pieces."""
    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK, max_input_chars_per_word=100))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordPieceTrainer(
        vocab_size=size, special_tokens=list(SPECIALS), min_frequency=min_frequency, show_progress=False
    )

    def occurrences() -> Iterable[str]:
        for word, count in words.items():
            if word not in SPECIALS and not any(ch.isspace() for ch in word):
                yield from (word,) * min(count, 50)

    tokenizer.train_from_iterator(occurrences(), trainer)
    return Pieces(tokenizer)
