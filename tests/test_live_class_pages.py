"""A live class in AppTest (issue 26): a teacher starts it on a quiz, students join by code and answer, the teacher
reveals to everyone, asks the next question, walks a lesson plan and ends the class; a real SQLite store in a
temporary folder, the model's answer checked against the model itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from classroom import open_store
from classroom.plan import from_json
from tests.conftest import assert_clean, figure_of, open_framed_link, open_link, values
from tests.test_arabic_interface import english_left, page_texts, typed_words
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import QUIZ_PAGES
from ui.live_class.plan import plan_json

IT_TIRED = "The animal didn't cross the street because it was too tired"
HEADS_QUIZ = {"heads_sentence": IT_TIRED, "heads_quiz": "true", "heads_quiz_head": "L4 H2", "heads_quiz_row": "it"}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The app's store, a SQLite file of this test's own (the app opens one per ATTENTION_CLASS_DIR)."""
    monkeypatch.delenv("ATTENTION_CLASS_STORE", raising=False)
    monkeypatch.setenv("ATTENTION_CLASS_DIR", str(tmp_path))
    yield open_store(None)


def texts(at: AppTest) -> str:
    """Everything the page shows as text, its widgets' labels and values too."""
    shown = [str(getattr(e, "value", "")) for e in at.main]
    shown += [str(getattr(e, "label", "")) for e in at.main]
    return "\n".join(shown)


def all_text(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "success", "info", "warning", "error", "metric", "subheader", "title"):
        parts += [str(getattr(e, "value", "")) for e in at.get(kind)]
    parts += [str(getattr(b, "label", "")) for b in at.get("button")]
    parts += [str(v) for v in at.query_params.values()]
    return "\n".join(parts)


def english_in_arabic(at: AppTest, code: str, besides: AppTest | None = None) -> dict[str, list[str]]:
    """The texts of an Arabic page with English words left in them (names, terms, the class code and link, and the
    sentence's words aside), by tests/test_arabic_interface.py's rules; `besides`: the same page without a class,
    whose own texts that test checks."""
    typed = typed_words({"sentence": IT_TIRED, "link": f"join code {code}"})
    known = set(page_texts(besides)) if besides is not None else set()
    return {t: words for t in page_texts(at) if t not in known and (words := english_left(t, typed))}


def started(store: object) -> tuple[AppTest, str, str]:
    teacher = open_link("heads", **HEADS_QUIZ)
    teacher.button(key="live_start").click().run()
    assert_clean(teacher)
    live = teacher.session_state["live_class"]
    return teacher, live.code, live.key


def student(code: str, name: str = "", **query: str) -> AppTest:
    """A student from the join link: the code is in the box; an optional name, then Join."""
    at = open_framed_link("join", code=code, **query).run()  # (AppTest drops a framed page's first change)
    assert at.text_input(key="join_code").value == code
    at.text_input(key="join_name").input(name)
    at.get("button")[0].click().run().run()  # the form's Join (AppTest drops the change after a rerun too)
    assert_clean(at)
    return at


def pick(at: AppTest, code: str, number: int, word: str) -> AppTest:
    return at.selectbox(key=f"join_pick_{code}_{number}").set_value(word).run()


