"""Issue 23, point 7: a sentence in Arabic and English script. The automatic model goes by most of its words, and a
caption always says which model reads it and what becomes of the other script's words, in the reader's language."""

from __future__ import annotations

import pytest

from attention_core.models.pretrained import load_minilm
from attention_core.models.trained import load_model
from attention_core.story.text import CLS, SEP, is_right_to_left, tokenize
from tests.conftest import assert_clean, open_framed_link, open_link
from ui.i18n import catalog

MOSTLY_ENGLISH = "I love الشعر العربي so much"  # 2 of 6 words in Arabic script
# 4 of 6 words in Arabic script, but fewer Arabic letters (11) than Latin ones (26): the letters chose MiniLM
MOSTLY_ARABIC = "هو في البيت مع international organizations"


def _notes(at: object) -> list[str]:
    return [c.value for c in at.caption if "two scripts" in c.value or "بخطّين" in c.value]  # type: ignore[attr-defined]


@pytest.mark.parametrize("page", ["heads", "similarity"])
def test_a_mostly_english_sentence_is_read_by_minilm_which_says_what_it_does_with_the_arabic(page: str) -> None:
    at = open_link(page, **{f"{page}_sentence": MOSTLY_ENGLISH})
    assert_clean(at)
    assert any("Using MiniLM-L6" in c.value for c in at.sidebar.caption)
    arabic = [t for t in tokenize(MOSTLY_ENGLISH) if t.surface in ("الشعر", "العربي")]
    pieces = [t.surface for t in load_minilm().encode(arabic)[0] if t.surface not in (CLS, SEP)]
    assert len(pieces) == 11 and all(len(p.removeprefix("##")) == 1 for p in pieces)  # letter by letter
    (note,) = _notes(at)
    assert "2 of its 6 words are in Arabic script" in note and "MiniLM, the English model, reads it" in note
    assert f"into {len(pieces)} word pieces, 11 of them single letters" in note


def test_a_mostly_arabic_sentence_with_long_english_words_goes_to_the_arabic_model() -> None:
    """The letters said English (the sentence reads left to right), most of the words are Arabic: the Arabic model
    reads it, and says that the two English words are unknown to it."""
    assert not is_right_to_left(MOSTLY_ARABIC)
    at = open_link("heads", heads_sentence=MOSTLY_ARABIC)
    assert_clean(at)
    assert not any("Using MiniLM-L6" in c.value for c in at.sidebar.caption)
    english = [t for t in tokenize(MOSTLY_ARABIC) if t.surface.isascii()]
    read, _, known = load_model().encode(english)
    unknown = sum(not ok for t, ok in zip(read, known, strict=True) if t.surface != CLS)
    (note,) = _notes(at)
    assert "4 of its 6 words are in Arabic script" in note and "so the Arabic model reads it" in note
    assert f"no vector for {unknown} of the 2 words in other scripts" in note and unknown == 2


def test_a_model_picked_in_the_sidebar_is_named_and_a_sentence_in_one_script_gets_no_note() -> None:
    at = open_link("heads", heads_sentence=MOSTLY_ENGLISH)
    at.sidebar.radio(key="heads_model").set_value("Arabic: classical + modern model (shipped)").run()
    assert_clean(at)
    (note,) = _notes(at)
    assert "You picked the Arabic model in the sidebar" in note and "no vector for 4 of the 4 words" in note
    assert not _notes(open_link("heads", heads_sentence="The cat is on the mat"))


def test_the_note_speaks_the_readers_language() -> None:
    arabic = catalog("ar").singular
    at = open_framed_link("similarity", lang="ar", similarity_sentence=MOSTLY_ARABIC)
    assert_clean(at)
    (note,) = _notes(at)
    why = arabic["Most of its words are in Arabic script, so {model} reads it."]
    assert why.format(model=arabic["the Arabic model"]) in note
    assert "Arabic script" not in note
