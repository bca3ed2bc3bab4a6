"""Sentences as matrices, permutation behaviour without positions, and the figures drawn from them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention_core import attend, embed_sentence, similarity, tokenize
from attention_core.figures.head_maps import role_map, roles_over_training
from attention_core.figures.heatmaps import (
    UNKNOWN_MARK,
    heatmap,
    heatmap_grid,
    product_shape,
    weights_kind,
    word_labels,
)
from attention_core.models.head_roles import head_roles


def test_same_word_same_vector_and_seeded() -> None:
    s = embed_sentence(tokenize("The cat saw the cat"), "random", d=16, use_position=False)
    assert torch.equal(s.words[0], s.words[3]) and torch.equal(s.words[1], s.words[4])
    again = embed_sentence(tokenize("cat"), "random", d=16, use_position=False)
    assert torch.equal(again.words[0], s.words[1])
    other_seed = embed_sentence(tokenize("cat"), "random", d=16, seed=1, use_position=False)
    assert not torch.equal(other_seed.words[0], s.words[1])


def test_positional_encoding_separates_repeated_words() -> None:
    s = embed_sentence(tokenize("cat cat"), "random", d=16, use_position=True)
    assert not torch.equal(s.V[0], s.V[1])


def test_one_hot_words_resemble_only_themselves() -> None:
    s = embed_sentence(tokenize("the cat and the dog"), "one-hot", use_position=False)
    S = similarity(s.V)
    expected = torch.tensor([[float(a.norm == b.norm) for b in s.tokens] for a in s.tokens])
    assert torch.equal(S, expected)


def test_without_positions_permuting_words_permutes_similarity() -> None:
    tokens = tokenize("the quick brown fox jumps over the lazy dog")
    order = torch.randperm(len(tokens), generator=torch.Generator().manual_seed(3))
    plain = embed_sentence(tokens, "random", d=32, use_position=False)
    shuffled = embed_sentence([tokens[i] for i in order], "random", d=32, use_position=False)
    assert torch.allclose(similarity(shuffled.V), similarity(plain.V)[order][:, order])
    # and the attended words only move with their words: attention without positions is order-blind
    assert torch.allclose(attend(shuffled.V).output, attend(plain.V).output[order], atol=1e-5)
    # with positions, the same shuffle changes what the words see
    with_pe = embed_sentence(tokens, "random", d=32)
    with_pe_shuffled = embed_sentence([tokens[i] for i in order], "random", d=32)
    assert not torch.allclose(similarity(with_pe_shuffled.V), similarity(with_pe.V)[order][:, order])


def test_unknown_words_are_marked_on_the_axes() -> None:
    assert word_labels(["the", "cat", "on", "the", "mat"], (False, True, False, False, True)) == [
        f"the{UNKNOWN_MARK}",
        "cat",
        f"on{UNKNOWN_MARK}",
        f"the{UNKNOWN_MARK}",
        "mat",
    ]


def test_heatmap_labels_hover_and_direction() -> None:
    words = ["the", "cat", "the"]
    figure = heatmap(torch.softmax(torch.randn(3, 3), -1), words, words, kind="weights", rtl=False)
    layout = figure.layout
    assert list(layout.xaxis.ticktext) == words and list(layout.yaxis.ticktext) == words  # duplicates kept
    assert (figure.data[0].zmin, figure.data[0].zmax) == (0.0, 1.0)
    # Hover names the row and column words; the repeated "the" is a second category (an invisible mark tells it
    # apart), so the two rows stay two rows.
    assert list(figure.data[0].x) == ["the", "cat", "the\u200b"] and figure.data[0].hovertemplate.startswith(
        "%{y} → %{x}"
    )
    assert layout.xaxis.type == "category" and list(layout.xaxis.tickvals) == list(figure.data[0].x)
    assert layout.xaxis.autorange is True
    rtl = heatmap(torch.randn(3, 3), ["ا", "ب", "ت"], ["ا", "ب", "ت"], kind="cosine", rtl=True)
    assert rtl.layout.xaxis.autorange == "reversed" and rtl.layout.yaxis.side == "right"
    assert (rtl.data[0].zmin, rtl.data[0].zmax) == (-1.0, 1.0)
    assert "Noto Naskh Arabic" in rtl.layout.font.family


def test_signed_scale_is_symmetric() -> None:
    figure = heatmap(torch.tensor([[-1.0, 3.0]]), ["a"], ["b", "c"], kind="signed")
    assert (figure.data[0].zmin, figure.data[0].zmax) == (-3.0, 3.0)


def test_weights_kind_matches_values() -> None:
    assert weights_kind(softmax=True, cosine=False, scaled=True) == "weights"
    assert weights_kind(softmax=False, cosine=True, scaled=False) == "cosine"
    assert weights_kind(softmax=False, cosine=True, scaled=True) == "signed"


def test_product_shape_text() -> None:
    assert product_shape(torch.zeros(6, 64), torch.zeros(64, 6)) == "(6 × 64)·(64 × 6) = (6 × 6)"


def test_shuffle_effect_is_zero_without_positions_and_not_with_them() -> None:
    from attention_core.story.word_order import shuffle_effect, shuffled_order

    tokens = tokenize("the quick brown fox jumps over the lazy dog")
    order = shuffled_order(len(tokens), seed=5)
    assert sorted(order) == list(range(len(tokens))) and order != list(range(len(tokens)))
    for use_position, expect_zero in ((False, True), (True, False)):
        typed = embed_sentence(tokens, "random", d=32, use_position=use_position)
        mixed = embed_sentence([tokens[i] for i in order], "random", d=32, use_position=use_position)
        effect = shuffle_effect(attend(typed.V).weights, attend(mixed.V).weights, order)
        assert (effect.largest_change < 1e-5) == expect_zero


def test_figure_table_exports_the_full_matrix_with_every_label() -> None:
    from attention_core.figures.heatmaps import dimension_labels, figure_table

    matrix = torch.randn(3, 64)
    figure = heatmap(matrix, ["the", "cat", "the"], dimension_labels(64), columns="dimensions")
    assert len(figure.layout.xaxis.ticktext) < 64  # the ticks are thinned …
    table = figure_table(figure)
    assert list(table.columns) == dimension_labels(64) and list(table.index) == ["the", "cat", "the"]  # … the CSV not
    assert torch.allclose(torch.tensor(table.to_numpy(), dtype=torch.float32), matrix)


def test_a_grid_of_heads_is_one_figure_whose_csv_has_every_cell_of_every_panel() -> None:
    from attention_core.figures.heatmaps import figure_table, heatmap_grid

    weights = torch.softmax(torch.randn(2, 3, 4, 4), -1)
    titles = [f"L{l} H{h}" for l in (1, 2) for h in (1, 2, 3)]  # noqa: E741
    words = ["the", "cat", "the", "mat"]
    figure = heatmap_grid(weights, words, row_names=["L1", "L2"], column_names=["H1", "H2", "H3"], rtl=True)
    assert len(figure.data) == 1 and figure.layout.coloraxis.cmin == 0.0 and figure.layout.coloraxis.cmax == 1.0
    # Each panel is titled by its head; the first of a row also by its layer (all six names in meta, for the CSV).
    # Bold by the font: a title is the name itself, which the app's translation of a figure looks up.
    assert [a.text for a in figure.layout.annotations] == ["L1 H1", "H2", "H3", "L2 H1", "H2", "H3"]
    assert {a.font.weight for a in figure.layout.annotations} == {"bold"}
    assert list(figure.layout.meta["panels"]) == titles
    assert list(figure.layout.xaxis.ticktext) == words * 3 and figure.layout.xaxis.autorange == "reversed"
    z = np.asarray(figure.data[0].z)
    trace, top, left = figure.layout.meta["origins"][5]  # L2 H3: below L1, right of H1 and H2, blanks in between
    assert trace == 0
    np.testing.assert_allclose(z[top : top + 4, left : left + 4], weights[1, 2].numpy())
    assert np.isnan(z[top - 1]).all() and np.isnan(z[:, left - 1]).all()
    assert figure.data[0].y[top + 1] == "L2 · cat" and figure.data[0].x[left + 3] == "H3 · mat"  # hover names
    assert figure.data[0].x[left] != figure.data[0].x[left + 2]  # "the" twice: two columns
    table = figure_table(figure)
    assert list(table.columns) == ["panel", "row", "column", "value"] and len(table) == 6 * 16
    cell = table[(table.panel == "L2 H3") & (table.row == "cat")]
    assert list(cell.column) == words  # a repeated word stays two columns
    torch.testing.assert_close(torch.tensor(cell.value.to_numpy(), dtype=torch.float32), weights[1, 2, 1])


def test_a_signed_panel_of_a_grid_gets_its_own_scale_symmetric_around_zero() -> None:
    from attention_core.figures.heatmaps import figure_table, heatmap_grid

    panels = torch.stack([torch.full((2, 2), 0.5), torch.tensor([[0.3, -0.6], [0.0, 0.1]])])[None]
    figure = heatmap_grid(
        panels, ["a", "b"], row_names=[""], column_names=["head", "head − raw"], signed=frozenset({(0, 1)})
    )
    assert [trace.coloraxis for trace in figure.data] == ["coloraxis", "coloraxis2"]
    first, second = (np.asarray(trace.z) for trace in figure.data)
    assert first.shape == second.shape == (2, 2)  # each trace holds only its own scale's panels
    assert list(figure.data[1].x) == ["head − raw · a", "head − raw · b"]
    assert list(figure.layout.xaxis.categoryarray)[-2:] == list(figure.data[1].x)  # drawn to the right of "head"
    table = figure_table(figure)
    np.testing.assert_allclose(table[table.panel == "head − raw"].value, [0.3, -0.6, 0.0, 0.1], rtol=1e-6)
    assert figure.layout.coloraxis2.cmin == -figure.layout.coloraxis2.cmax == pytest.approx(-0.6)
    assert figure.layout.coloraxis2.colorscale[0][1] != figure.layout.coloraxis.colorscale[0][1]


FIGURES_AS_THE_PAGES_BUILD_THEM = {
    "weights, small, numbers in cells": lambda: heatmap(
        torch.softmax(torch.randn(4, 4), -1), list("abcd"), list("abcd"), kind="weights", title="A"
    ),
    "cosine, right to left": lambda: heatmap(
        torch.rand(3, 3) * 2 - 1, ["ا", "ب", "ت"], ["ا", "ب", "ت"], kind="cosine", rtl=True
    ),
    "signed vectors, 64 dimensions": lambda: heatmap(
        torch.randn(2, 64),
        ["V1 of a", "V2 of b"],
        [str(i) for i in range(64)],
        kind="signed",
        columns="dimensions",
        height=220,
    ),
    "sinusoid, compact": lambda: heatmap(
        torch.rand(50, 50), [f"w{i}" for i in range(50)], [f"w{i}" for i in range(50)], kind="sinusoid", compact=True
    ),
    "grid with a signed panel, right to left": lambda: heatmap_grid(
        torch.rand(2, 3, 5, 5),
        list("abcde"),
        row_names=["L1", "L2"],
        column_names=["H1", "H2", "H − raw"],
        rtl=True,
        signed=frozenset({(0, 2), (1, 2)}),
    ),
    "roles of the heads, right to left": lambda: role_map(
        head_roles(torch.softmax(torch.randn(2, 3, 5, 5), -1), [True, False, False, False, False]), rtl=True
    ),
    "roles over training, two snapshots": lambda: roles_over_training(
        [0, 250],
        [head_roles(torch.softmax(torch.randn(2, 3, 5, 5) * 3, -1), [True, False, False, False, False]) for _ in "ab"],
        picked=1,
    ),
}


@pytest.mark.parametrize("name", FIGURES_AS_THE_PAGES_BUILD_THEM)
def test_every_figure_passes_plotlys_validator_and_sends_what_a_validated_one_would(name: str) -> None:
    """The figures are built without Plotly's validation (it cost a fifth of a rerun). Plotly's validator must
    accept every one of them (it raises on a misspelt or out-of-range property), and the JSON sent to the browser
    must be the same as a validated figure's (e.g. colour scales as stops, not names plotly.js reads otherwise)."""
    import json

    import plotly.graph_objects as go
    import plotly.io

    figure = FIGURES_AS_THE_PAGES_BUILD_THEM[name]()
    validated = go.Figure(figure.to_dict())  # validates every property; raises ValueError on a wrong one
    sent = json.loads(plotly.io.to_json(figure, validate=False))
    assert sent == json.loads(plotly.io.to_json(validated, validate=False))
    assert isinstance(sent["data"][0].get("colorscale", sent["layout"].get("coloraxis", {}).get("colorscale")), list)


