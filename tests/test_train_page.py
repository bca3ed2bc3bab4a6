"""The Train page as a user drives it (AppTest): bad input, a live run, the replay, downloads, and "my model"."""

from __future__ import annotations

import pytest
import torch

from attention_core.models.head_roles import POSITIONAL_ROLES, ROLES, head_roles
from attention_core.story.text import tokenize
from attention_core.training.corpora import CorpusError, own_corpus
from attention_core.training.live import _RUN_SLOTS, DEMO_PRESET, LIMITS, TrainingRun
from attention_core.words import N_
from tests.conftest import assert_clean, figure_of, figures, open_framed_link, open_page, values
from tests.test_live_training import LINES as ANIMAL_LINES
from ui.models import MINE, RUN_KEY
from ui.train.roles import roles_caption

LINES = "\n".join(ANIMAL_LINES)


def start_pasted_run(text: str = LINES, steps: int = 30, preset: str = "tiny"):
    at = open_page("train")
    at.radio(key="train_corpus").set_value("paste text").run()
    at.text_area(key="train_paste").input(text).run()
    at.selectbox(key="train_preset").set_value(preset).run()
    at.radio(key="train_budget_by").set_value("steps").run()
    at.number_input(key="train_steps").set_value(steps).run()
    at.text_input(key="train_probe").input("the dog saw the boat").run()
    return at.button(key="train_start").click().run()


def test_before_any_run_the_page_says_what_to_do() -> None:
    at = open_page("train")
    assert_clean(at)
    assert any("Start a new run" in info.value for info in at.info)
    assert RUN_KEY not in at.session_state


def test_the_default_run_is_the_live_demo_on_the_quran_for_two_minutes_and_the_page_says_so() -> None:
    """The defaults are the run bench/live_emergence.py measures (docs/runs/live_emergence.txt)."""
    at = open_page("train")
    assert at.selectbox(key="train_preset").value == DEMO_PRESET == "live"
    assert at.radio(key="train_corpus").value == "Qurʾān (built in)"
    assert at.number_input(key="train_minutes").value == 2.0 and at.radio(key="train_budget_by").value == "minutes"
    options = at.selectbox(key="train_preset").options
    assert options[0].startswith("live demo: nothing built in")  # what a closed box shows first
    assert options[1].startswith("shipped recipe: each head built in on a neighbouring word from step 0")
    (info,) = at.info
    assert "live demo, the Qurʾān, 2 minutes" in info.value
    intro = at.markdown[0].value
    assert "noise" not in intro and "no head knows where to look at step 0" in intro


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_chosen_model_size_is_written_out_whole_under_its_box(lang: str) -> None:
    """A select box cuts a long option short (a projector in Arabic showed «العرض الحي (live): لا شيء مبنيّ فيه، يت…»):
    the chosen one is written out whole below it, in the reader's language."""
    at = open_framed_link("train", lang=lang)
    assert_clean(at)
    chosen = at.selectbox(key="train_preset")
    shown = chosen.format_func(chosen.value)
    assert len(shown) > 60 and shown in [caption.value for caption in at.caption]
    chosen.set_value("base").run()
    assert chosen.format_func("base") in [caption.value for caption in at.caption]


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
    assert any("Finished: your tiny model on pasted text" in h.value for h in at.subheader)
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
    assert at.button(key="train_resume").disabled and not at.button(key="train_longer").disabled  # 16

    at.switch_page("pages/fill_blank.py").run()
    assert_clean(at)
    assert at.radio(key="fill_blank_model").value == MINE
    at.text_input(key="fill_blank_sentence").input("the cat saw the [MASK] near the river").run()
    guesses = at.dataframe[0].value["word"].tolist()
    assert set(guesses) <= set(LINES.split())  # guesses come from my model's vocabulary, not the shipped model's


def roles_figures(at) -> tuple[dict, dict]:
    """(roles over training, role map of the picked step): both coloured by role, told apart by their rows."""
    roles = [f for f in figures(at) if f["layout"].get("meta", {}).get("kind") == "roles"]
    over = next(f for f in roles if f["layout"]["meta"]["rows"][0] == "L1 H1")
    picked = next(f for f in roles if f["layout"]["meta"]["rows"][0] == "L1")
    return over, picked


