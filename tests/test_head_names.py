"""Heads named in the reader's language (issue 25): "L2 H1" in English, "ط2 ر1" in Arabic, on the figures' axes and
panel titles and in the pickers, while widget values and links keep the English name."""

from __future__ import annotations

import re

import pytest

from attention_core.head_names import english_head_name, head_name, layer_name, parse_head, written_head_name
from tests.conftest import assert_clean, figures, open_framed_link
from ui.i18n import in_language

ENGLISH_HEAD = re.compile(r"L\d+(?: H\d+)?|H\d+")


def drawn_texts(figure: dict) -> list[str]:
    """The texts a figure draws on its axes (tick text, else a category axis's string values) and as panel titles."""
    layout = figure["layout"]
    texts = [str(a.get("text", "")) for a in layout.get("annotations", [])]
    for name, axis in layout.items():
        if re.fullmatch(r"[xy]axis\d*", name) and isinstance(axis, dict) and axis.get("ticktext"):
            texts += [str(t) for t in axis["ticktext"]]
        elif re.fullmatch(r"[xy]axis", name):  # no tick text: the traces' own values are drawn
            texts += [v for trace in figure["data"] for v in trace.get(name[0]) or [] if isinstance(v, str)]
    return texts


def hover_texts(trace: dict) -> list[str]:
    """Every string a trace shows on hover (hovertext, customdata), however deeply nested."""

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list | tuple):
            return [s for item in value for s in strings(item)]
        return []

    return strings(trace.get("hovertext")) + strings(trace.get("customdata"))


def test_the_catalog_names_heads_in_arabic() -> None:
    assert in_language("ar", "L{layer} H{head}").format(layer=2, head=1) == "ط2 ر1"
    assert in_language("ar", "L{layer}").format(layer=3) == "ط3"
    assert in_language("ar", "H{head}").format(head=12) == "ر12"


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("pairs", {}),
        ("heads", {"heads_view": "Knock heads out", "heads_knock_out": "L2 H1"}),
        ("fill_blank", {"fill_blank_knock_out": "L1 H1"}),
    ],
)
def test_no_english_head_name_is_drawn_in_arabic(page: str, query: dict[str, str]) -> None:
    at = open_framed_link(page, lang="ar", **query)
    assert_clean(at)
    drawn = [text for figure in figures(at) for text in drawn_texts(figure)]
    assert [t for t in drawn if re.fullmatch(r"[طر]\d+(?: ر\d+)?", t)], "no head named in Arabic on this page"
    assert [t for t in drawn if ENGLISH_HEAD.fullmatch(t)] == []
    hovers = [text for figure in figures(at) for trace in figure["data"] for text in hover_texts(trace)]
    assert [t for t in hovers if re.search(r"\bL\d+ H\d+\b", t)] == []
    pickers = [*at.selectbox, *at.multiselect]
    shown = [str(option) for picker in pickers for option in picker.options]
    assert [option for option in shown if ENGLISH_HEAD.fullmatch(option)] == []


def _arabic(text: str) -> str:
    return in_language("ar", text)


def test_one_spelling_of_a_heads_name_reads_back_in_both_languages() -> None:
    """attention_core/head_names.py is the one place a head's name is spelled: every head of a 12 × 12 model reads
    back from its English name (as links hold it) and from its Arabic name (as a student types or sees it)."""
    for layer in range(12):
        for head in range(12):
            english = head_name(layer, head)
            assert parse_head(english) == (layer, head)
            arabic = written_head_name(english, _arabic)
            assert arabic == head_name(layer, head, _arabic) != english
            assert english_head_name(arabic, _arabic) == english
    assert written_head_name("L3", _arabic) == layer_name(2, _arabic) and written_head_name("H4", _arabic) != "H4"
    assert written_head_name("head 2", _arabic) == "head 2"  # not a head's short name: as it is
    with pytest.raises(ValueError, match="not a head"):
        parse_head("L3")


def test_a_quiz_links_head_made_in_arabic_is_stored_in_english() -> None:
    """A lesson plan's quiz link made in the Arabic interface names its head «ط4 ر2» or «الرأس 2»; the live class
    stores it in English (ui/live_class/plan.english_head, through english_head_name's template)."""
    from ui.live_class.plan import english_head
    from ui.live_class.session import HEAD

    assert english_head(head_name(3, 1, _arabic)) == "L4 H2"
    assert english_head(_arabic(HEAD).format(head=2)) == HEAD.format(head=2) != _arabic(HEAD).format(head=2)
    assert english_head("L4 H2") == "L4 H2" and english_head("the street") == "the street"
