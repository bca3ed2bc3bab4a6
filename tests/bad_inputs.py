"""What a classroom types: the bad-input list every text box and the CLI are tested with (tests import it)."""

from __future__ import annotations

BAD_INPUTS: dict[str, str] = {
    "empty": "",
    "whitespace only": "   \t\n  ",
    "one word": "cat",
    "2,000 words": " ".join(f"w{i % 50}" for i in range(2000)),
    "one 10,000-character word": "a" * 10_000,
    "emoji and ZWJ sequences": "👨‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽 ok",
    "bidi override": "abc \u202eevil\u202c def",
    "bidi isolates": "\u2066abc\u2069 \u2067عربي\u2069 \u2068x\u2069",
    "zero-width characters": "ca\u200bt sat\u200c on\u200d the\ufeff mat",
    "HTML tags": "<b>bold</b> <i>it</i> <a href='http://x'>link</a>",
    "script tag": "<script>alert(1)</script> hello",
    "img onerror": "<img src=x onerror=alert(1)>",
    "Markdown control characters": "**bold** _it_ [link](http://x) # head `code` > quote | a | b |",
    "LaTeX control characters": r"$x^2$ \frac{1}{2} $$\sum$$ \\ {} ^ _ % & ~",
    "null bytes": "a\x00b c\x00 d",
    "mixed Arabic, Latin and digits": "قال the teacher 3 مرات: اكتب 2024 words",
    "fully diacritised Arabic": "بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ",
    "Uthmani marks": "ذَٰلِكَ ٱلْكِتَٰبُ لَا رَيْبَ ۛ فِيهِ ۛ هُدًى لِّلْمُتَّقِينَ",
}