def test_the_replay_shows_the_roles_of_the_heads_over_training_and_at_the_picked_step() -> None:
    at = start_pasted_run()
    run = at.session_state[RUN_KEY]
    run.wait(120)
    at.run()
    assert_clean(at)
    snapshots, labels = run.progress().snapshots, run.progress().probe_labels
    special = [label == "[CLS]" for label in labels]
    assert special == [True] + [False] * (len(labels) - 1)
    over, picked = roles_figures(at)
    assert over["layout"]["meta"]["rows"] == ["L1 H1", "L1 H2"]  # one row per head of the tiny model
    assert over["layout"]["meta"]["cols"] == [f"{s.step:,}" for s in snapshots]  # one column per snapshot
    expected = [[ROLES.index(head_roles(s.weights, special).roles[0][h]) for s in snapshots] for h in range(2)]
    assert values(over).reshape(2, len(snapshots)).tolist() == expected
    for index in (len(snapshots) - 1, 0):  # the slider opens on the last snapshot; then the first
        at.select_slider(key="train_replay").set_value(index).run()
        assert_clean(at)
        roles = head_roles(snapshots[index].weights, special)
        over, picked = roles_figures(at)
        assert values(picked).tolist() == [[ROLES.index(role) for role in roles.roles[0]]]
        assert over["layout"]["shapes"][0]["x0"] == index - 0.5  # its column outlined in the roles over training
        assert any(f"The heads' roles at step {snapshots[index].step:,}" in m.value for m in at.markdown)
    every = [head_roles(s.weights, special).roles[0] for s in snapshots]
    positional = [sum(role in POSITIONAL_ROLES for role in roles) for roles in (every[0], every[-1])]
    caption = next(c.value for c in at.caption if c.value.startswith("Of the 2 heads, "))  # true for the figures:
    start, end = snapshots[0].step, snapshots[-1].step
    assert f"{positional[0]} at step {start:,} and {positional[1]} at step {end:,}" in caption
    changed = []
    for head in range(2):
        if every[-1][head] != every[0][head]:  # settled: the first snapshot of its last unbroken run of one role
            settled = next(i for i in range(len(every), 0, -1) if every[i - 1][head] != every[-1][head])
            changed.append(f"L1 H{head + 1} {every[0][head]} → {every[-1][head]} from step {snapshots[settled].step:,}")
    if changed:
        said = f"a different role at step {end:,} than at step {start:,}: {'; '.join(changed)}."
        assert f"{len(changed)} {'head has' if len(changed) == 1 else 'heads have'} {said}" in caption
    else:
        assert f"No head has a different role at step {end:,} than at step {start:,}." in caption
    assert any(e.label == "How the roles are scored" for e in at.expander)


def test_the_roles_caption_counts_what_the_figures_show() -> None:
    previous = torch.eye(4).roll(-1, dims=1)[None, None].repeat(1, 2, 1, 1)  # (1, 2, 4, 4): rows 1… on the word before
    roles = [head_roles(w, [True, False, False, False]) for w in (torch.full((1, 2, 4, 4), 0.25), previous)]
    assert [r.roles for r in roles] == [(("broad", "broad"),), (("previous word", "previous word"),)]
    assert roles_caption([0, 500], roles, 1).startswith(
        "Of the 2 heads, 0 at step 0 and 2 at step 500 read by position (previous word, next word, self or sink). "
        "2 heads have a different role at step 500 than at step 0: L1 H1 broad → previous word from step 500; "
        "L1 H2 broad → previous word from step 500. Heads per role at step 500: previous word 2."
    )
    assert roles_caption([0], roles[:1], 0).startswith(
        "Of the 2 heads, 0 at step 0 read by position (previous word, next word, self or sink). "
        "Heads per role at step 0: broad 2."
    )


def test_the_caption_names_each_head_that_changed_and_the_step_from_which_it_kept_its_role() -> None:
    """Four snapshots of 1 layer × 3 heads: H1 broad → self → previous word (kept from step 20), H2 broad → self and
    back (not a change), H3 broad throughout."""
    even, itself = torch.full((4, 4), 0.25), torch.eye(4)
    previous = torch.eye(4).roll(-1, dims=1)

    def snapshot(*heads: torch.Tensor):
        return head_roles(torch.stack(heads)[None], [True, False, False, False])

    roles = [
        snapshot(even, even, even),
        snapshot(itself, itself, even),
        snapshot(previous, even, even),
        snapshot(previous, even, even),
    ]
    assert [r.roles[0] for r in roles][1] == ("self", "self", "broad")
    caption = roles_caption([0, 10, 20, 30], roles, 3)
    assert "1 head has a different role at step 30 than at step 0: L1 H1 broad → previous word from step 20." in caption
    assert "Of the 3 heads, 0 at step 0 and 1 at step 30 read by position" in caption
    assert roles_caption([0, 10, 20, 30], [roles[0], roles[1], roles[0], roles[0]], 3).startswith(
        "Of the 3 heads, 0 at step 0 and 0 at step 30 read by position (previous word, next word, self or sink). "
        "No head has a different role at step 30 than at step 0."
    )


