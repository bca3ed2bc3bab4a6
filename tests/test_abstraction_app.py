"""The Abstraction page (AppTest): it opens clean in English and Arabic; its maps, word-pair lines and text lines are
attention_core.readings' own numbers (layer_similarity, sentence_similarity, with every head knocked out for the
views without attention); its captions read those numbers; every control bound to the URL reopens the same view;
the probe's file is shown when it is there, and its absence is said."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from attention_core import layer_similarity, load_minilm, load_model, sentence_similarity
from attention_core.figures.layers import DepthLine, crossing, depth_lines, word_map
from attention_core.readings.sets import sentence_sets
from tests.conftest import assert_clean, figure_of, open_framed_link, open_link, values
from ui.abstraction.view import BANK

TOO_TIRED = "The animal didn't cross the street because it was too tired"
GOLD = "ذهب الله بنورهم ولهم اساور من ذهب"


@pytest.fixture(scope="module")
def minilm():
    return load_minilm()


@pytest.fixture(scope="module")
def arabic():
    return load_model()


def every_head(model) -> list[tuple[int, int]]:
    return [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]


def lines_of(at, key: str) -> dict[str, list[float]]:
    """A depth chart's lines, by name, as the browser receives them (the y of each trace)."""
    figure = figure_of(at, key)
    return {trace["name"]: values({"data": [{"z": trace["y"]}]}).tolist() for trace in figure["data"]}


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_page_opens_clean_in_english_and_in_arabic(lang: str) -> None:
    at = open_framed_link("abstraction", lang=lang)
    assert_clean(at)
    title = at.title[0].value
    assert title == "Abstraction: what the layers make of the words" if lang == "en" else "Abstraction" not in title
    keys = {chart.proto.id.rsplit("-", 1)[-1] for chart in at.get("plotly_chart")}
    assert {"abstraction_map", "abstraction_map_without", "abstraction_pairs", "abstraction_texts"} <= keys


@pytest.mark.parametrize("centred", [False, True])
def test_the_maps_are_layer_similarity_with_attention_and_with_every_head_knocked_out(minilm, centred: bool) -> None:
    at = open_link("abstraction", abstraction_sentence=BANK, abstraction_depth="3", abstraction_centred=str(centred))
    assert_clean(at)
    full = layer_similarity(minilm, BANK, centred)[3]
    bare = layer_similarity(minilm, BANK, centred, knock_out=every_head(minilm))[3]
    assert np.allclose(values(figure_of(at, "abstraction_map")), full.numpy(), atol=1e-5)
    assert np.allclose(values(figure_of(at, "abstraction_map_without")), bare.numpy(), atol=1e-5)
    assert not np.allclose(full.numpy(), bare.numpy(), atol=1e-2)  # after layer 3 attention has changed the words


def test_the_two_banks_are_followed_through_every_depth_and_the_caption_reads_the_line(minilm) -> None:
    at = open_link("abstraction", abstraction_sentence=BANK)
    assert_clean(at)
    assert at.selectbox(key="abstraction_word").value == "bank ·1"  # the longest repeated word opens the page
    assert at.multiselect(key="abstraction_with").value == ["bank ·2"]
    lines = lines_of(at, "abstraction_pairs")
    full = layer_similarity(minilm, BANK)[:, 4, 12]  # "bank" is the 5th and the 13th word
    bare = layer_similarity(minilm, BANK, knock_out=every_head(minilm))[:, 4, 12]
    assert np.allclose(lines["bank ·1 – bank ·2"], full.numpy(), atol=1e-5)
    assert np.allclose(lines["bank ·1 – bank ·2 (without attention)"], bare.numpy(), atol=1e-5)
    low = int(full.argmin())
    assert 0 < low < len(full) - 1  # the banks part in the middle layers and meet again
    caption = next(c.value for c in at.caption if c.value.startswith("“bank ·1” and “bank ·2”"))
    assert f"{full[0]:.2f} at the input V, lowest after layer {low} ({full[low]:.2f})" in caption
    assert f"{full[-1]:.2f} after layer 6; without attention {bare[-1]:.2f} after layer 6" in caption