def test_a_class_answers_the_teachers_question_and_the_reveal_reaches_every_student(store: object) -> None:
    teacher, code, key = started(store)
    question = store.question(code)
    # The question the phones get is the model's own row: layer 4, head 2, row "it", as the page draws it (its
    # strongest word, animal at 0.64, as tests/test_guess_then_reveal.py finds it in the model).
    assert question["row"] == "it" and question["head"] == "L4 H2" and question["page"] == "heads"
    assert question["text"] == "L4 H2 · Which word does “it” attend to most?"
    row = np.asarray(question["weights"])
    assert row.sum() == pytest.approx(1.0, abs=2e-3)
    assert question["model_answer"] == "animal" == question["choices"][int(row.argmax())]
    assert float(row.max()) == pytest.approx(0.64, abs=0.01)
    assert np.asarray(question["map"]).shape == (len(question["choices"]),) * 2
    assert key not in str(question)
    assert "heads_quiz_row=it" in question["link"] and "lang" not in question["link"]

    one, two = student(code, name="<b>Ana</b> **x**"), student(code, lang="ar")
    assert any("<b>Ana</b>" not in c.value and "Ana" in c.value for c in one.caption)  # the name, escaped
    assert "street" in one.selectbox(key=f"join_pick_{code}_1").options
    one = pick(one, code, 1, "street")
    assert any("Received: street" in s.value for s in one.success)
    two = pick(two, code, 1, "animal")
    two = pick(two, code, 1, "street")  # a change before the reveal replaces the first answer
    assert store.tally(code) == {"street": 2}
    assert store.named(code, key) == 1  # one name, given with the answer
    assert any("وصلت إجابتك: street" in s.value for s in two.success), [s.value for s in two.success]
    assert english_in_arabic(two, code) == {}
    teacher.run()
    assert_clean(teacher)
    assert "## 2" in [m.value for m in teacher.markdown]  # the count of answers, in big type
    # What the class answered stays hidden until the reveal (issue 33: students followed the crowd), unless shown.
    hidden = figure_of(teacher, "live_class_tally")
    assert not any(hidden["data"][0]["text"]) and any("hidden until the reveal" in c.value for c in teacher.caption)
    teacher.toggle(key="live_show_live").set_value(True).run()
    tally = figure_of(teacher, "live_class_tally")
    assert tally["data"][0]["text"][question["choices"].index("street")] == "2"
    assert all(y is None for y in tally["data"][1]["y"])  # the model's slot stays empty until the reveal
    assert "heads_grid" not in [c.proto.id.rsplit("-", 1)[-1] for c in teacher.get("plotly_chart")]
    teacher.button(key="live_reveal").click().run()
    assert_clean(teacher)
    assert store.revealed(code)
    assert "heads_grid" in [c.proto.id.rsplit("-", 1)[-1] for c in teacher.get("plotly_chart")]  # the page opens
    assert np.allclose(figure_of(teacher, "live_class_tally")["data"][1]["y"], row)

    one.run()
    assert_clean(one)
    assert any("the model attends most to animal" in w.value for w in one.warning)
    assert np.allclose(values(figure_of(one, "join_map")), np.asarray(question["map"]))
    assert figure_of(one, "join_map")["layout"]["shapes"]  # the student's cell outlined
    for at in (one, two):
        assert key not in all_text(at)
        assert "live_class" not in at.session_state  # a student's session holds no class to teach
    two.run()
    assert_clean(two)
    assert english_in_arabic(two, code) == {}  # the answer's page, its chart's legend too
    assert pick_after_reveal_is_refused(store, code)


def pick_after_reveal_is_refused(store: object, code: str) -> bool:
    return store.answer(code, "late-student", "animal") is False


def test_the_next_question_reaches_the_students_and_the_end_leaves_a_summary(store: object) -> None:
    teacher, code, _key = started(store)
    one = pick(student(code), code, 1, "street")
    teacher.selectbox(key="heads_quiz_row").set_value("animal").run()  # the teacher moves to another row
    assert_clean(teacher)
    assert any("still on question" in i.value for i in teacher.info)
    teacher.text_input(key="live_prompt").input("Why not itself?").run()
    teacher.button(key="live_next").click().run()
    assert_clean(teacher)
    status = store.status(code)
    assert status.question_number == 2 and status.question["row"] == "animal" and status.answers == 0
    assert status.question["prompt"] == "Why not itself?" and status.question["locked"]
    # Each question its own prompt (issue 33: it carried over to every next question): the box is empty again.
    teacher.selectbox(key="heads_quiz_row").set_value("street").run()
    assert teacher.text_input(key="live_prompt").value == ""
    teacher.button(key="live_next").click().run()
    assert store.question(code)["prompt"] == "" and store.status(code).question_number == 3
    teacher.selectbox(key="heads_quiz_row").set_value("animal").run()
    teacher.text_input(key="live_prompt").input("Why not itself?").run()
    teacher.button(key="live_next").click().run()
    assert store.status(code).question_number == 4

    one.run()
    assert_clean(one)
    assert any("Question 4" in s.value for s in one.subheader)
    assert one.selectbox(key=f"join_pick_{code}_4").value is None  # a new question, no answer yet
    one = pick(one, code, 4, "the")
    teacher.run().button(key="live_reveal").click().run()
    one.run()
    assert any("Why not itself?" in m.value for m in one.markdown)
    assert not any("Open this question's page" in m.value for m in one.markdown)  # locked

    teacher.button(key="live_end").click().run()
    assert_clean(teacher)
    assert store.status(code).ended
    ended_code, csv = teacher.session_state["live_class_summary"]
    assert ended_code == code and "animal" in csv and "street" in csv
    one.run()
    assert any("ended the class" in i.value for i in one.info)


