"""The Train page as a user drives it (AppTest): bad input, a live run, the replay, downloads, and "my model"."""

from __future__ import annotations

import pytest

from attention_core.live_training import _RUN_SLOTS, LIMITS
from tests.test_app import assert_clean, figures, open_page
from tests.test_live_training import LINES as ANIMAL_LINES
from ui.models import MINE, RUN_KEY

LINES = "\n".join(ANIMAL_LINES)


def start_pasted_run(text: str = LINES, steps: int = 30):
    at = open_page("train")
    at.radio(key="train_corpus").set_value("paste text").run()
    at.text_area(key="train_paste").input(text).run()
    at.selectbox(key="train_preset").set_value("tiny").run()
    at.radio(key="train_budget_by").set_value("steps").run()
    at.number_input(key="train_steps").set_value(steps).run()
    at.text_input(key="train_probe").input("the dog saw the boat").run()
    return at.button(key="train_start").click().run()


def test_before_any_run_the_page_says_what_to_do() -> None:
    at = open_page("train")
    assert_clean(at)
    assert any("Start a new run" in info.value for info in at.info)
    assert RUN_KEY not in at.session_state


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "paste some text"), ("one line only", "at least 20"), ("\x00binary\x00" * 30, "binary")],
)
def test_bad_text_is_refused_with_a_message_and_no_run(text: str, message: str) -> None:
    at = start_pasted_run(text)
    assert not at.exception
    assert any(message in error.value for error in at.error), [e.value for e in at.error]
    assert RUN_KEY not in at.session_state


def test_a_run_draws_its_curves_replay_and_downloads_and_every_page_can_use_it() -> None:
    at = start_pasted_run()
    run = at.session_state[RUN_KEY]
    run.wait(120)
    at.run()
    assert_clean(at)
    assert run.progress().status == "finished"
    assert any("Finished tiny model on pasted text" in h.value for h in at.subheader)
    titles = [figure["layout"].get("title", {}).get("text", "") for figure in figures(at)]
    assert any(t.startswith("Training loss") for t in titles) and any(t.startswith("Held-out") for t in titles)
    grid = next(f for f in figures(at) if "panels" in f["layout"].get("meta", {}))
    assert grid["layout"]["meta"]["panels"] == ["L1 H1", "L1 H2"]  # the replay: 1 layer × 2 heads of the tiny model
    probe_axes = grid["layout"]["xaxis"]
    assert probe_axes["ticktext"] == ["[CLS]", "the", "dog", "saw", "the", "boat"] * 2  # below each head
    replay = at.select_slider(key="train_replay")
    assert replay.value == len(run.progress().snapshots) - 1  # opens on the final weights
    replay.set_value(0).run()
    assert any("step 0" in m.value for m in at.markdown)
    assert len(at.get("download_button")) >= 2

    at.switch_page("pages/fill_blank.py").run()
    assert_clean(at)
    assert at.radio(key="fill_blank_model").value == MINE
    at.text_input(key="fill_sentence").input("the cat saw the [MASK] near the river").run()
    guesses = at.dataframe[0].value["word"].tolist()
    assert set(guesses) <= set(LINES.split())  # guesses come from my model's vocabulary, not the shipped model's


def test_a_new_session_never_sees_another_users_run() -> None:
    first = start_pasted_run(steps=10)
    first.session_state[RUN_KEY].wait(60)
    second = open_page("fill_blank")
    assert RUN_KEY not in second.session_state
    assert MINE not in second.radio(key="fill_blank_model").options  # no "my model" choice to offer


def test_the_server_wide_limit_shows_a_message() -> None:
    taken = [_RUN_SLOTS.acquire(blocking=False) for _ in range(LIMITS.max_runs_at_once)]
    try:
        at = start_pasted_run()
        assert any("already going" in error.value for error in at.error)
        assert RUN_KEY not in at.session_state
    finally:
        for ok in taken:
            if ok:
                _RUN_SLOTS.release()
