"""Word order, sharper (issue 15, point 5): a chosen swap (dog ↔ man) beside the random shuffle, and the difference
heatmap (put back − as typed): zero without positions, not zero with them."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core.story.attention import attend
from attention_core.story.word_order import shuffle_effect, swapped_order
from tests.conftest import APP, assert_clean, figure_of, values


def test_a_swap_exchanges_two_places_and_nothing_else() -> None:
    assert swapped_order(5, 1, 4) == [0, 4, 2, 3, 1]
    assert swapped_order(3, 2, 2) == [0, 1, 2]
    with pytest.raises(ValueError, match="not both in a sentence of 3 words"):
        swapped_order(3, 0, 3)
    V = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
    order = swapped_order(5, 1, 4)
    effect = shuffle_effect(attend(V).scores, attend(V[order]).scores, order)
    assert not effect.difference.any()  # no positions: only moved (rounding noise is 0, story/rounding.py)


def _open(**query: str) -> AppTest:
    at = AppTest.from_file(APP.replace("app.py", "pages/word_order.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_swapping_dog_and_man_from_a_link_changes_attention_only_with_positions() -> None:
    at = _open(
        word_order_sentence="the dog bit the man",
        word_order_how="swapping two words",
        word_order_swap_a="dog",
        word_order_swap_b="man",
        word_order_position="false",
    )
    assert_clean(at)
    assert figure_of(at, "word_order_shuffled")["layout"]["xaxis"]["ticktext"] == ["the", "man", "bit", "the", "dog"]
    assert any("dog ↔ man" in h.value for h in at.subheader)
    assert abs(values(figure_of(at, "word_order_difference"))).max() < 1e-5
    at.toggle(key="word_order_position").set_value(True).run()
    assert abs(values(figure_of(at, "word_order_difference"))).max() > 1e-3
    assert at.selectbox(key="word_order_swap_a").value == "dog" and at.selectbox(key="word_order_swap_b").value == "man"


def test_three_side_by_side_heatmaps_drop_numbers_on_a_projector_where_they_would_overlap() -> None:
    """Word order's three small heatmaps of three words showed "14.6713.5523.03" in presentation mode."""
    from attention_core.figures.heatmaps import enlarged, heatmap

    words = ["ضرب", "الولد", "الكلب"]
    small = heatmap(torch.tensor([[14.67, 13.55, 23.03]] * 3), words, words, kind="signed", compact=True, height=380)
    assert small.data[0].texttemplate  # at the page's own size they fit
    assert not enlarged(small, 1.4).data[0].texttemplate
    weights = heatmap(torch.full((3, 3), 1 / 3), words, words, kind="weights")  # full width: they still fit
    assert enlarged(weights, 1.4).data[0].texttemplate


def test_the_swap_lesson_holds_zero_without_positions_and_not_with_them() -> None:
    from ui.lessons.catalogue import LESSONS

    lesson = next(lesson for lesson in LESSONS if lesson.title.startswith("Who bit whom"))
    at = _open(**{key: value for key, value in lesson.query().items() if isinstance(value, str)})
    assert_clean(at)
    assert at.metric[0].value == "0.00"
    assert any("All white: every cell reads 0" in c.value for c in at.caption)
    at.toggle(key="word_order_position").set_value(True).run()
    assert float(at.metric[0].value) > 0.01


def _written(figure: dict) -> np.ndarray:
    """The numbers in a heatmap's cells as the browser writes them (its texttemplate's d3 format, here "%{z:.Nf}")."""
    # the numbers are written by see-through copies of the trace, black and white (attention_core/figures/screen.py)
    template = next(trace["texttemplate"] for trace in figure["data"] if trace.get("texttemplate"))
    spec = template.removeprefix("%{z:").removesuffix("}")
    return np.vectorize(lambda v: float(f"{v:{spec}}"))(values(figure))


def test_the_difference_map_on_minilm_writes_the_change_its_colours_show_and_says_so() -> None:
    """Issue 23: "put back − as typed" on *the dog bit the man* (MiniLM, with its positions) wrote 0.00 in strongly
    coloured cells (the change is at most 0.0027) under a caption that said "All white"."""
    at = _open(
        word_order_sentence="the dog bit the man",
        word_order_how="swapping two words",
        word_order_swap_a="dog",
        word_order_swap_b="man",
    )
    assert_clean(at)
    assert any("Using MiniLM-L6" in c.value for c in at.sidebar.caption)
    figure = figure_of(at, "word_order_difference")
    difference, bound = values(figure), figure["data"][0]["zmax"]
    assert 1e-3 < bound < 1e-2 and bound == pytest.approx(abs(difference).max(), rel=1e-6)
    coloured = abs(difference) >= 0.05 * bound  # a cell at least a twentieth of the way to the scale's end
    written = _written(figure)
    assert coloured.sum() >= 8 and (written[coloured] != 0).all(), written
    caption = next(c.value for c in at.caption if "What the reordering changed" in c.value)
    assert "All white" not in caption and f"±{at.metric[0].value}" in caption
    assert float(at.metric[0].value) == pytest.approx(bound, abs=1e-4)
