"""Example sentences, one click away on every page."""

from __future__ import annotations

DEFAULT_SENTENCE = "The cat is on the mat"

EXAMPLES: dict[str, str] = {
    "The cat is on the mat": "The cat is on the mat",
    "The cat sat on the mat and the dog sat on the cat": "The cat sat on the mat and the dog sat on the cat",
    "القطة على السجادة (the cat is on the mat)": "القطة على السجادة",
    "ذهب الطالب إلى المدرسة (the student went to school)": "ذَهَبَ الطالبُ إلى المدرسةِ",
    "الكتاب على الطاولة والقلم على الكتاب (the book on the table, the pen on the book)": (
        "الكتاب على الطاولة والقلم على الكتاب"
    ),
    "بسم الله الرحمن الرحيم (Qurʾān 1:1)": "بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ",
    "ان الله على كل شيء [MASK] (fill the blank)": "إن الله على كل شيء [MASK]",
    "الذين يؤمنون بالغيب (Qurʾān 2:3, held out from training)": (
        "الذين يؤمنون بالغيب ويقيمون الصلاة ومما رزقناهم ينفقون"
    ),
}