def test_every_heatmap_has_its_colour_scale_and_numbers_where_they_fit() -> None:
    """A class reads values off the colour bar, and off the cells where numbers fit: 16 words on a full-width
    heatmap still fit them, 40 do not; a grid of heads shows its scale(s) too, and numbers in panels large enough."""
    words = [f"w{i}" for i in range(16)]
    sixteen = heatmap(torch.softmax(torch.randn(16, 16), -1), words, words, kind="weights")
    assert sixteen.data[0].showscale and sixteen.data[0].texttemplate == "%{z:.2f}"
    many = [f"w{i}" for i in range(40)]
    forty = heatmap(torch.softmax(torch.randn(40, 40), -1), many, many, kind="weights")
    assert forty.data[0].showscale and forty.data[0].texttemplate is None
    side_by_side = heatmap(torch.randn(6, 6), words[:6], words[:6], kind="signed", compact=True, height=380)
    assert side_by_side.data[0].showscale and side_by_side.data[0].texttemplate == "%{z:.2f}"
    panels = torch.stack([torch.full((6, 6), 1 / 6), torch.full((6, 6), 1 / 6), torch.randn(6, 6) / 10])[None]
    raw_head_difference = heatmap_grid(
        panels,
        words[:6],
        row_names=[""],
        column_names=["raw", "head", "head − raw"],
        panel_height=380,
        signed=frozenset({(0, 2)}),
    )
    layout = raw_head_difference.layout
    assert layout.coloraxis.showscale is not False and layout.coloraxis2.showscale is not False
    assert layout.coloraxis.colorbar.title.text == "weight" and layout.coloraxis2.colorbar.title.text == "difference"
    assert all(trace.texttemplate == "%{z:.2f}" for trace in raw_head_difference.data)
    layers, heads = [f"L{i}" for i in range(1, 7)], [f"H{i}" for i in range(1, 14)]
    heads = heatmap_grid(torch.softmax(torch.randn(6, 13, 33, 33), -1), many[:33], row_names=layers, column_names=heads)
    assert heads.layout.coloraxis.showscale is not False and heads.data[0].texttemplate is None