@pytest.mark.parametrize(
    ("preset", "start"),
    [
        ("live", "before training: random weights, and a position bias that starts at 0 (no head prefers any place)"),
        ("arabic", "a position bias built in that starts each head on a neighbouring word (−1, +1, −2, +2)"),
        ("tiny", "before training: random weights (no position bias; word order only in the sinusoidal encoding)"),
    ],
)
def test_step_0_is_headed_with_what_the_model_starts_with(preset: str, start: str) -> None:
    at = start_pasted_run(steps=5, preset=preset)
    run = at.session_state[RUN_KEY]
    run.wait(60)
    at.run()
    assert_clean(at)
    at.select_slider(key="train_replay").set_value(0).run()
    assert_clean(at)
    heading = next(m.value for m in at.markdown if m.value.startswith("**The probe's attention at step 0**"))
    assert start in heading and "untrained" not in heading
    assert any("The first (step 0) is before training: random weights" in c.value for c in at.caption)
    # The formula is the model's own: a preset with a position bias adds B to the scores (issue 32), one without none.
    (formula,) = [latex.value for latex in at.latex if "A^{(" in latex.value]
    biased = preset != "tiny"
    assert ("B^{(" in formula) == biased
    assert any(c.value.startswith("B is the head's learned position bias") for c in at.caption) == biased


def test_a_loaded_model_s_first_snapshot_is_headed_as_loaded_not_as_random_weights() -> None:
    first = start_pasted_run(steps=10)
    first.session_state[RUN_KEY].wait(60)
    first.run()
    at = first
    at.file_uploader(key="train_model_upload").upload(
        "old.zip", first.session_state[RUN_KEY].checkpoint_zip(), "application/zip"
    )
    at.run()
    at.button(key="train_further").click().run()
    further = at.session_state[RUN_KEY]
    further.wait(60)
    at.run()
    assert_clean(at)
    at.select_slider(key="train_replay").set_value(0).run()
    heading = next(m.value for m in at.markdown if m.value.startswith("**The probe's attention at step 10**"))
    assert heading.endswith("the model as you loaded it, trained before") and "random" not in heading
    (formula,) = [latex.value for latex in at.latex if "A^{(" in latex.value]
    assert "B^{(" not in formula  # the tiny preset it was trained with has no position bias, nor has the loaded model


def test_while_training_the_roles_so_far_and_the_heads_that_changed_are_shown() -> None:
    """A run as its thread publishes it (status running, three snapshots): the live view draws every head's role
    at every snapshot so far and names the heads that changed."""
    from attention_core.training.live import Snapshot

    at = open_page("train")
    run = TrainingRun(own_corpus("pasted text", ANIMAL_LINES), "tiny", tokenize("the dog saw"), model_label="tiny")
    even, previous = torch.full((4, 4), 0.25), torch.eye(4).roll(-1, dims=1)
    weights = [torch.stack([even, even]), torch.stack([previous, even]), torch.stack([previous, previous])]
    run.probe_labels, run.probe_known = ("[CLS]", "the", "dog", "saw"), (True, True, True, True)
    run._published.status = "running"  # as the thread does
    run._published.snapshots = [
        Snapshot(step, None if not step else 2.0, w[None]) for step, w in zip((0, 40, 80), weights, strict=True)
    ]
    at.session_state[RUN_KEY] = run
    at.run()
    assert not at.exception
    assert any("The heads' roles so far" in m.value and "step 0 to 80" in m.value for m in at.markdown)
    over = figure_of(at, "train_live_roles")
    assert over["layout"]["meta"]["rows"] == ["L1 H1", "L1 H2"] and over["layout"]["meta"]["cols"] == ["0", "40", "80"]
    assert values(over).reshape(2, 3).tolist() == [[4, 0, 0], [4, 4, 0]]  # broad (4) → previous word (0)
    assert any(
        "2 heads have a different role at step 80 than at step 0: L1 H1 broad → previous word from step 40; "
        "L1 H2 broad → previous word from step 80." in c.value
        for c in at.caption
    )
    run._published.status = "stopped"


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


def test_leaving_the_page_during_a_run_keeps_the_form_it_was_started_with() -> None:
    at = start_pasted_run(steps=3000)
    run = at.session_state[RUN_KEY]
    at.switch_page("pages/fill_blank.py").run()
    at.switch_page("pages/train.py").run()
    run.stop()
    run.wait(60)
    at.run()
    assert_clean(at)
    assert at.radio(key="train_corpus").value == "paste text"
    assert at.text_area(key="train_paste").value == LINES
    assert at.text_input(key="train_probe").value == "the dog saw the boat"
    assert at.selectbox(key="train_preset").value == "tiny" and at.number_input(key="train_steps").value == 3000
    assert any("30 lines · 240 words" in c.value for c in at.caption)  # the pasted text's size, before training


