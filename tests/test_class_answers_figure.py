"""The live class's chart (attention_core/figures/class_answers.py class_bars), read as figure JSON: the word a
student picked keeps its label on a phone, where the other words' labels are thinned; a Similarity question's raw
scores stand on their own axis, never on the class's percent axis."""

from __future__ import annotations

import itertools
import json

import plotly.graph_objects as go
import plotly.io
import pytest

from attention_core.figures.class_answers import class_bars
from attention_core.figures.screen import Screen, finish

PHONE = Screen(width=390, height=844)
WORDS = [f"word{i}" for i in range(30)]  # 30 words: a phone shows every second label at most


def _labels(figure: go.Figure) -> tuple[list[int], list[str]]:
    axis = figure.to_dict()["layout"]["xaxis"]
    return list(axis["tickvals"]), list(axis["ticktext"])


def test_thirty_words_on_a_phone_are_thinned() -> None:
    """What the next test is about: without a pick, a phone shows every k-th word's label."""
    values, texts = _labels(finish(class_bars(WORDS, {"word7": 3}, None), PHONE))
    assert 1 < len(values) < len(WORDS)
    assert "word7" not in texts  # the class's own most picked word may lose its label too


@pytest.mark.parametrize("rtl", [False, True])
@pytest.mark.parametrize("picked", [0, 1, 7, 28, 29])
def test_the_picked_word_keeps_its_label_on_a_phone(picked: int, rtl: bool) -> None:
    counts = {"word3": 2, WORDS[picked]: 1}
    row = [1 / len(WORDS)] * len(WORDS)
    figure = finish(class_bars(WORDS, counts, row, rtl=rtl, picked=picked), PHONE)
    values, texts = _labels(figure)
    assert picked in values and texts[values.index(picked)] == WORDS[picked]
    assert all(texts[k] == WORDS[v] for k, v in enumerate(values))  # each label under its own bar
    unthinned, _ = _labels(finish(class_bars(WORDS, counts, row, rtl=rtl), PHONE))
    gaps = {b - a for a, b in itertools.pairwise(values)}
    assert min(gaps) >= unthinned[1] - unthinned[0]  # as far apart as the thinned labels were: none overlap
    assert len(values) >= len(unthinned) - 1


def test_a_pick_changes_nothing_where_every_word_has_its_label() -> None:
    words = ["the", "animal", "did", "it"]
    figure = finish(class_bars(words, {"it": 1}, None, picked=3), PHONE)
    assert _labels(figure) == ([0, 1, 2, 3], words)
    assert _labels(finish(class_bars(words, {"it": 1}, None), PHONE)) == ([0, 1, 2, 3], words)


def test_softmax_weights_share_the_class_s_percent_axis() -> None:
    figure = class_bars(["a", "b", "c"], {"a": 2, "b": 1}, [0.64, 0.3, 0.06])
    data, layout = figure.to_dict()["data"], figure.to_dict()["layout"]
    assert [trace.get("yaxis", "y") for trace in data] == ["y", "y"]
    assert "yaxis2" not in layout and layout["yaxis"]["tickformat"] == ".0%"
    assert list(data[1]["text"]) == ["0.64", "0.30", "0.06"]


@pytest.mark.parametrize("rtl", [False, True])
def test_similarity_scores_stand_on_their_own_axis(rtl: bool) -> None:
    """A Similarity question without softmax stores raw scores (14.67): on the class's percent axis the bar read
    1467 %. The model's row gets a second y axis, with plain numbers, on the other side; both axes meet at 0."""
    scores = [14.67, 3.2, -1.5, 0.4]
    figure = class_bars(["it", "was", "too", "tired"], {"it": 3, "was": 1}, scores, rtl=rtl, kind="signed")
    validated = go.Figure(figure.to_dict())  # Plotly's validator accepts it (the figure is built without validation)
    assert json.loads(plotly.io.to_json(figure, validate=False)) == json.loads(plotly.io.to_json(validated))
    data, layout = figure.to_dict()["data"], figure.to_dict()["layout"]
    model = data[1]
    assert data[0].get("yaxis", "y") == "y" and model["yaxis"] == "y2"
    second = layout["yaxis2"]
    assert second["overlaying"] == "y" and "%" not in second.get("tickformat", "")
    assert second["side"] == ("left" if rtl else "right") != layout["yaxis"]["side"]
    low, high = second["range"]
    assert low <= -1.5 and high >= 14.67
    assert list(model["text"]) == ["14.67", "3.20", "", "0.40"]  # the largest three, as numbers
    assert model["name"] == "the model's score" and second["tickfont"]["color"] == model["marker"]["color"]
    assert "%{y:.2f}" in model["hovertemplate"] and "%" not in model["hovertemplate"].replace("%{", "")
    bottom, top = layout["yaxis"]["range"]
    assert bottom / (top - bottom) == pytest.approx(low / (high - low))  # 0 at the same height on both axes
    assert top >= 3 / 4  # the class's bars fit
    assert all(v >= 0 for v in layout["yaxis"]["tickvals"])  # no negative share is labelled


def test_cosine_scores_are_raw_too_and_an_empty_row_keeps_its_slot() -> None:
    figure = class_bars(["a", "b"], {"a": 1}, [0.9, -0.2], kind="cosine").to_dict()
    assert figure["data"][1]["yaxis"] == "y2" and figure["layout"]["yaxis2"]["range"][0] < 0
    before = class_bars(["a", "b"], {"a": 1}, None, kind="signed").to_dict()  # not revealed: no numbers yet
    assert before["data"][1]["yaxis"] == "y2" and before["data"][1]["y"] == [None, None]
    go.Figure(before)
