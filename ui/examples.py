"""Example sentences, one click away on every page (the chips under the sentence box). The lessons are in
ui/lessons/."""

from __future__ import annotations

from attention_core.story.text import is_right_to_left
from ui.i18n import N_

DEFAULT_SENTENCE = "The cat is on the mat"
FILL_BLANK_SENTENCE = "إن الله على كل شيء [MASK]"  # Fill the blank's first sentence: only Arabic has a model there

# The chips: label (marked, translated where drawn) → the sentence it puts in the box (never translated).
EXAMPLES: dict[str, str] = {
    N_("The cat is on the mat"): "The cat is on the mat",
    N_("The cat sat on the mat and the dog sat on the cat"): "The cat sat on the mat and the dog sat on the cat",
    N_("القطة على السجادة (the cat is on the mat)"): "القطة على السجادة",
    N_("ذهب الطالب إلى المدرسة (the student went to school)"): "ذَهَبَ الطالبُ إلى المدرسةِ",
    N_("الكتاب على الطاولة والقلم على الكتاب (the book on the table, the pen on the book)"): (
        "الكتاب على الطاولة والقلم على الكتاب"
    ),
    N_("بسم الله الرحمن الرحيم (Qurʾān 1:1)"): "بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ",
    N_("ان الله على كل شيء [MASK] (fill the blank)"): "إن الله على كل شيء [MASK]",
    N_("الذين يؤمنون بالغيب (Qurʾān 2:3, held out from training)"): (
        "الذين يؤمنون بالغيب ويقيمون الصلاة ومما رزقناهم ينفقون"
    ),
}

# Fill the blank's chips: only sentences its models can answer — the Arabic ones, and two English blanks for MiniLM
# retrained to guess (attention_core/shipped/english).
FILL_BLANK_EXAMPLES: dict[str, str] = {
    **{label: text for label, text in EXAMPLES.items() if is_right_to_left(text)},
    N_("The cat sat on the [MASK] (fill the blank)"): "The cat sat on the [MASK].",
    N_("I drink a cup of [MASK] every morning (fill the blank)"): "I drink a cup of [MASK] every morning.",
}