def test_a_stopped_run_shows_where_it_stopped_and_resume_goes_on() -> None:
    at = start_pasted_run(steps=300)
    run = at.session_state[RUN_KEY]
    while not run.progress().reports:
        run.wait(0.05)
    at.button(key="train_stop").click().run()
    run.wait(60)
    at.run()
    assert_clean(at)
    bar = at.get("progress")[0].proto
    assert bar.value < 100 and "stopped at" in bar.text and "of the budget (300 steps)" in bar.text
    assert not at.button(key="train_resume").disabled and at.button(key="train_longer").disabled
    at.button(key="train_resume").click().run()
    run.wait(120)
    at.run()
    assert_clean(at)
    assert run.progress().status == "finished" and run.progress().reports[-1].step == 300


def test_the_download_is_named_after_what_the_user_chose(monkeypatch) -> None:
    import streamlit as st

    names, download_button = [], st.download_button
    monkeypatch.setattr(
        st, "download_button", lambda *a, **k: names.append(k.get("file_name")) or download_button(*a, **k)
    )
    at = start_pasted_run(steps=10)
    at.session_state[RUN_KEY].wait(60)
    at.run()
    assert_clean(at)
    assert "attention-tiny-on-pasted-text.zip" in names and "attention-tiny-on-pasted-text-log.csv" in names


def test_a_downloaded_model_is_trained_further_and_a_bad_file_changes_nothing() -> None:
    at = start_pasted_run(steps=10)
    first = at.session_state[RUN_KEY]
    first.wait(60)
    at.run()
    at.file_uploader(key="train_model_upload").upload("broken.zip", b"not a zip", "application/zip").run()
    at.button(key="train_further").click().run()
    assert not at.exception
    assert any("not a zip" in e.value and "Nothing changed" in e.value for e in at.error)
    assert at.session_state[RUN_KEY] is first  # the run and its model are untouched
    at.file_uploader(key="train_model_upload").upload("poems model.zip", first.checkpoint_zip(), "application/zip")
    at.run()
    at.button(key="train_further").click().run()
    further = at.session_state[RUN_KEY]
    assert further is not first and further.model_label == "poems model"
    further.wait(60)
    at.run()
    assert_clean(at)
    assert further.progress().reports[0].step == 11 and further.progress().reports[-1].step == 20
    assert any("your poems model model on pasted text" in h.value for h in at.subheader)


def test_preparing_shows_its_progress_and_stop_says_stopping() -> None:
    at = open_page("train")
    run = TrainingRun(own_corpus("pasted text", ANIMAL_LINES), "tiny", tokenize("the dog"), model_label="tiny")
    run._published.status, run._published.preparing = "running", ("learning word pieces", 0.4)  # as the thread does
    at.session_state[RUN_KEY] = run
    at.run()
    assert not at.exception
    assert "Preparing the text before step 1: learning word pieces… 40%" in at.get("progress")[0].proto.text
    at.button(key="train_stop").click().run()
    assert not at.exception
    assert at.button(key="train_stop").label == "Stopping…" and at.button(key="train_stop").disabled
    assert any("Stopping…" in info.value for info in at.info)
    run._published.status = "stopped"


def test_in_arabic_the_form_and_a_refused_text_are_said_in_arabic() -> None:
    """The option values stay English (the form, tests and links keep them); labels and the core's error are Arabic."""
    at = open_framed_link("train", lang="ar")
    at.radio(key="train_corpus").set_value("paste text").run()
    at.text_area(key="train_paste").input("one line only").run()
    at.button(key="train_start").click().run()
    assert not at.exception
    assert at.radio(key="train_corpus").value == "paste text" and "الصق نصًّا" in at.radio(key="train_corpus").options
    (error,) = at.error
    assert "النص الملصق" in error.value and "20" in error.value and "training needs" not in error.value
    assert RUN_KEY not in at.session_state


def test_a_worded_error_is_said_in_the_session_language_with_its_values() -> None:
    from attention_core.words import Worded
    from ui.i18n import catalog, say

    error = CorpusError(Worded(N_("{name}: is empty (no non-blank lines)"), name=Worded(N_("pasted text"))))
    assert str(error) == "pasted text: is empty (no non-blank lines)"  # the CLI and logs read English
    assert say(error) == str(error)  # no session: the source language
    template = catalog("ar").singular["{name}: is empty (no non-blank lines)"]
    assert template.format(name=catalog("ar").singular["pasted text"]).startswith("النص الملصق")
