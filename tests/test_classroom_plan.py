"""A teacher's lesson plan (classroom/plan.py): the app's own quiz links go in, a saved plan comes back equal, and every
bad file or link is refused with a message that says what is wrong."""

from __future__ import annotations

import json

import pytest

from classroom.plan import (
    MAX_QUESTIONS,
    QUIZ_PAGES,
    LessonPlan,
    PlannedQuestion,
    from_json,
    make_plan,
    parse_plan,
    quiz_link,
    to_json,
)
from classroom.words import Worded
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import QUIZ_PAGES as APP_QUIZ_PAGES
from ui.links import href

QUIZ = "similarity?similarity_sentence=the+cat+sat&similarity_quiz=true&similarity_quiz_row=cat"
APP_LINKS = [href(lesson.page, query) for lesson in LESSONS if (query := lesson.quiz_query()) is not None]


def test_the_plan_knows_the_apps_quiz_pages() -> None:
    assert set(QUIZ_PAGES) == {*APP_QUIZ_PAGES, "abstraction", "fill_blank"}
    assert {link.partition("?")[0] for link in APP_LINKS} <= set(QUIZ_PAGES)  # no lesson asks on trainable yet
    assert any(link.startswith("fill_blank?") for link in APP_LINKS)  # what will the model guess


@pytest.mark.parametrize("link", APP_LINKS)
def test_every_lessons_quiz_link_is_a_plan_question(link: str) -> None:
    assert quiz_link(link) == link
    assert quiz_link(f"https://class.example.org:8501/{link}", host="class.example.org:8501") == link
    assert quiz_link(f"/{link}&presentation=true") == link  # the projector's setting is not the class's


def test_a_saved_plan_reads_back_equal() -> None:
    plan = make_plan(
        [
            {"link": APP_LINKS[0], "prompt": "Why does the diagonal win?", "locked": False},
            {"link": f"http://localhost:8501/{QUIZ}"},
            {"link": APP_LINKS[-1], "prompt": "  لماذا؟  ", "sentence": "ذهب الله بنورهم", "word": "ذهب ·2"},
        ],
        title="Attention, week 2",
    )
    assert plan.questions[1] == PlannedQuestion(QUIZ, locked=True)  # locked unless the teacher opens it
    assert plan.questions[2].prompt == "لماذا؟"
    assert plan.questions[1].page == "similarity"
    assert plan.questions[1].query["similarity_quiz_row"] == ["cat"]
    text = plan.to_json()
    assert parse_plan(text) == plan and parse_plan(text.encode()) == plan
    assert "لماذا" in text  # readable in the file, not escaped


def test_a_pages_plan_rows_go_to_a_file_and_come_back() -> None:
    """ui/live_class/plan.py keeps rows {link, page, word, sentence, locked, prompt}: to_json, then from_json."""
    rows = [
        {"link": QUIZ, "page": "similarity", "word": "cat", "sentence": "the cat sat", "locked": True, "prompt": "?"},
        {"link": APP_LINKS[0], "page": "x", "word": "", "sentence": "", "locked": False, "prompt": ""},
    ]
    back = from_json(to_json(rows))
    assert back[0] == rows[0]
    assert back[1]["page"] == APP_LINKS[0].partition("?")[0]  # from the link, not from the row
    assert back[1]["sentence"] and back[1]["word"]  # the link's own sentence and row word
    with pytest.raises(ValueError, match="Question 2: the link"):
        to_json([rows[0], {**rows[1], "link": "fill_blank?fill_blank_k=5"}])


def _plan(**change: object) -> str:
    document: dict[str, object] = {
        "format": "attention-explainer lesson plan",
        "version": 1,
        "title": "",
        "questions": [{"link": QUIZ}],
    }
    return json.dumps(document | change)


def _questions(*items: object) -> str:
    return _plan(questions=list(items))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json {", "not JSON"),
        (b"\xff\xfe\x00garbage", "not JSON"),
        ("[]", "does not say"),
        (json.dumps({"questions": [{"link": QUIZ}]}), "does not say"),
        (_plan(version=2), "version"),
        (_plan(extra=1), "Unknown entries in the plan: extra"),
        (_plan(title=["x"]), "title"),
        (_plan(title="x" * 121), "title"),
        (_plan(questions=[]), "at least one question"),
        (_plan(questions="similarity"), "at least one question"),
        (_plan(questions=[{"link": QUIZ}] * (MAX_QUESTIONS + 1)), r"at most 30 questions \(31 given\)"),
        (_questions("similarity"), "Question 1: a question has a link"),
        (_questions({"link": QUIZ}, {"url": QUIZ}), "Question 2: a question has a link"),
        (_questions({"link": QUIZ, "lock": []}), "Unknown entries in question 1: lock"),
        (_questions({"link": QUIZ, "prompt": 3}), "reflection prompt"),
        (_questions({"link": QUIZ, "prompt": "x" * 501}), "reflection prompt"),
        (_questions({"link": QUIZ, "locked": "yes"}), "'locked' is true or false"),
        (_questions({"link": QUIZ, "locked": 1}), "'locked' is true or false"),
        (_questions({"link": QUIZ, "sentence": ["x"]}), "sentence and word are text"),
        (_questions({"link": QUIZ, "word": "x" * 1001}), "sentence and word are text"),
        (" " * 200_001, "too long"),
    ],
)
def test_a_bad_plan_file_says_what_is_wrong(text: str | bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        parse_plan(text)
    said = raised.value.args[0]  # a sentence the page can translate: its template and values
    assert isinstance(said, Worded) and said.template.format(**said.values) == str(raised.value)


@pytest.mark.parametrize(
    "link",
    [
        "",
        "similarity?similarity_sentence=the+cat",  # the quiz is not on
        "similarity?similarity_quiz=false",
        "join?join_quiz=true",  # not a quiz page
        "similarity?heads_quiz=true",
        "similarity?similarity_quiz=true&heads_layer=2",  # another page's control
        "similarity?similarity_quiz=true&Similarity_X=1",
        "javascript:alert(1)//similarity?similarity_quiz=true",
        "ftp://example.org/similarity?similarity_quiz=true",
        "//evil.example/similarity?similarity_quiz=true",
        "https://evil.example/similarity?similarity_quiz=true",  # not this app's host
        f"{QUIZ}&similarity_sentence={'x' * 2000}",
    ],
)
def test_a_link_that_is_not_one_of_this_apps_quizzes_is_refused(link: str) -> None:
    with pytest.raises(ValueError, match="not to one of this app's quiz pages"):
        quiz_link(link, host="class.example.org")
    with pytest.raises(ValueError, match="Question 1: the link"):
        parse_plan(_questions({"link": link}), host="class.example.org")


def test_a_plan_keeps_only_the_page_and_query_of_a_link() -> None:
    plan = parse_plan(_questions({"link": f"https://anywhere.example/sub/path/{QUIZ}#fragment"}))
    assert plan == LessonPlan((PlannedQuestion(QUIZ),))
    assert plan.questions[0].item()["sentence"] == "the cat sat"
