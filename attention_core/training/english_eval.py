"""How well English guesses hidden words, by kind of word: the word-guessing head on MiniLM, a model trained here,
and the left+right bigram, on the same blanks.

A blank is one word of a test sentence that MiniLM reads as one whole-word piece (the words a one-piece guess can
be: common English), hidden alone. Each is counted as a function word (FUNCTION_WORDS), a content word (a noun, verb
or adjective in WordNet's index, not a function word), or neither (adverbs, numbers, names WordNet lacks): the
issue's targets are for the first two. A guess is right when it is the hidden word, compared in lower case.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from attention_core.models.english_guesser import GuessingMiniLM
from attention_core.story.text import MASK, tokenize
from attention_core.training.baselines import BigramCounts
from attention_core.training.english_head import MASK_ID, states_at, whole_word_places

WORDNET = Path("/usr/share/wordnet")  # Debian's wordnet-base: index.noun, index.verb, index.adj
# Closed-class English words: articles, pronouns, prepositions, conjunctions, auxiliaries and modals, common
# determiners and particles. A hidden one of these is a "function word"; everything else WordNet calls a noun, verb or
# adjective is a "content word".
_FUNCTION_TEXT = """a an the this that these those my your his her its our their me him us them i you he she it we they
    mine yours hers ours theirs myself yourself himself herself itself ourselves themselves who whom whose which what
    of in on at to for with from by about into onto over under after before between through during without within
    against among around behind below above across along near off out up down upon since until till than as
    and but or nor so yet because if while although though unless whether when where why how then there here
    is are was were be been being am do does did done have has had having will would shall should can could may
    might must not no all any some every each both either neither other another such more most much many few
    very too also just only even still again ever never once
    """
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


def content_lexicon(folder: Path = WORDNET) -> frozenset[str]:
    """The one-word nouns, verbs and adjectives of WordNet's index files (lemmas, lower case)."""
    words: set[str] = set()
    for part in ("noun", "verb", "adj"):
        path = folder / f"index.{part}"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: install Debian's wordnet-base (apt-get install wordnet-base)")
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line and not line.startswith(" "):
                lemma = line.split(" ", 1)[0]
                if "_" not in lemma:
                    words.add(lemma)
    return frozenset(words)


def kind_of(word: str, lexicon: frozenset[str]) -> str:
    """ "function", "content" or "other" for a hidden word (inflected forms count by their WordNet-known base:
    "cats" by "cat", "walked" by "walk")."""
    word = word.lower()
    if word in FUNCTION_WORDS:
        return "function"
    bases = {word, word.removesuffix("s"), word.removesuffix("es"), word.removesuffix("ed"), word.removesuffix("d")}
    bases |= {word.removesuffix("ing"), word.removesuffix("ing") + "e", word.removesuffix("ies") + "y"}
    return "content" if bases & lexicon else "other"


@dataclass
class Tally:
    """Hits at 1 and 5 and blanks counted, by kind of word."""

    top1: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    top5: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    n: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, kind: str, answer: str, guesses: Sequence[str]) -> None:
        for key in (kind, "all"):
            self.n[key] += 1
            self.top1[key] += bool(guesses) and guesses[0].lower() == answer
            self.top5[key] += answer in [g.lower() for g in guesses[:5]]

    def rates(self) -> dict[str, dict[str, float]]:
        return {
            kind: {"top1": self.top1[kind] / n, "top5": self.top5[kind] / n, "n": n}
            for kind, n in sorted(self.n.items())
            if n
        }


@dataclass(frozen=True)
class Blank:
    """One hidden word of a test sentence: the sentence's piece ids with [MASK] at `place`, the word, its kind, and
    the sentence as typed with [MASK] for the word (for a model that reads whole words)."""

    ids: tuple[int, ...]
    place: int
    answer: str
    kind: str
    text: str


def blanks(model: GuessingMiniLM, lines: Iterable[str], lexicon: frozenset[str]) -> list[Blank]:
    """Every one-piece whole word of every line, hidden alone."""
    guessable = model._guessable
    found = []
    for line in lines:
        tokens = tokenize(line)
        reading = model._read(tokens)
        ids, typed = reading.ids, reading.words
        for place in whole_word_places(ids, typed, guessable):
            answer = model.word_shown(ids[place])
            masked = tuple(MASK_ID if p == place else i for p, i in enumerate(ids))
            text = " ".join(MASK if w == typed[place] else t.surface for w, t in enumerate(tokens))
            found.append(Blank(masked, place, answer, kind_of(answer, lexicon), text))
    return found


@torch.no_grad()
def head_guesses(model: GuessingMiniLM, test: Sequence[Blank], batch: int = 128) -> list[list[str]]:
    """The head's five likeliest words at each blank."""
    vectors = states_at(model, [blank.ids for blank in test], [[blank.place] for blank in test], batch)
    top = model.word_probabilities(vectors).topk(5, dim=-1).indices
    return [[model.word_shown(int(i)) for i in row] for row in top]


def piece_bigram(model: GuessingMiniLM, lines: Iterable[str]) -> BigramCounts:
    """The left+right bigram over MiniLM's pieces of the training lines ([CLS] first; the end its own id)."""
    sequences = [model._read(tokenize(line)).ids[:-1] for line in lines]
    return BigramCounts(sequences, model.model.config.vocab_size, 0)


def bigram_guesses(model: GuessingMiniLM, bigram: BigramCounts, test: Sequence[Blank]) -> list[list[str]]:
    """The bigram's five likeliest whole words at each blank, from the pieces either side."""
    never = ~model._guessable
    found = []
    for blank in test:
        left = blank.ids[blank.place - 1]
        right = blank.ids[blank.place + 1] if blank.place + 1 < len(blank.ids) - 1 else bigram.end
        scores = bigram.bigram_scores(bigram.context(left), right if right == bigram.end else bigram.context(right))
        scores[never] = 0
        found.append([model.word_shown(int(i)) for i in scores.topk(5).indices])
    return found


def tally(test: Sequence[Blank], guesses: Sequence[Sequence[str]]) -> Tally:
    counts = Tally()
    for blank, guessed in zip(test, guesses, strict=True):
        counts.add(blank.kind, blank.answer, guessed)
    return counts


def text_guesses(predict: Callable[[str], list[str]], test: Sequence[Blank]) -> list[list[str]]:
    """Guesses of any model that reads typed text (a model trained here): each blank's sentence as typed, with
    [MASK] in the hidden word's place."""
    return [predict(blank.text) for blank in test]