def test_a_chip_sets_the_sentence_and_the_words_to_follow_by_name(minilm) -> None:
    at = open_link("abstraction", abstraction_sentence=BANK)
    at.pills(key="abstraction_word_example").set_value("it: the animal or the street? (too tired)").run()
    assert_clean(at)
    assert at.text_input(key="abstraction_sentence").value == TOO_TIRED
    assert at.selectbox(key="abstraction_word").value == "it"
    assert at.multiselect(key="abstraction_with").value == ["animal", "street"]
    lines = lines_of(at, "abstraction_pairs")
    similarity = layer_similarity(minilm, TOO_TIRED)
    assert np.allclose(lines["it – animal"], similarity[:, 7, 1].numpy(), atol=1e-5)
    assert np.allclose(lines["it – street"], similarity[:, 7, 5].numpy(), atol=1e-5)


def test_arabic_script_reads_with_the_arabic_model_and_its_own_sets(arabic) -> None:
    at = open_link("abstraction", abstraction_sentence=BANK)
    at.pills(key="abstraction_word_example").set_value("ذهب: 'went' or 'gold'").run()
    assert_clean(at)
    assert at.selectbox(key="abstraction_word").value == "ذهب ·1"
    lines = lines_of(at, "abstraction_pairs")
    assert np.allclose(lines["ذهب ·1 – ذهب ·2"], layer_similarity(arabic, GOLD)[:, 0, 6].numpy(), atol=1e-5)
    assert len(lines["ذهب ·1 – ذهب ·2"]) == arabic.n_layers + 1
    # A first visit with an Arabic sentence opens the texts on the Arabic sets, read by the Arabic model.
    at = open_link("abstraction", abstraction_sentence=GOLD)
    sets = sentence_sets("arabic")
    first = sets.paraphrases[0]
    assert at.text_area(key="abstraction_texts_a").value.splitlines()[0] == first[0]
    texts = lines_of(at, "abstraction_texts")
    name = next(name for name in texts if "without" not in name)
    assert np.allclose(texts[name], sentence_similarity(arabic, *first).numpy(), atol=1e-5)


def test_the_text_lines_are_sentence_similarity_with_attention_and_without(minilm) -> None:
    a, b = ["the film was great", "the dog bit the man"], ["the movie was excellent", "the man bit the dog"]
    at = open_link("abstraction", abstraction_texts_a="\n".join(a), abstraction_texts_b="\n".join(b))
    assert_clean(at)
    lines = lines_of(at, "abstraction_texts")
    assert len(lines) == 4
    for x, y in zip(a, b, strict=True):
        name = f"{x} / {y}"
        assert np.allclose(lines[name], sentence_similarity(minilm, x, y).numpy(), atol=1e-5)
        bare = sentence_similarity(minilm, x, y, knock_out=every_head(minilm))
        assert np.allclose(lines[f"{name} (without attention)"], bare.numpy(), atol=1e-5)
    # The caption names the pair that ends closer and where the two last swapped, from those numbers.
    film, dog = (sentence_similarity(minilm, x, y) for x, y in zip(a, b, strict=True))
    (top, top_line), (second, second_line) = sorted(
        [(f"{a[0]} / {b[0]}", film), (f"{a[1]} / {b[1]}", dog)], key=lambda pair: -float(pair[1][-1])
    )
    caption = next(c.value for c in at.caption if "ends closer than" in c.value)
    assert f"“{top}” ends closer than “{second}” ({top_line[-1]:.2f} against {second_line[-1]:.2f})" in caption
    swap = crossing(top_line.tolist(), second_line.tolist())
    assert ("never behind it" in caption) == (swap is None)


