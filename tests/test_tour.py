"""The guided tour (issue 35): each step opens on its page with its settings, completes on its action and not on
another, and says of the learner's own sentence what the page shows; Back, Skip, End; a link resumes it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from streamlit.testing.v1 import AppTest

from tests.conftest import APP, assert_clean, figure_of, hidden_word_pills, values
from ui.tour.guide import STEPS, TOUR_PARAM

SENTENCE = "the dog chased the cat in the garden"

Action = Callable[[AppTest], object]


def step_shown(at: AppTest) -> str | None:
    """The step the URL and the card say (they must agree)."""
    number = at.query_params.get(TOUR_PARAM)
    progress = [p for p in at.get("progress")]
    if number is None or number == "done":
        return number
    shown = progress[0].proto.text if progress else ""
    assert f"Step {number} of {len(STEPS)}" in shown or f"الخطوة {number} من {len(STEPS)}" in shown
    return number


def open_app(**query: str) -> AppTest:
    """The app's address with `query`, on a fresh session (the home page, unless the tour moves on)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def open_step(number: int, **query: str) -> AppTest:
    """A link to step `number`, opened on a fresh session at the home page: the tour takes it to its own page."""
    at = open_app(**{TOUR_PARAM: str(number), **query})
    assert_clean(at)
    assert step_shown(at) == str(number)
    return at


# Per step: an action that is not the step's (the step stays), then the step's own (the next step opens).
ACTIONS: dict[str, tuple[Action, Action]] = {
    "sentence": (
        lambda at: at.toggle(key="similarity_softmax").set_value(True).run(),
        lambda at: at.text_input(key="similarity_sentence").input(SENTENCE).run(),
    ),
    "positions": (
        lambda at: at.toggle(key="similarity_scale").set_value(True).run(),
        lambda at: at.toggle(key="similarity_position").set_value(False).run(),
    ),
    "cosine": (
        lambda at: at.toggle(key="similarity_softmax").set_value(True).run(),
        lambda at: at.radio(key="similarity_metric").set_value("cosine").run(),
    ),
    "softmax": (
        lambda at: at.toggle(key="similarity_scale").set_value(True).run(),
        lambda at: at.toggle(key="similarity_softmax").set_value(True).run(),
    ),
    "W1": (
        lambda at: at.toggle(key="trainable_W2").set_value(True).run(),
        lambda at: at.toggle(key="trainable_W1").set_value(True).run(),
    ),
    "temperature": (
        lambda at: at.slider(key="trainable_temperature").set_value(0.5).run(),
        lambda at: at.slider(key="trainable_temperature").set_value(2.0).run(),
    ),
    "head": (
        lambda at: at.selectbox(key="heads_layer").set_value(2).run(),
        lambda at: at.selectbox(key="heads_head").set_value(3).run(),
    ),
    "knock out": (
        lambda at: at.toggle(key="heads_special").set_value(False).run(),
        lambda at: at.multiselect(key="heads_knock_out").set_value(["L1 H1"]).run(),
    ),
    "layer": (
        lambda at: at.selectbox(key="heads_head").set_value(2).run(),
        lambda at: at.selectbox(key="heads_layer").set_value(3).run(),
    ),
    "depth": (
        lambda at: at.toggle(key="abstraction_centred").set_value(True).run(),
        lambda at: at.slider(key="abstraction_depth").set_value(2).run(),
    ),
    "hide": (
        lambda at: at.slider(key="fill_blank_k").set_value(3).run(),
        lambda at: hidden_word_pills(at).set_value(1).run(),
    ),
}


def test_the_tour_has_ten_to_fourteen_steps_each_with_a_test() -> None:
    assert 10 <= len(STEPS) <= 14
    assert set(ACTIONS) | {"rank"} == {step.name for step in STEPS}  # rank: tests/test_browser_tour.py clicks it


@pytest.mark.parametrize("name", list(ACTIONS))
def test_a_step_completes_on_its_action_and_not_on_another(name: str) -> None:
    number = next(i for i, step in enumerate(STEPS, 1) if step.name == name)
    own_sentence = {} if name == "sentence" else {f"{STEPS[number - 1].page}_sentence": SENTENCE}  # step 1 types it
    at = open_step(number, **own_sentence)
    assert any(f"#### {STEPS[number - 1].title}" == m.value for m in at.markdown)
    other, own = ACTIONS[name]
    other(at)
    assert_clean(at)
    assert step_shown(at) == str(number), "another action completed the step"
    own(at)
    assert_clean(at)
    assert step_shown(at) == str(number + 1), "the step's own action did not complete it"
    assert any(f"#### {STEPS[number].title}" == m.value for m in at.markdown)