def test_a_timed_question_counts_down_on_every_screen_and_closes_its_answers(
    store: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: an optional answer timer, a countdown on the projector and on every phone; at 0 the answers close."""
    teacher = open_link("heads", **HEADS_QUIZ)
    teacher.number_input(key="live_timer").set_value(30).run()
    teacher.button(key="live_start").click().run()
    assert_clean(teacher)
    code = teacher.session_state["live_class"].code
    assert store.question(code)["seconds"] == 30
    assert any("left to answer" in m.value for m in teacher.markdown)
    one = student(code)
    assert any("left to answer" in m.value for m in one.markdown)
    later = time.time() + 40  # the countdown has run out
    monkeypatch.setattr(time, "time", lambda: later)
    store_now = open_store(None, clock=lambda: later)
    assert store_now.answer(code, "late", "street") is False  # closed by the store itself
    one.run()
    assert one.selectbox(key=f"join_pick_{code}_1").disabled
    assert any("Time's up" in i.value for i in one.info)
    teacher.run()
    assert any("Time's up" in m.value for m in teacher.markdown)


def test_the_room_opens_first_the_teacher_sees_who_joined_then_asks(store: object) -> None:
    """Issue 33: a lobby: students join and wait; the teacher sees how many joined and the names given, then asks."""
    teacher = open_link("heads", **HEADS_QUIZ)
    teacher.button(key="live_lobby").click().run()
    assert_clean(teacher)
    live = teacher.session_state["live_class"]
    ana, other = student(live.code, name="Ana"), student(live.code)
    assert any("first question appears here" in i.value for i in ana.info)
    assert not [b for b in ana.get("selectbox") if b.key.startswith("join_pick")]  # nothing to answer yet
    teacher.run()
    assert "## 2" in [m.value for m in teacher.markdown]  # joined: two, before any question
    assert any("2 students joined" in e.label for e in teacher.expander)
    assert any("Ana" in m.value for m in teacher.markdown)
    assert any("room is open" in i.value for i in teacher.info)
    teacher.button(key="live_next").click().run()
    assert_clean(teacher)
    assert store.status(live.code).question["row"] == "it"
    other.run()
    assert "street" in other.selectbox(key=f"join_pick_{live.code}_2").options
    teacher.button(key="live_end").click().run()
    assert "lobby" not in teacher.session_state["live_class_summary"][1]  # the summary has the questions asked


def test_wrong_codes_get_a_clear_message_and_are_rate_limited(store: object) -> None:
    at = open_link("join")
    messages = []
    for _ in range(12):
        at.text_input(key="join_code").input("QQQQQ")
        at.get("button")[0].click().run()  # the form's Join
        messages.append(at.error[0].value if at.error else "")
    assert_clean_but_errors(at)
    assert "No class has the code QQQQQ" in messages[0]
    assert any("Too many wrong codes" in m for m in messages)


def assert_clean_but_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def follow_plan_link(at: AppTest, number: int) -> None:
    """What the plan's page link "Go to the plan's question N" does: its quiz page, in the same session."""
    (link,) = [p for p in at.get("page_link") if p.proto.label == f"Go to the plan's question {number}"]
    query = parse_qs(link.proto.query_string)
    for key in list(at.query_params):
        del at.query_params[key]
    for key, given in query.items():
        at.query_params[key] = given if len(given) > 1 else given[0]
    at.switch_page("pages/heads.py").run()


def test_a_lesson_plan_is_walked_question_by_question_and_survives_its_file(store: object) -> None:
    teacher = open_framed_link("heads", **HEADS_QUIZ)  # framed by app.py, as a browser is: its pages to switch to
    teacher.button(key="live_plan_add").click().run()  # question 1: "it", locked, no prompt
    teacher.selectbox(key="heads_quiz_row").set_value("animal").run()
    teacher.toggle(key="live_open_page").set_value(True)
    teacher.text_input(key="live_prompt").input("Why the animal?")
    teacher.button(key="live_plan_add").click().run()  # question 2: "animal", open, with its prompt
    assert_clean(teacher)
    items = teacher.session_state["live_plan"]
    assert [(i["locked"], i["prompt"]) for i in items] == [(True, ""), (False, "Why the animal?")]
    assert from_json(plan_json(items), None) == [
        {
            "link": i["link"],
            "page": "heads",
            "word": w,
            "sentence": IT_TIRED,
            "locked": i["locked"],
            "prompt": i["prompt"],
        }
        for i, w in zip(items, ["it", "animal"], strict=True)
    ]

    follow_plan_link(teacher, 1)  # the plan's question 1 opens: row "it" again
    assert_clean(teacher)
    assert teacher.selectbox(key="heads_quiz_row").value == "it"
    teacher.button(key="live_start").click().run()
    code = teacher.session_state["live_class"].code
    assert store.status(code).question["row"] == "it"
    one = pick(student(code), code, 1, "street")
    teacher.run().button(key="live_reveal").click().run()
    follow_plan_link(teacher, 2)  # question 2 opens and is asked at once
    assert_clean(teacher)
    status = store.status(code)
    assert status.question_number == 2 and status.question["row"] == "animal"
    assert status.question["prompt"] == "Why the animal?" and not status.question["locked"]
    teacher.run().button(key="live_reveal").click().run()
    one.run()
    assert_clean(one)
    assert any("Why the animal?" in m.value for m in one.markdown)
    assert any("Open this question's page" in m.value and "heads_quiz_row=animal" in m.value for m in one.markdown)


def test_a_teacher_in_arabic_asks_students_in_either_language(store: object) -> None:
    before = open_framed_link("heads", lang="ar", **HEADS_QUIZ).run()
    teacher = open_framed_link("heads", lang="ar", **HEADS_QUIZ).run()
    teacher.button(key="live_start").click().run()
    assert_clean(teacher)
    code = teacher.session_state["live_class"].code
    assert store.question(code)["head"] == "L4 H2"  # kept in English, whatever the teacher's language
    english, arabic = student(code), student(code, lang="ar")
    assert any(m.value.startswith("**L4 H2 · Which word") for m in english.markdown)
    assert any("ط4 ر2" in m.value for m in arabic.markdown)
    assert english_in_arabic(teacher, code, besides=before) == {}  # the projector's panel in Arabic


QUIZ_LESSONS = [lesson for lesson in LESSONS if lesson.page in QUIZ_PAGES and lesson.quiz_query() is not None]


@pytest.mark.parametrize("lesson", QUIZ_LESSONS, ids=lambda lesson: lesson.slug)
def test_every_lessons_quiz_version_starts_a_class_on_its_own_question(store: object, lesson: object) -> None:
    query = lesson.quiz_query()
    teacher = open_link(lesson.page, **query)
    teacher.button(key="live_start").click().run()
    assert_clean(teacher)
    question = store.question(teacher.session_state["live_class"].code)
    row = query[f"{lesson.prefix}_quiz_row"]
    assert question["row"] == row and question["choices"][question["row_index"]] == row
    assert question["model_answer"] in question["choices"]
    assert question["head"] == query.get(f"{lesson.prefix}_quiz_head", question["head"])
    teacher.button(key="live_reveal").click().run()
    assert_clean(teacher)
    if lesson.cell is not None:  # the lesson's line on where to look, after the reveal
        assert any("Look at:" in i.value for i in teacher.info)


def test_the_class_follows_the_teacher_to_another_quiz_page(store: object) -> None:
    teacher = open_framed_link("heads", **HEADS_QUIZ).run()
    teacher.button(key="live_start").click().run()
    code = teacher.session_state["live_class"].code
    for key in list(teacher.query_params):
        del teacher.query_params[key]
    teacher.query_params["similarity_quiz"] = "true"
    teacher.query_params["similarity_sentence"] = "the dog bit the man"
    teacher.switch_page("pages/similarity.py").run()  # the sidebar's navigation: the same session
    assert_clean(teacher)
    assert any(f"Live class **{code}** is on" in i.value for i in teacher.sidebar.info)
    assert any("still on question" in i.value for i in teacher.info)
    teacher.button(key="live_next").click().run()
    assert_clean(teacher)
    status = store.status(code)
    assert status.question_number == 2 and status.question["page"] == "similarity"
    assert status.question["sentence"] == "the dog bit the man" and status.question["head"] is None


def test_a_class_is_asked_what_the_model_will_guess_and_the_reveal_scores_every_phone(store: object) -> None:
    """Issue 34: "what will the model guess?" — Fill the blank's quiz as a live class. The phones get the model's
    first five guesses (alphabetical) and their probabilities, the model's own numbers."""
    from attention_core import load_model

    lesson = next(lesson for lesson in LESSONS if lesson.title == "Knock out the word before: agreement is lost")
    teacher = open_link("fill_blank", **lesson.quiz_query())
    teacher.button(key="live_start").click().run()
    assert_clean(teacher)
    code = teacher.session_state["live_class"].code
    question = store.question(code)
    guesses = load_model().fill_mask(lesson.sentence, 5)
    assert question["asks"] == "guess" and question["page"] == "fill_blank"
    assert question["choices"] == sorted((w for w, _ in guesses), key=str.casefold)
    assert question["model_answer"] == guesses[0][0]
    probability = dict(guesses)
    assert question["weights"] == pytest.approx([probability[w] for w in question["choices"]], abs=1e-3)
    assert "fill_blank_quiz=true" in question["link"]

    one, two = student(code), student(code)
    assert any("Which word will the model guess first" in m.value for m in one.markdown)
    one, two = pick(one, code, 1, guesses[0][0]), pick(two, code, 1, guesses[1][0])
    teacher.run()
    assert not teacher.dataframe  # the guesses stay hidden on the projector until the reveal
    teacher.button(key="live_reveal").click().run()
    assert_clean(teacher)
    assert any("the model's first guess is" in s.value for s in teacher.success)
    assert teacher.dataframe  # the page opens: the guesses table
    one.run()
    two.run()
    assert any("**Hit.**" in s.value and "first guess is" in s.value for s in one.success)
    assert any("Not this time" in w.value and "first guess is" in w.value for w in two.warning)