def test_a_topic_paragraph_meets_every_topic_and_the_nearest_is_named_at_each_depth(minilm) -> None:
    at = open_link("abstraction", abstraction_sentence=BANK)
    at.pills(key="abstraction_set").set_value("a paragraph and the topics").run()
    assert_clean(at)
    sets = sentence_sets("english")
    topic, paragraph = sets.topic_paragraphs[0]
    assert at.text_area(key="abstraction_texts_a").value == paragraph
    assert at.text_area(key="abstraction_texts_b").value.splitlines() == list(sets.topics)
    similarity = torch.stack([sentence_similarity(minilm, paragraph, t) for t in sets.topics])  # (topics, depths)
    lines = lines_of(at, "abstraction_texts")
    assert np.allclose([lines[t] for t in sets.topics], similarity.numpy(), atol=1e-5)
    assert list(lines).count(f"{topic} (without attention)") == 1  # only the paragraph's own topic gets its twin
    table = next(t.value for t in at.table if "nearest, with attention" in t.value.index)
    assert list(table.loc["nearest, with attention"]) == [sets.topics[i] for i in similarity.argmax(0)]
    rank = 1 + int((similarity[:, -1] > similarity[sets.topics.index(topic), -1]).sum())
    assert any(
        f"Its own topic, “{topic}”, ranks" in c.value and f"and {rank} after layer 6" in c.value for c in at.caption
    )
    at.pills(key="abstraction_set").set_value("a paragraph and the topics").run()  # a second click: the next one
    assert at.text_area(key="abstraction_texts_a").value == sets.topic_paragraphs[1][1]


def test_every_control_bound_to_the_url_reopens_the_same_view() -> None:
    at = open_framed_link("abstraction", abstraction_sentence=TOO_TIRED).run()  # (a framed link's widgets settle)
    at.toggle(key="abstraction_centred").set_value(True).run()
    at.slider(key="abstraction_depth").set_value(4).run()
    at.selectbox(key="abstraction_word").set_value("it").run()
    at.multiselect(key="abstraction_with").set_value(["animal", "street"]).run()
    at.text_area(key="abstraction_texts_a").input("the cat sat on the mat").run()
    at.text_area(key="abstraction_texts_b").input("a cat was sitting on a rug").run()
    assert_clean(at)
    link = {key: value for key, value in at.query_params.items() if key.startswith("abstraction_")}
    assert set(link) >= {"abstraction_sentence", "abstraction_centred", "abstraction_depth", "abstraction_word"}
    assert link["abstraction_with"] == ["animal", "street"]
    # The browser writes a typed text into the address bar (AppTest does not): the link carries the boxes as typed.
    link |= {key: at.text_area(key=key).value for key in ("abstraction_texts_a", "abstraction_texts_b")}
    again = open_link("abstraction", **link)
    assert_clean(again)
    assert again.toggle(key="abstraction_centred").value is True
    assert again.slider(key="abstraction_depth").value == 4
    assert again.selectbox(key="abstraction_word").value == "it"
    assert again.multiselect(key="abstraction_with").value == ["animal", "street"]
    assert again.text_area(key="abstraction_texts_b").value == "a cat was sitting on a rug"
    for key in ("abstraction_map", "abstraction_map_without", "abstraction_pairs", "abstraction_texts"):
        assert figure_of(again, key)["data"] == figure_of(at, key)["data"], key


def test_the_probe_is_shown_from_its_file_and_its_absence_is_said(tmp_path: Path, monkeypatch) -> None:
    import ui.abstraction.sentences

    monkeypatch.setattr(ui.abstraction.sentences, "PROBE", tmp_path / "probe.json")
    at = open_link("abstraction", abstraction_sentence=GOLD)
    assert any("python -m bench.abstraction_probe" in info.value for info in at.info)
    probe = {
        "command": "python -m bench.abstraction_probe",
        "tasks": [
            {
                "name": "sura revelation",
                "corpus": "quran",
                "classes": ["Meccan", "Medinan"],
                "n_train": 102,
                "n_test": 12,
                "majority": 0.75,
                "accuracy": [0.75, 0.8333, 0.9167, 0.8333],
                "accuracy_without_attention": [0.75, 0.75, 0.8333, 0.75],
                "bag_of_words": {"accuracy": 0.8333},
            }
        ],
    }
    (tmp_path / "probe.json").write_text(json.dumps(probe), encoding="utf-8")
    at = open_link("abstraction", abstraction_sentence=GOLD)
    assert_clean(at)
    lines = lines_of(at, "abstraction_probe")
    assert lines["Meccan or Medinan sūra"] == pytest.approx(probe["tasks"][0]["accuracy"])
    assert lines["Meccan or Medinan sūra (without attention)"] == pytest.approx([0.75, 0.75, 0.8333, 0.75])
    assert lines["Meccan or Medinan sūra: always the commonest class"] == pytest.approx([0.75] * 4)
    caption = next(c.value for c in at.caption if c.value.startswith("Meccan or Medinan sūra"))
    assert "From the input V the probe gets 75% of the held-out lines right, 92% at best (layer 2)" in caption
    assert "Without attention: 83% at best, 75% after layer 3." in caption and "gets 83%." in caption


