"""How the Arabic model reads everyday Modern Standard Arabic: the sentences of bench/everyday_arabic.txt.

    python -m bench.everyday_arabic                                   # the shipped model
    python -m bench.everyday_arabic --checkpoint checkpoints/arabic --out everyday.json
    python -m bench.everyday_arabic --sentences attention_core/training/modern_heldout   # the modern test set

The model learned from the Qurʾān and the hadith; a student types about school, home, food and the weather.
(a) the words it has no learned vector for (a piece is [UNK]: a character never seen in training);
(b) top-1 / top-5 when a common word (في، إلى، على، من، مع، أن، عن) is hidden: every occurrence in turn, one blank
    at a time, compared in normalised form (أن = ان, إلى = الى);
(c) ten sentences with their top-3 guesses;
(d) how many words it reads in several word pieces, with examples;
(e) every word hidden in turn: how many first guesses are words the modern training text never uses (words only the
    Qurʾān and the hadith have: ربك، مالك), the guesses a class should not see on its everyday sentence.
Prints readable tables, then one JSON object of the numbers (also written to --out if given).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from attention_core.models.trained import SHIPPED, TrainedModel, load_model
from attention_core.story.text import MASK, Token, normalize_word, tokenize
from attention_core.training.corpora import modern_lines
from attention_core.training.test_set import COMMON, COMMON_WORDS

SENTENCES = Path(__file__).with_suffix(".txt")
WRITTEN = {normalize_word(word): word for word in COMMON_WORDS}  # how the tables show them: إلى, أن
BLANK = Token(MASK, MASK, is_word=False)


def read_sentences(path: Path = SENTENCES) -> list[str]:
    """The non-blank lines of the sentence file, or of every .txt file of a folder (the modern test set's topics)."""
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    return [line.strip() for file in files for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def words_of(sentence: str) -> list[Token]:
    """The sentence's words (punctuation left out)."""
    return [token for token in tokenize(sentence) if token.is_word]


# (a) words without a learned vector


@dataclass(frozen=True)
class Coverage:
    n_words: int  # word occurrences in the set
    unknown: tuple[str, ...]  # the occurrences with an [UNK] piece, as typed

    @property
    def unknown_share(self) -> float:
        return len(self.unknown) / self.n_words if self.n_words else 0.0


def coverage(model: TrainedModel, sentences: list[str]) -> Coverage:
    """How many of the set's words (occurrences) have no learned vector."""
    words = [token for sentence in sentences for token in words_of(sentence)]
    unknown = tuple(token.surface for token in words if not model.vocabulary.is_known(token.norm))
    return Coverage(len(words), unknown)


# (b) a common word hidden


@dataclass(frozen=True)
class Blank:
    sentence: str
    tokens: tuple[Token, ...]  # the sentence with one common word replaced by [MASK]
    hidden: Token  # the word that was there


def common_word_blanks(sentences: list[str]) -> list[Blank]:
    """Every occurrence of a common word in every sentence, hidden alone (one blank per occurrence)."""
    blanks = []
    for sentence in sentences:
        tokens = tokenize(sentence)
        for i, token in enumerate(tokens):
            if token.is_word and token.norm in COMMON:
                blanks.append(Blank(sentence, (*tokens[:i], BLANK, *tokens[i + 1 :]), token))
    return blanks


@dataclass(frozen=True)
class Guessed:
    blank: Blank
    guesses: tuple[tuple[str, float], ...]  # (written word, probability), best first

    @property
    def rank(self) -> int | None:
        """1 when the best guess is the hidden word (normalised), 2 for the second, …; None if not guessed."""
        norms = [normalize_word(word) for word, _ in self.guesses]
        return norms.index(self.blank.hidden.norm) + 1 if self.blank.hidden.norm in norms else None


def guess_blanks(model: TrainedModel, blanks: list[Blank], k: int = 5) -> list[Guessed]:
    """The model's k best guesses for every blank."""
    return [Guessed(blank, tuple(model.predict(list(blank.tokens), k))) for blank in blanks]


def hit_rate(guessed: list[Guessed], k: int) -> float:
    """Share of blanks whose hidden word is among the first k guesses."""
    hits = sum(1 for g in guessed if g.rank is not None and g.rank <= k)
    return hits / len(guessed) if guessed else 0.0


def examples(guessed: list[Guessed], n: int = 10) -> list[Guessed]:
    """The first blank of n sentences spread over the set."""
    firsts = list({g.blank.sentence: g for g in reversed(guessed)}.values())[::-1]  # first blank per sentence
    step = max(1, len(firsts) // n)
    return firsts[::step][:n]


# (d) words read in several pieces


@dataclass(frozen=True)
class Splits:
    n_distinct: int  # distinct words of the set (normalised)
    pieces: dict[str, tuple[str, ...]]  # written word → its pieces, for the distinct words read in ≥ 2 pieces
    n_occurrences: int
    n_split_occurrences: int


def word_splits(model: TrainedModel, sentences: list[str]) -> Splits:
    """Which words the model reads through two or more word pieces (first written form of each)."""
    seen: dict[str, tuple[str, ...]] = {}
    written: dict[str, str] = {}
    n_occurrences = n_split = 0
    for token in (token for sentence in sentences for token in words_of(sentence)):
        pieces = seen.setdefault(token.norm, tuple(model.word_pieces_of(token)))
        written.setdefault(token.norm, token.surface)
        n_occurrences += 1
        n_split += len(pieces) > 1
    split = {written[norm]: pieces for norm, pieces in seen.items() if len(pieces) > 1}
    return Splits(len(seen), split, n_occurrences, n_split)


# (e) first guesses from classical text only


@dataclass(frozen=True)
class Register:
    n_blanks: int  # every word of every sentence, hidden in turn
    classical_only: Counter[str]  # first guesses the modern training text never uses (written form → times)

    @property
    def share(self) -> float:
        return sum(self.classical_only.values()) / self.n_blanks if self.n_blanks else 0.0


def modern_words() -> frozenset[str]:
    """Every normalised word of the modern training text (attention_core/training/modern, never its test set)."""
    return frozenset(token.norm for line in modern_lines() for token in words_of(line))


def first_guess_register(model: TrainedModel, sentences: list[str], modern: frozenset[str]) -> Register:
    """Each word of each sentence hidden in turn; the first guesses that are not words of the modern text."""
    classical: Counter[str] = Counter()
    n_blanks = 0
    for sentence in sentences:
        tokens = tokenize(sentence)
        for i, token in enumerate(tokens):
            if not token.is_word:
                continue
            n_blanks += 1
            (word, _), *_ = model.predict([*tokens[:i], BLANK, *tokens[i + 1 :]], 1)
            if normalize_word(word) not in modern:
                classical[word] += 1
    return Register(n_blanks, classical)


# the report


@dataclass(frozen=True)
class Report:
    model: str
    step: int
    n_sentences: int
    coverage: Coverage
    guessed: list[Guessed]
    splits: Splits
    register: Register


def measure(model: TrainedModel, sentences: list[str]) -> Report:
    """Every measure of this benchmark on one model."""
    guessed = guess_blanks(model, common_word_blanks(sentences), k=5)
    return Report(
        model.name,
        model.step,
        len(sentences),
        coverage(model, sentences),
        guessed,
        word_splits(model, sentences),
        first_guess_register(model, sentences, modern_words()),
    )


def summary(report: Report) -> dict[str, float | int | str]:
    """The numbers, as one JSON-ready object."""
    splits = report.splits
    return {
        "model": report.model,
        "step": report.step,
        "sentences": report.n_sentences,
        "words": report.coverage.n_words,
        "unknown_words": len(report.coverage.unknown),
        "unknown_share": round(report.coverage.unknown_share, 4),
        "common_word_blanks": len(report.guessed),
        "common_word_top1": round(hit_rate(report.guessed, 1), 4),
        "common_word_top5": round(hit_rate(report.guessed, 5), 4),
        "distinct_words": splits.n_distinct,
        "distinct_words_split": len(splits.pieces),
        "split_share_of_occurrences": round(splits.n_split_occurrences / max(1, splits.n_occurrences), 4),
        "every_word_blanks": report.register.n_blanks,
        "classical_only_first_guesses": sum(report.register.classical_only.values()),
        "classical_only_share": round(report.register.share, 4),
    }


def print_report(report: Report) -> None:
    """The readable tables: (a) unknown words, (b) hit rates per common word, (c) examples, (d) splits."""
    cover = report.coverage
    print(f"model {report.model} (step {report.step}), {report.n_sentences} sentences, {cover.n_words} words\n")
    print(f"(a) without a learned vector: {len(cover.unknown)} of {cover.n_words} ({cover.unknown_share:.1%})")
    print("    " + ("، ".join(sorted(set(cover.unknown))) or "none"))
    print(f"\n(b) a common word hidden: {len(report.guessed)} blanks")
    print(f"    {'word':<6} {'blanks':>6} {'top-1':>7} {'top-5':>7}")
    for norm in sorted({g.blank.hidden.norm for g in report.guessed}):
        group = [g for g in report.guessed if g.blank.hidden.norm == norm]
        print(f"    {WRITTEN[norm]:<6} {len(group):>6} {hit_rate(group, 1):>7.1%} {hit_rate(group, 5):>7.1%}")
    print(
        f"    {'all':<6} {len(report.guessed):>6} {hit_rate(report.guessed, 1):>7.1%} "
        f"{hit_rate(report.guessed, 5):>7.1%}"
    )
    print("\n(c) examples: the sentence with its blank → top-3 guesses (the hidden word)")
    for g in examples(report.guessed):
        shown = " ".join(t.surface for t in g.blank.tokens)
        top3 = "، ".join(f"{word} {p:.2f}" for word, p in g.guesses[:3])
        print(f"    {shown}\n        → {top3}   ({g.blank.hidden.surface})")
    splits = report.splits
    print(
        f"\n(d) read in several pieces: {len(splits.pieces)} of {splits.n_distinct} distinct words "
        f"({splits.n_split_occurrences} of {splits.n_occurrences} occurrences)"
    )
    for word, pieces in list(splits.pieces.items())[:15]:
        print(f"    {word} = {' '.join(pieces)}")
    register = report.register
    print(
        f"\n(e) every word hidden in turn: {sum(register.classical_only.values())} of {register.n_blanks} first "
        f"guesses ({register.share:.1%}) are words the modern training text never uses"
    )
    print("    " + ("، ".join(f"{word} {n}" for word, n in register.classical_only.most_common(15)) or "none"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED), help="model folder (default: the shipped model)")
    parser.add_argument(
        "--sentences", default=str(SENTENCES), help="sentence file, one sentence a line, or a folder of them"
    )
    parser.add_argument("--out", default=None, help="also write the JSON object to this file")
    args = parser.parse_args(argv)
    report = measure(load_model(args.checkpoint), read_sentences(Path(args.sentences)))
    print_report(report)
    numbers = summary(report)
    print(json.dumps(numbers, ensure_ascii=False, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(numbers, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
