"""Format and leak checks of the everyday English corpus (issue 34): per file, lines, distinct lines and lines that
break the format (6 to 18 words, plain ASCII letters and punctuation, ends with . ? or !); in all, lines repeated
across files; and every training line that copies or nearly copies a line of the held-out test set.

    python -m tools.check_english_corpus attention_core/training/english_everyday [FILES...]

A near copy shares a run of five words with a test line, three of them not function words ("in the middle of the"
is English, not a copy), or reads alike (difflib ratio ≥ 0.8 over words): the
test set is only a test while the training text has never seen its sentences, nor their paraphrases.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from pathlib import Path

from attention_core.training.english_eval import FUNCTION_WORDS
from attention_core.training.english_text import everyday_test_lines
from tools.check_corpus import check_files

FORMAT = re.compile(r"^[A-Z0-9\"'][A-Za-zé0-9 ,;:'\"\-?!.]*[.?!]$")
RUN = 5
ALIKE = 0.8


def words_of(line: str) -> list[str]:
    """A line's words, lower case, without punctuation."""
    return re.findall(r"[a-z0-9']+", line.lower())


def runs_of(words: list[str]) -> set[tuple[str, ...]]:
    """Every run of RUN words in a row that holds at least three words other than function words."""
    runs = (tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1))
    return {run for run in runs if sum(word not in FUNCTION_WORDS for word in run) >= 3}


def format_problems(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, line) of each line that breaks the corpus's format."""
    return [(i + 1, x) for i, x in enumerate(lines) if not FORMAT.match(x) or not 6 <= len(x.split()) <= 18]


def near_copies(lines: list[str], test_lines: list[str]) -> list[tuple[str, str]]:
    """(training line, test line) pairs where the training line copies or nearly copies the test line."""
    test_words = [words_of(x) for x in test_lines]
    by_word: dict[str, set[int]] = defaultdict(set)
    test_runs: dict[tuple[str, ...], int] = {}
    for index, words in enumerate(test_words):
        for word in set(words):
            by_word[word].add(index)
        for run in runs_of(words):
            test_runs[run] = index
    found: list[tuple[str, str]] = []
    for line in lines:
        words = words_of(line)
        shared_run = next((test_runs[run] for run in runs_of(words) if run in test_runs), None)
        if shared_run is not None:
            found.append((line, test_lines[shared_run]))
            continue
        overlap = Counter(index for word in set(words) for index in by_word.get(word, ()))
        # Only test lines sharing half the words can read alike at 0.8: skip the rest, cheaply.
        for index, shared in overlap.items():
            if shared * 2 >= len(words) and SequenceMatcher(None, words, test_words[index]).ratio() >= ALIKE:
                found.append((line, test_lines[index]))
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="topic files, or folders of them (*.txt)")
    args = parser.parse_args()
    every, _words = check_files(args.paths, format_problems, words_of)
    copies = near_copies(list(dict.fromkeys(every)), everyday_test_lines())
    print(f"{len(copies)} lines copy or nearly copy a held-out test line")
    for line, test_line in copies[:20]:
        print(f"  {line!r}  ~  (test) {test_line!r}")


if __name__ == "__main__":
    main()
