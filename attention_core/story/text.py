"""Split a sentence into words, keeping what the user typed (for labels) and a normalised form (for look-up).

Arabic is normalised the way Arabic NLP usually is: harakat (Unicode category Mn) and tatweel are stripped and
the alef variants are unified, so "أَكَلَ" and "اكل" find the same vector. Latin script is case-folded.
Punctuation becomes its own token, so "mat." and "mat" are the same word.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

TATWEEL = "\u0640"
ALEF_VARIANTS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ٲ": "ا", "ٳ": "ا"})
# Characters that join two word pieces into one word when they sit between letters: don't, well-known.
INNER_JOINERS = frozenset("'’-")
# Invisible format characters (zero-width space/joiners, bidi controls, BOM) never belong to a word.
INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")


@dataclass(frozen=True)
class Token:
    """One word or punctuation mark: `surface` is what the user typed, `norm` what the model looks up."""

    surface: str
    norm: str
    is_word: bool


def is_arabic_char(ch: str) -> bool:
    """True for characters of the Arabic blocks (letters, marks, Arabic punctuation and digits)."""
    code = ord(ch)
    return (
        0x0600 <= code <= 0x06FF
        or 0x0750 <= code <= 0x077F
        or 0x08A0 <= code <= 0x08FF
        or 0xFB50 <= code <= 0xFDFF
        or 0xFE70 <= code <= 0xFEFF
    )


def _is_word_char(ch: str) -> bool:
    # Combining marks (harakat, Qur'anic annotation signs) and tatweel continue the word they sit on.
    return ch.isalnum() or unicodedata.category(ch).startswith("M") or ch == TATWEEL


def normalize_word(word: str) -> str:
    """The look-up form of a word: NFC, no harakat or tatweel, one alef; Latin case-folded."""
    text = unicodedata.normalize("NFC", word)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn" and ch != TATWEEL)
    return text.translate(ALEF_VARIANTS).casefold()


def is_word_form(norm: str) -> bool:
    """True when a normalised form has a letter or a digit: a word. A lone tatweel or a stray haraka (the hadith
    text sets phrases between lone tatweels, ـ like dashes ـ) normalises to '' and is a mark, never a word."""
    return any(ch.isalnum() for ch in norm)


MASK = "[MASK]"  # a blank to fill: kept as one token (the masked-language model's own [MASK])
# The other special tokens, spelled here once: padding, a piece never seen in training, the sentence's start and
# (BERT only) its end.
PAD, UNK, CLS, SEP = "[PAD]", "[UNK]", "[CLS]", "[SEP]"


def tokenize(text: str) -> list[Token]:
    """Words and punctuation marks of `text`, in reading order (logical order, also for Arabic); the literal
    "[MASK]" stays one token."""
    tokens: list[Token] = []
    for i, piece in enumerate(text.split(MASK)):
        if i:
            tokens.append(Token(MASK, MASK, is_word=False))
        tokens.extend(_tokenize_plain(piece))
    return tokens


_CLOSING = frozenset(".,;:!?)]}»،؛؟…")  # written against the word before them
_OPENING = frozenset("([{«")  # written against the word after them


def written(tokens: Sequence[Token]) -> str:
    """The tokens as a sentence is written: words apart, a closing mark against the word before it and an opening
    one against the word after it ("I drink a cup of [MASK] every morning.", not "… morning .")."""
    text = ""
    for token in tokens:
        if text and token.surface not in _CLOSING and text[-1] not in _OPENING:
            text += " "
        text += token.surface
    return text


def _tokenize_plain(text: str) -> list[Token]:
    text = "".join(ch for ch in text if (ch not in INVISIBLE and unicodedata.category(ch) != "Cc") or ch in "\t\n")
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif _is_word_char(ch):
            j = i + 1
            while j < n and (
                _is_word_char(text[j]) or (text[j] in INNER_JOINERS and j + 1 < n and _is_word_char(text[j + 1]))
            ):
                j += 1
            norm = normalize_word(text[i:j])
            tokens.append(Token(text[i:j], norm, is_word=is_word_form(norm)))
            i = j
        else:
            tokens.append(Token(ch, ch, is_word=False))
            i += 1
    return tokens


def is_right_to_left(text: str) -> bool:
    """True when the text has more Arabic letters than Latin ones: then it reads right to left."""
    arabic = sum(1 for ch in text if ch.isalpha() and is_arabic_char(ch))
    other = sum(1 for ch in text if ch.isalpha() and not is_arabic_char(ch))
    return arabic > other


MAX_TOKENS = 512  # the longest sentence the pages take (a paragraph); longer input is cut, with a notice
READABLE_TOKENS = 64  # beyond this many words a heatmap labels only every k-th word (see figures._MAX_TICKS)


@dataclass(frozen=True)
class ReadSentence:
    """What a page needs from a typed sentence: its tokens (cut to `limit`), direction, and any notice."""

    tokens: tuple[Token, ...]
    n_typed: int  # tokens before cutting
    limit: int
    rtl: bool

    @property
    def is_empty(self) -> bool:
        return not self.tokens

    @property
    def was_cut(self) -> bool:
        return self.n_typed > len(self.tokens)


def read_sentence(text: str | None, limit: int = MAX_TOKENS) -> ReadSentence:
    """Tokenise what the user typed, keeping at most `limit` tokens."""
    tokens = tokenize(text or "")
    return ReadSentence(tuple(tokens[:limit]), len(tokens), limit, is_right_to_left(text or ""))