def test_long_column_labels_turn_instead_of_running_into_each_other() -> None:
    long_words = ["The", "extraordinarily", "bioluminescent", "jellyfish", "glowed", "beneath"]
    assert heatmap(torch.rand(6, 6), long_words, long_words, kind="weights").layout.xaxis.tickangle == -60
    short_words = ["The", "cat", "is", "on", "the", "mat"]
    assert heatmap(torch.rand(6, 6), short_words, short_words, kind="weights").layout.xaxis.tickangle == 0


def test_numbers_get_the_decimals_their_largest_value_needs_and_zero_is_said_only_when_written() -> None:
    from attention_core.figures.numbers import decimals, reads_zero, written, written_alone

    assert [decimals([v]) for v in (0.25, -14.67, 0.0027, 0.03, 0.0, 3e-9, 0.09996)] == [2, 2, 4, 3, 2, 6, 2]
    assert written(-0.00004, ".4f") == "0.0000" and written(0.00276, ".4f") == "0.0028"
    assert [written_alone(v) for v in (0.24, 0.0053, 0.00022, 0.0, -0.013, 14.67)] == [
        "0.24",
        "0.0053",
        "0.00022",
        "0",
        "-0.013",
        "14.67",
    ]
    assert written_alone(0.012, sign=True) == "+0.012"
    assert reads_zero([0.0, 4e-7], ".6f") and not reads_zero([0.0, 6e-7], ".6f") and reads_zero([], ".2f")


