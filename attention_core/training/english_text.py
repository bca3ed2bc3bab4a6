"""The English text of the word-guessing head, read as package data (nothing downloaded):

- "everyday": everyday English written for this project, one topic a file (attention_core/training/english_everyday);
- "wordnet": WordNet 3.0's glosses and example sentences (WordNet licence), and "devil": The Devil's Dictionary
  (public domain), made from Debian's packages by `python -m tools.english_corpus`
  (attention_core/training/english_licensed, its NOTICE keeps each licence);
- the test set, "everyday_heldout": everyday sentences on other topics, written apart, never trained on.

Each training source holds out its lines i % 10 == 9 (the rule of every corpus here, attention_core/training/corpora):
held-out English text of the same kind as the training text.
"""

from __future__ import annotations

from dataclasses import dataclass

from attention_core.training.corpora import ENGLISH_FILES, folder_lines, split

EVERYDAY_TEST = "english_everyday_heldout"
SOURCES = ("everyday", "wordnet", "devil")


@dataclass(frozen=True)
class EnglishText:
    """One source's lines, split: `train` and `held_out` (every tenth line)."""

    name: str
    train: tuple[str, ...]
    held_out: tuple[str, ...]


def english_source(name: str) -> EnglishText:
    """A training source by name (SOURCES), split into train and held-out lines: the corpus module's English
    built-ins ("everyday" is its "english_everyday")."""
    if name not in SOURCES:
        raise ValueError(f"no English source {name!r}: one of {', '.join(SOURCES)}")
    built_in = "english_everyday" if name == "everyday" else name
    return EnglishText(name, *split(folder_lines(*ENGLISH_FILES[built_in])))


def everyday_test_lines() -> list[str]:
    """The everyday test set (other topics, written apart): for scores only, never trained on."""
    return folder_lines(EVERYDAY_TEST)
