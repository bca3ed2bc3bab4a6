"""The everyday English corpus (issue 34): a built-in corpus like the Arabic ones, in its format, and never a copy
or near copy of a line of its held-out test set (tools/check_english_corpus.py)."""

from __future__ import annotations

from attention_core.training.corpora import BUILT_IN, folder_lines, load_corpus
from attention_core.training.english_text import everyday_test_lines
from tools.check_english_corpus import format_problems, near_copies


def test_the_english_built_ins_load_and_mix_like_the_arabic_ones() -> None:
    assert {"english_everyday", "wordnet", "devil"} <= set(BUILT_IN)
    mix = load_corpus("english_everyday*8,wordnet,devil")
    everyday, wordnet, devil = mix.parts
    assert (everyday.weight, wordnet.weight, devil.weight) == (8, 1, 1)
    assert len(everyday.train) > 10_000 and len(wordnet.train) > 100_000 and len(devil.train) > 1_000
    assert not set(everyday_test_lines()) & set(everyday.train + everyday.held_out)


def test_every_everyday_line_keeps_the_format_and_no_line_is_repeated() -> None:
    lines = folder_lines("english_everyday")
    assert format_problems(lines) == []
    assert len(set(lines)) == len(lines)


def test_no_training_line_copies_or_nearly_copies_a_test_line() -> None:
    assert near_copies(folder_lines("english_everyday"), everyday_test_lines()) == []


def test_the_checker_finds_a_near_copy_and_lets_common_english_pass() -> None:
    test = ["The printer ran out of ink in the middle of the page."]
    assert near_copies(["The printer ran out of ink in the middle of the night."], test)
    assert near_copies(["She deleted the old photos to free up space."], ["She deleted the photos to free up space."])
    assert not near_copies(["He answered the phone in the middle of the meeting."], test)