def test_a_map_of_tiny_changes_writes_them_and_its_strongest_cells_never_read_zero() -> None:
    """Issue 23: put back − as typed wrote 0.00 in cells coloured at the end of the scale (±0.0027)."""
    difference = torch.tensor([[0.0, -0.0027235, 0.0], [0.0013179, 0.0, 7.8e-5], [0.0, 0.0019169, 0.0]])
    words = ["the", "dog", "bit"]
    figure = heatmap(difference, words, words, kind="signed")
    assert figure.data[0].texttemplate == "%{z:.4f}" and figure.data[0].hovertemplate.endswith(
        "%{z:.4f}<extra></extra>"
    )
    assert figure.data[0].zmax == pytest.approx(0.0027235)
    grid = heatmap_grid(
        torch.stack([torch.full((3, 3), 1 / 3), torch.full((3, 3), 1 / 3), difference])[None],
        words,
        row_names=[""],
        column_names=["A", "B", "B − A"],
        panel_height=380,
        signed=frozenset({(0, 2)}),
    )
    assert [trace.texttemplate for trace in grid.data] == ["%{z:.2f}", "%{z:.4f}"]  # each scale its own digits
    # Four decimals need wider cells than two: where "0.25" just fits, "0.0027" is left to the hover.
    nine = [f"w{i}" for i in range(20)]
    narrow = heatmap(torch.full((20, 20), 0.002), nine, nine, kind="signed", compact=True)
    assert narrow.data[0].texttemplate is None


def test_a_map_of_heads_writes_each_head_with_its_own_digits() -> None:
    from attention_core.figures.head_maps import head_values

    values = torch.tensor([[0.24, 0.0002], [0.0, 0.005]])
    figure = head_values(values, scale_title="moved", signed=False, knocked=[(1, 0)], largest=1.0)
    assert [list(row) for row in figure.data[0].text] == [["0.24", "0.00020"], ["✕ 0", "0.0050"]]
    degrees = head_values(values * 100, scale_title="angle", signed=False, unit="°", least_decimals=1)
    assert [list(row) for row in degrees.data[0].text] == [["24.0", "0.020"], ["0", "0.50"]] and degrees.data[
        0
    ].hovertemplate.startswith("%{y} %{x}: %{customdata}°")
