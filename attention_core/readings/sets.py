"""The sentence sets the Abstraction page offers and bench/abstraction_report.py measures, one file per language
(readings/sets/*.json, written for this project):

- paraphrases: two texts with other words and the same meaning;
- same_words_other_meaning: two texts with (nearly) the same words and another meaning: the roles swapped, or a
  negation;
- topic_paragraphs: a short paragraph about one of `topics` that never names it (the article's "this paragraph
  talks about immigration even if the word is not mentioned").

The English texts are everyday English (MiniLM's pretraining); the Arabic ones are in the register the Arabic
model was trained on (the Qurʾān and the hadith), so that its words are known to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

Language = Literal["english", "arabic"]
FOLDER = Path(__file__).with_name("sets")


@dataclass(frozen=True)
class SentenceSets:
    paraphrases: tuple[tuple[str, str], ...]
    same_words_other_meaning: tuple[tuple[str, str], ...]
    topics: tuple[str, ...]  # the candidate topics a paragraph is compared with
    topic_paragraphs: tuple[tuple[str, str], ...]  # (its topic, the paragraph)


@cache
def sentence_sets(language: Language) -> SentenceSets:
    raw = json.loads((FOLDER / f"{language}.json").read_text(encoding="utf-8"))
    return SentenceSets(
        paraphrases=tuple((a, b) for a, b in raw["paraphrases"]),
        same_words_other_meaning=tuple((a, b) for a, b in raw["same_words_other_meaning"]),
        topics=tuple(raw["topics"]),
        topic_paragraphs=tuple((topic, text) for topic, text in raw["topic_paragraphs"]),
    )
