"""Arabic that reads right to left wherever the app prints it inside left-to-right text (lesson cards, example
chips, Fill the blank's words).

A left-to-right line lays out an Arabic phrase as a right-to-left run only up to the first neutral or Latin
character: "[MASK]", digits and brackets break it, so «ذلك الكتاب لا [MASK] فيه» came out scrambled, the blank
read first. Wrapping each Arabic phrase in a right-to-left isolate (U+2067 RLI … U+2069 PDI, Unicode's bidi
algorithm, UAX #9) makes the phrase one right-to-left unit, [MASK] and all, whatever surrounds it. The marks are
invisible, and attention_core.story.text drops them from a sentence typed or pasted back.
"""

from __future__ import annotations

import re

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.i18n import right_to_left

RLI, LRI, PDI = "\u2067", "\u2066", "\u2069"
_ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
# A phrase: Arabic words and blanks, with the spaces and marks between them, starting and ending on a word or blank.
_WORD = rf"(?:[{_ARABIC}]+|\[MASK\])"
_PHRASE = re.compile(rf"{_WORD}(?:[\s{_ARABIC}·]+{_WORD})*")
_HAS_ARABIC = re.compile(rf"[{_ARABIC}]")
# A product of shapes, "(6 × 64)·(64 × 6) = (6 × 6)": read left to right, also inside an Arabic sentence.
_SHAPE_PRODUCT = re.compile(r"\(\d+ × \d+\)(?:\s*[·=]\s*\(\d+ × \d+\))+")


def isolate(text: str) -> str:
    """The whole text as one right-to-left unit (an Arabic sentence), or the text as it is without Arabic."""
    return f"{RLI}{text}{PDI}" if _HAS_ARABIC.search(text) else text


def isolate_arabic(text: str) -> str:
    """Every Arabic phrase of a mostly-English text as its own right-to-left unit; a bare [MASK] stays as it is."""
    return _PHRASE.sub(lambda m: isolate(m.group()), text)


# The other way round: in an Arabic paragraph, a run of English words ("too tired", "all-MiniLM-L6-v2", "B − A") is
# laid out left to right, and the neutral marks between two such runs («», :, /) join them into one: «it»: «too
# tired» / «too wide» read "too wide" first. Each Latin phrase as its own left-to-right isolate (U+2066 LRI … PDI)
# leaves the marks between them to the paragraph's direction. Inside a phrase a hyphen does not break the line
# (U+2060 WORD JOINER after it): a name such as all-MiniLM-L6-v2 split at its end read "all-" at the left of one
# line and the rest at the right of the next.
_LATIN = rf"[^\W_{_ARABIC}]"  # a letter or digit of any script but Arabic
# A word starts with a letter and may join digits with a hyphen or a dot (Apache-2.0, L6-v2); the words of a phrase
# are joined by spaces or a sign between spaces ("B − A", "V·Vᵀ"). A number after a word ("Qurʾān 4 مرات") is left
# to the Arabic text it counts for.
_LATIN_TOKEN = rf"(?![\d_]){_LATIN}+(?:[-.'’]{_LATIN}+)*"
_LATIN_PHRASE = re.compile(rf"{_LATIN_TOKEN}(?:(?: +| *[·−=+/&] *){_LATIN_TOKEN})*")
WORD_JOINER = "\u2060"


def isolate_latin(text: str) -> str:
    """Every Latin phrase of a right-to-left (Arabic) text as its own left-to-right unit, unbroken at its hyphens."""
    return _LATIN_PHRASE.sub(lambda m: f"{LRI}{m.group().replace('-', '-' + WORD_JOINER)}{PDI}", text)


def phrases_isolated(text: str, rtl: bool) -> str:
    """A text of both scripts for a paragraph of the interface: in a right-to-left interface its Latin phrases
    isolated left to right, in a left-to-right one its Arabic phrases isolated right to left."""
    return isolate_latin(text) if rtl else isolate_arabic(text)


# Chips (st.pills) of an Arabic sentence's words run right to left, as the sentence box and the heatmaps do: the
# first word on the right, the next line under it, the row against the right edge. Fixed CSS, no user text in it.
_RTL_CHIPS = "rtl_chips"
RTL_CHIPS_CSS = f"<style>.st-key-{_RTL_CHIPS} {{ direction: rtl; }}</style>"


def chip_row(rtl: bool) -> DeltaGenerator:
    """Where to draw a row of word chips: a container laid out right to left for an Arabic sentence."""
    if not rtl:
        return st.container()
    st.html(RTL_CHIPS_CSS)
    return st.container(key=_RTL_CHIPS)


def left_to_right(text: str) -> str:
    """Something written left to right ("L1 H1", "L1 H1 (+0.12)") as one unit inside a right-to-left sentence. Bare,
    a head's name takes the number after it into its own run: «وبعد إيقاف L1 H1: قدير (0.344)» read "(0.344)"
    before قدير. The text itself in a left-to-right interface."""
    return f"{LRI}{text}{PDI}" if right_to_left() else text


def shapes_left_to_right(text: str) -> str:
    """In a right-to-left interface, every product of shapes in the text as one left-to-right unit: a right-to-left
    line would otherwise put "(6 × 6)" before "(6 × 64)·(64 × 6) =". Left-to-right text is returned as it is."""
    return _SHAPE_PRODUCT.sub(lambda m: left_to_right(m.group()), text)
