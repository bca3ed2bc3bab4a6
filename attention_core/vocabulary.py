"""The word-level vocabulary: the words the model has vectors for, built on the training split only."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from attention_core.text import tokenize

PAD, UNK, MASK, CLS = "[PAD]", "[UNK]", "[MASK]", "[CLS]"
SPECIALS = (PAD, UNK, MASK, CLS)  # ids 0, 1, 2, 3: never masked, never predicted


@dataclass(frozen=True)
class Vocabulary:
    words: tuple[str, ...]  # specials first, then words by falling count
    min_count: int = 1
    counts: tuple[int, ...] = field(default=(), compare=False)  # training counts, aligned with words

    @cached_property
    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    pad_id, unk_id, mask_id, cls_id = 0, 1, 2, 3
    n_special = len(SPECIALS)

    def encode(self, norms: Iterable[str]) -> list[int]:
        return [self.index.get(w, self.unk_id) for w in norms]

    def encode_line(self, line: str) -> list[int]:
        return self.encode(t.norm for t in tokenize(line))

    def to_json(self) -> str:
        return json.dumps({"words": list(self.words), "counts": list(self.counts), "min_count": self.min_count},
                          ensure_ascii=False)  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> Vocabulary:
        data = json.loads(text)
        words = tuple(data["words"])
        if words[: len(SPECIALS)] != SPECIALS:
            raise ValueError(f"vocabulary must start with the special tokens {SPECIALS}")
        return cls(words, int(data.get("min_count", 1)), tuple(data.get("counts", ())))


def build_vocabulary(lines: Iterable[str], min_count: int = 2, max_size: int = 8000) -> Vocabulary:
    """Words seen at least min_count times, the most frequent first, at most max_size entries in all."""
    counter = Counter(t.norm for line in lines for t in tokenize(line))
    kept = [(w, c) for w, c in counter.most_common() if c >= min_count and w not in SPECIALS]
    kept = kept[: max(0, max_size - len(SPECIALS))]
    return Vocabulary(SPECIALS + tuple(w for w, _ in kept), min_count, (0,) * len(SPECIALS) + tuple(c for _, c in kept))
