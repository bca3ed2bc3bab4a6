"""Counts and format checks of the modern Arabic corpus (issue 27): per file, lines, distinct lines and lines that
break the format (Arabic letters, shadda, space, ، and ؟ only; 4 to 18 words); in all, repeated lines, distinct
words, the commonest three-word openings and the counts of the common words the everyday test hides.

    python -m tools.check_corpus attention_core/training/modern attention_core/training/modern_heldout
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

FORMAT = re.compile(r"^[\u0621-\u064A\u0660-\u0669\u0651 ،؟]+$")
COMMON = ("في", "إلى", "على", "من", "مع", "أن", "عن", "الله")


def format_problems(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, line) of each line that breaks the corpus's format."""
    return [(i + 1, x) for i, x in enumerate(lines) if not FORMAT.match(x) or not 4 <= len(x.split()) <= 18]


def check_files(
    paths: list[Path], problems: Callable[[list[str]], list[tuple[int, str]]], words_of: Callable[[str], list[str]]
) -> tuple[list[str], Counter[str]]:
    """Each topic file of `paths` (files, or folders of *.txt) printed with its lines, distinct lines and the lines
    `problems` finds; then the totals, the repeated lines and the distinct words (`words_of` a line). Returns every
    line, and the count of each word."""
    every: list[str] = []
    for path in paths:
        for file in sorted(path.glob("*.txt")) if path.is_dir() else [path]:
            lines = file.read_text(encoding="utf-8").splitlines()
            bad = problems(lines)
            print(f"{file}: {len(lines)} lines, {len(set(lines))} distinct, {len(bad)} bad")
            for number, line in bad[:10]:
                print(f"  bad line {number}: {line!r}")
            every += lines
    counts = Counter(every)
    repeated = [line for line, n in counts.items() if n > 1]
    words = Counter(word for line in every for word in words_of(line))
    print(f"total {len(every)} lines, {len(counts)} distinct, {len(repeated)} repeated; {len(words)} distinct words")
    for line in repeated[:10]:
        print("  repeated:", line)
    return every, words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="topic files, or folders of them (*.txt)")
    args = parser.parse_args()
    every, words = check_files(args.paths, format_problems, str.split)
    print("most common openings:", Counter(" ".join(x.split()[:3]) for x in every).most_common(8))
    print("  " + "  ".join(f"{word}: {words[word]}" for word in COMMON))


if __name__ == "__main__":
    main()