def test_the_learners_sentence_is_carried_through_the_tour() -> None:
    at = open_step(1)
    ACTIONS["sentence"][1](at)  # typed on step 1
    for name in ("positions", "cosine", "softmax"):
        ACTIONS[name][1](at)
    assert step_shown(at) == "5" and at.session_state["trainable_sentence"] == SENTENCE  # on Trainable now
    assert at.session_state["trainable_W1"] is False and at.session_state["trainable_W2"] is False  # the step's start


def test_back_skip_and_end() -> None:
    at = open_step(5, trainable_sentence=SENTENCE)
    at.button(key="tour_back").click().run()
    assert step_shown(at) == "4" and at.session_state["similarity_sentence"] == SENTENCE
    at.button(key="tour_skip").click().run()
    assert step_shown(at) == "5"
    at.button(key="tour_end").click().run()
    assert_clean(at)
    assert TOUR_PARAM not in at.query_params and not at.get("progress")
    assert any("Back to the tour: step 5" in b.proto.label for b in at.sidebar.button)  # and it can resume


def test_the_home_page_starts_the_tour_on_similarity() -> None:
    at = open_app()
    at.button(key="idea_tour").click().run()
    assert_clean(at)
    assert step_shown(at) == "1" and "similarity_sentence" in at.session_state


def test_the_similarity_facts_are_the_pages_numbers() -> None:
    """Step 3 names the two most alike different words by the cosine the page's S heatmap shows (positions off)."""
    at = open_step(3, similarity_sentence=SENTENCE)
    at.radio(key="similarity_metric").set_value("cosine").run()  # step 4 now: the page draws cosines
    S = torch.tensor(values(figure_of(at, "similarity_S")))
    words = SENTENCE.split()
    best = max(
        (S[i, j].item(), words[i], words[j])
        for i in range(len(words))
        for j in range(len(words))
        if words[i] != words[j]
    )
    at = open_step(3, similarity_sentence=SENTENCE)
    (said,) = [m.value for m in at.markdown if "most alike" in m.value]
    assert f"(cosine {best[0]:.2f})" in said and best[1] in said and best[2] in said


def test_the_head_fact_is_the_picked_heads_heatmap() -> None:
    """Step 7 says where head 1 and head 2 of layer 1 send a word: the heatmap of L1 H1 shows it."""
    at = open_step(7, heads_sentence=SENTENCE)
    (said,) = [m.value for m in at.markdown if "In layer 1, head 1 sends" in m.value]
    picked = figure_of(at, "heads_picked")
    weights = torch.tensor(values(picked))
    columns = picked["data"][0]["x"]
    row = [str(label).rstrip("\u200b") for label in picked["data"][0]["y"]].index("dog")
    assert f"«dog» mostly to «{columns[int(weights[row].argmax())]}» ({weights[row].max():.2f})" in said


def test_the_tour_in_arabic() -> None:
    at = open_step(2, lang="ar", similarity_sentence="ذهب الطالب إلى المدرسة")
    assert any("الخطوة 2 من 12" in p.proto.text for p in at.get("progress"))
    assert not any("Your turn" in m.value for m in at.markdown)


def test_a_newcomer_is_offered_the_tour_on_the_home_page_once() -> None:
    at = open_app()
    assert any("New here? The tour" in i.value for i in at.info)
    assert at.session_state["browser_memory_cookies"]["ae_tour_offered"] == "yes"  # this browser will remember it


def test_two_steps_ask_the_class_through_a_live_class_question() -> None:
    """At "many heads" and "hide a word" a teacher can turn the step into the page's quiz, which a live class asks."""
    live = [step for step in STEPS if step.live]
    assert [step.name for step in live] == ["head", "hide"]
    at = open_step(7, heads_sentence=SENTENCE)
    (link,) = [p for p in at.get("page_link") if "live-class question" in p.proto.label]
    assert "heads_quiz=true" in link.proto.page or link.proto.query_string.find("heads_quiz=true") >= 0


def test_the_last_step_stays_on_another_action() -> None:
    """Step 12 completes on Rank every head (a button inside a fragment: tests/test_browser_tour.py presses it);
    here, another control of its page leaves it where it is."""
    at = open_step(12, fill_blank_sentence=SENTENCE)
    at.slider(key="fill_blank_k").set_value(3).run()
    assert_clean(at)
    assert step_shown(at) == "12" and any(f"#### {STEPS[-1].title}" == m.value for m in at.markdown)
