"""Tokenisation keeps what was typed for labels and a normalised form for look-up."""

from __future__ import annotations

from attention_core.story.text import MAX_TOKENS, is_right_to_left, normalize_word, read_sentence, tokenize


def surfaces(text: str) -> list[str]:
    return [t.surface for t in tokenize(text)]


def test_english_words_and_punctuation() -> None:
    tokens = tokenize("The cat sat on the mat.")
    assert [t.surface for t in tokens] == ["The", "cat", "sat", "on", "the", "mat", "."]
    assert tokens[0].norm == tokens[4].norm == "the"  # casefold: "The" and "the" are one word
    assert not tokens[-1].is_word


def test_inner_apostrophes_and_hyphens_stay_in_the_word() -> None:
    assert surfaces("don't stop the well-known 'cat'") == ["don't", "stop", "the", "well-known", "'", "cat", "'"]


def test_arabic_harakat_tatweel_and_alef_are_normalised() -> None:
    tokens = tokenize("ذَهَبَ الطالبُ إلى المدرسةِ، وأكلَ الـتفاحة!")
    assert [t.surface for t in tokens] == ["ذَهَبَ", "الطالبُ", "إلى", "المدرسةِ", "،", "وأكلَ", "الـتفاحة", "!"]
    assert [t.norm for t in tokens] == ["ذهب", "الطالب", "الى", "المدرسة", "،", "واكل", "التفاحة", "!"]


def test_uthmani_alef_wasla_is_unified() -> None:
    assert normalize_word("ٱللَّهِ") == normalize_word("الله") == "الله"
    assert normalize_word("آمن") == normalize_word("أمن") == "امن"


def test_invisible_controls_are_dropped() -> None:
    assert surfaces("cat\u200b \u202emat\u202c") == ["cat", "mat"]


def test_direction() -> None:
    assert is_right_to_left("ذهب الطالب إلى المدرسة")
    assert not is_right_to_left("The cat is on the mat")
    assert is_right_to_left("قال the teacher: اكتب الدرس الآن")


def test_read_sentence_cuts_long_input_and_flags_empty() -> None:
    long_text = " ".join(f"w{i}" for i in range(MAX_TOKENS + 10))
    sentence = read_sentence(long_text)
    assert len(sentence.tokens) == MAX_TOKENS and sentence.was_cut and sentence.n_typed == MAX_TOKENS + 10
    assert read_sentence("   \n\t ").is_empty
    assert read_sentence(None).is_empty
    assert not read_sentence("cat").was_cut


def test_tokens_are_written_back_as_a_sentence_is_written() -> None:
    from attention_core.story.text import written

    assert written(tokenize("I drink a cup of [MASK] every morning.")) == "I drink a cup of [MASK] every morning."
    assert written(tokenize("Yes, «ok» (fine)!")) == "Yes, «ok» (fine)!"
    assert written(tokenize("ذلك الكتاب لا [MASK] فيه؟")) == "ذلك الكتاب لا [MASK] فيه؟"
