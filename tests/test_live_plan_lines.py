"""The lesson plan's list (ui/live_class/plan.py): each line names the question's head, read from its quiz link, in the
reader's language, whatever language the link was made in."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from streamlit.testing.v1 import AppTest

IT_TIRED = "The animal didn't cross the street because it was too tired"


def _plan_lines() -> None:
    from ui.live_class.plan import _plan_line, plan_items

    for i, item in enumerate(plan_items()):
        _plan_line(i, item)


def _link(page: str, **query: str) -> str:
    return f"{page}?" + urlencode({f"{page}_sentence": IT_TIRED, f"{page}_quiz": "true"} | query)


PLAN = [
    {"link": _link("heads", heads_quiz_head="L4 H2", heads_quiz_row="it"), "locked": True, "prompt": ""},
    {"link": _link("heads", heads_quiz_head="ط2 ر1", heads_quiz_row="animal"), "locked": True, "prompt": ""},
    {"link": _link("trainable", trainable_quiz_head="head 3", trainable_quiz_row="it"), "locked": False, "prompt": ""},
    {"link": _link("trainable", trainable_quiz_head="الرأس 2", trainable_quiz_row="it"), "locked": True, "prompt": ""},
    {"link": _link("similarity", similarity_quiz_row="street"), "locked": True, "prompt": ""},
]


WORDS = ["it", "animal", "it", "it", "street"]


@pytest.mark.parametrize(
    ("lang", "heads"),
    [
        ("en", ["L4 H2", "L2 H1", "head 3", "head 2", None]),
        ("ar", ["ط4 ر2", "ط2 ر1", "الرأس 3", "الرأس 2", None]),
    ],
)
def test_each_line_of_the_plan_names_its_head_in_the_readers_language(lang: str, heads: list[str | None]) -> None:
    at = AppTest.from_function(_plan_lines, default_timeout=30)
    at.session_state["live_plan"] = PLAN
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    lines = [m.value for m in at.markdown]
    assert len(lines) == len(PLAN)
    for n, (line, head, word) in enumerate(zip(lines, heads, WORDS, strict=True), start=1):
        assert line.startswith(f"{n}. ")
        if head is None:  # a page of one map: the word comes first
            assert line[len(f"{n}. ") :].lstrip("\u2066\u2067\u2068").startswith(word), line
        else:
            assert head in line and line.index(head) < line.index(word), line
        assert (" في " in line) == (lang == "ar"), line