def test_the_figures_pass_plotlys_validator() -> None:
    depths = ["input V", "layer 1", "layer 2"]
    for figure in (
        depth_lines([DepthLine("a", (0.5, 0.6, 0.7)), DepthLine("b", (0.4, 0.5, 0.9), dashed=True)], depths),
        word_map(torch.eye(3), ["x", "y", "z"], title="t", rtl=True),
    ):
        go.Figure(figure.to_dict())  # raises ValueError on a property Plotly does not know


def test_crossing_finds_where_two_lines_last_swap_places() -> None:
    assert crossing([0.9, 0.8, 0.7], [0.5, 0.6, 0.65]) is None
    assert crossing([0.9, 0.8, 0.7], [0.5, 0.85, 0.65]) == 2  # below at 2 again, after being above at 1
    assert crossing([0.5, 0.5, 0.7], [0.5, 0.6, 0.6]) == 2  # a tie at the start is no swap


def test_presentation_mode_writes_every_figures_text_at_18_px_or_more() -> None:
    at = open_framed_link("abstraction", abstraction_sentence=BANK)
    at.sidebar.toggle(key="presentation").set_value(True).run()  # the projector's setting, not a link's
    assert_clean(at)
    figures = [figure_of(at, key) for key in ("abstraction_map", "abstraction_pairs", "abstraction_texts")]
    for figure in figures:
        layout = figure["layout"]
        assert layout["font"]["size"] >= 18
        assert all(layout[axis]["tickfont"]["size"] >= 18 for axis in ("xaxis", "yaxis"))


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_new_sentence_of_ones_own_gets_a_pair_to_follow(lang: str) -> None:
    """Issue 32: typing one's own sentence after the bank example moved "Follow this word" to "book ·1" and left the
    comparison box empty ("Pick a word to compare it with."); in Arabic the box said "Choose options"."""
    at = open_framed_link("abstraction", lang=lang, abstraction_sentence=BANK).run()  # (a framed link settles)
    assert at.multiselect(key="abstraction_with").value == ["bank ·2"]
    at.text_input(key="abstraction_sentence").input("my book is on the table and your book is on the chair").run()
    assert_clean(at)
    assert at.selectbox(key="abstraction_word").value == "book ·1"
    assert at.multiselect(key="abstraction_with").value == ["book ·2"]
    assert not [info.value for info in at.info if "compare it with" in info.value or "للمقارنة" in info.value]
    assert "abstraction_pairs" in {chart.proto.id.rsplit("-", 1)[-1] for chart in at.get("plotly_chart")}
    placeholder = at.multiselect(key="abstraction_with").proto.placeholder
    assert placeholder and placeholder != "Choose options" and (lang == "en" or not placeholder.isascii())
    # a sentence with no repeated word: its two longest words
    at.text_input(key="abstraction_sentence").input("we painted colourful houses").run()
    assert at.selectbox(key="abstraction_word").value == "painted"
    assert at.multiselect(key="abstraction_with").value == ["colourful"]
    # a pair picked on the same words stands
    at.multiselect(key="abstraction_with").set_value(["we", "houses"]).run()
    assert at.multiselect(key="abstraction_with").value == ["we", "houses"]
