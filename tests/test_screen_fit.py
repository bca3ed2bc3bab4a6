"""Figures finished for the screen they are drawn on (attention_core/figures/screen.py): what a student sees on a
390-px phone, a 1280 × 720 projector in presentation mode and a 1400-px desktop. Chromium's own measurement of the
same pages is tests/test_browser_fit.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest
import torch

from attention_core.figures.head_maps import clickable_heads_map
from attention_core.figures.heatmaps import heatmap, heatmap_grid
from attention_core.figures.label_placement import text_width
from attention_core.figures.screen import LABEL_FLOOR_PX, Screen, finish, labels_every_word
from attention_core.models.head_roles import head_roles

PHONE, PROJECTOR, DESKTOP = Screen(390, 844), Screen(1280, 720, presentation=True), Screen(1400, 900)
WORDS = [
    "The",
    "animal",
    "didn",
    "'",
    "t",
    "cross",
    "the",
    "street",
    "because",
    "it",
    "was",
    "too",
    "tired",
]  # 13, as MiniLM reads them


def _attention(n: int, seed: int = 0) -> torch.Tensor:
    return torch.softmax(torch.randn(n, n, generator=torch.Generator().manual_seed(seed)) * 2, -1)


def _numbers(figure: object) -> list[object]:
    """The traces that write numbers in cells."""
    return [trace for trace in figure.data if trace.type == "heatmap" and trace.texttemplate]


def _wcag(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.1 relative luminance, written out from the definition (an oracle apart from figures.screen)."""
    channels = []
    for c in rgb:
        c = c / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def _ratio(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_the_window_widths_give_the_figure_widths_measured_in_chromium() -> None:
    """Streamlit 1.67's wide layout, measured by bench/figure_overlaps.py: a full-width chart is 358 px on a phone,
    760 on a 1280-px projector in presentation mode, 940 at 1400; one of three columns at 1400 is 303, the right
    of [1, 2] at 1280 in presentation mode 496."""
    assert PHONE.figure_px() == pytest.approx(358, abs=4)
    assert PROJECTOR.figure_px() == pytest.approx(760, abs=8)
    assert DESKTOP.figure_px() == pytest.approx(940, abs=8)
    assert DESKTOP.figure_px(1 / 3) == pytest.approx(303, abs=6)
    assert PROJECTOR.figure_px(2 / 3) == pytest.approx(496, abs=8)
    assert PHONE.figure_px(1 / 3) == PHONE.figure_px()  # columns stack on a phone


def test_a_13_word_head_map_writes_its_numbers_on_a_desktop_and_none_on_a_phone() -> None:
    """The quiz's revealed 13 × 13 head map: on a phone its numbers ran together (".9.00.00…")."""
    phone = finish(heatmap(_attention(13), WORDS, WORDS, kind="weights"), PHONE)
    desktop = finish(heatmap(_attention(13), WORDS, WORDS, kind="weights"), DESKTOP)
    assert not _numbers(phone)
    written = sum(int(np.isfinite(np.asarray(t.z, dtype=float)).sum()) for t in _numbers(desktop))
    assert written == 13 * 13  # every cell once, in black or in white


def test_numbers_that_are_shown_fit_their_cells_at_the_width_drawn() -> None:
    for screen in (PHONE, PROJECTOR, DESKTOP):
        for n in (4, 8, 10, 13, 20):
            words = [f"w{i}" for i in range(n)]
            figure = finish(heatmap(_attention(n), words, words, kind="weights"), screen)
            for trace in _numbers(figure):
                bar_px = 0 if screen.phone else 60  # a phone's colour bar lies flat under the map
                plot_px = screen.figure_px() - 10 - 10 - 40 - bar_px  # margins, row labels, colour bar: at least
                assert text_width("0.00", trace.textfont.size) <= plot_px / n, (screen, n, trace.textfont.size)


def test_every_cell_number_contrasts_at_least_4_5_to_1_with_its_cell() -> None:
    """Cell colours from Plotly's own colour-scale sampling, luminance from WCAG's definition: black or white,
    whichever reads; Plotly's own choice left 59 cells of the app's figures below 4.5:1."""
    values = torch.linspace(0, 1, 36).reshape(6, 6)  # every shade of the weights' scale
    words = [f"w{i}" for i in range(6)]
    figure = finish(heatmap(values, words, words, kind="weights"), DESKTOP)
    scale = [[float(stop), colour] for stop, colour in figure.data[0].colorscale]
    worst = 21.0
    for trace in _numbers(figure):
        text = _wcag(plotly.colors.hex_to_rgb(trace.textfont.color))
        for value in np.asarray(trace.z, dtype=float).ravel():
            if np.isnan(value):
                continue
            cell = plotly.colors.unlabel_rgb(plotly.colors.sample_colorscale(scale, [value])[0])
            worst = min(worst, _ratio(text, _wcag(cell)))
    assert worst >= 4.5
    # and one text colour alone would not do: the scale runs from near white to dark blue
    colours = {trace.textfont.color for trace in _numbers(figure)}
    assert colours == {"#000000", "#ffffff"}


def test_column_labels_turn_or_thin_so_that_none_overlap_on_a_phone() -> None:
    figure = finish(heatmap(_attention(13), WORDS, WORDS, kind="weights"), PHONE)
    axis = figure.layout.xaxis
    shown = list(axis.ticktext if axis.ticktext is not None else WORDS)
    plot_px = PHONE.figure_px() - 10 - 10
    spacing = plot_px / 13 * (13 / len(shown))
    if not axis.tickangle:
        widths = [text_width(t, axis.tickfont.size) for t in shown]
        assert all((a + b) / 2 <= spacing for a, b in itertools.pairwise(widths))
    else:
        assert spacing * np.sin(np.radians(-axis.tickangle)) >= axis.tickfont.size * 1.75
    assert len(shown) < 13 or axis.tickangle  # at 358 px the 13 words do not fit level


def test_a_desktop_keeps_every_word_level_where_they_fit() -> None:
    words = ["the", "cat", "sat", "on", "the", "mat"]
    figure = finish(heatmap(_attention(6), words, words, kind="weights"), DESKTOP)
    assert not figure.layout.xaxis.tickangle and list(figure.layout.xaxis.ticktext) == words


def test_grid_titles_fit_their_panels_on_a_phone() -> None:
    """'Raw V·Vᵀ against the trained head': raw | this head | head − raw; on a phone the titles overlapped."""
    panels = torch.stack([_attention(9), _attention(9, 1), _attention(9) - _attention(9, 1)])[None]
    words = [f"word{i}" for i in range(9)]
    for screen in (PHONE, PROJECTOR, DESKTOP):
        grid = heatmap_grid(
            panels,
            words,
            row_names=[""],
            column_names=["raw", "this head", "head − raw"],
            panel_height=380,
            signed=frozenset({(0, 2)}),
        )
        figure = finish(grid, screen)
        panel_px = (screen.figure_px() - 80) / 3
        for annotation in figure.layout.annotations:
            assert text_width(annotation.text, annotation.font.size) * 1.08 <= panel_px, (screen, annotation.text)


def test_presentation_mode_writes_larger_type() -> None:
    words = ["the", "cat", "sat", "on", "the", "mat"]
    desktop = finish(heatmap(_attention(6), words, words, kind="weights"), DESKTOP)
    projector = finish(heatmap(_attention(6), words, words, kind="weights"), PROJECTOR)
    assert projector.layout.xaxis.tickfont.size >= 18 > desktop.layout.xaxis.tickfont.size
    assert min(t.textfont.size for t in _numbers(projector)) >= 14
    assert projector.layout.height > desktop.layout.height


def test_finish_translates_and_outlines_through_the_apps_callables() -> None:
    calls = []
    words = ["a", "b"]

    def translate(figure: object) -> object:
        calls.append("translate")
        return figure

    def outline(figure: object) -> object:
        calls.append("outline")
        return figure

    finish(heatmap(_attention(2), words, words), DESKTOP, translate=translate, outline=outline)
    assert calls == ["translate", "outline"]


def test_a_grid_thins_its_column_labels_panel_by_panel_and_never_across_a_panel_gap() -> None:
    """Each panel of raw | this head | head − raw keeps the same words, and no panel's last kept word sits next to
    the following panel's first (on a phone, '[SEP]' ran into '[CLS]')."""
    words = ["[CLS]", *WORDS, "[SEP]"]
    panels = torch.stack([_attention(15), _attention(15, 1), _attention(15) - _attention(15, 1)])[None]
    for screen in (PHONE, PROJECTOR, DESKTOP):
        grid = heatmap_grid(
            panels, words, row_names=[""], column_names=["raw", "this head", "head − raw"], panel_height=380
        )
        axis = finish(grid, screen).layout.xaxis
        shown = list(axis.ticktext)
        per_panel = [shown[k * len(shown) // 3 : (k + 1) * len(shown) // 3] for k in range(3)]
        assert per_panel[0] == per_panel[1] == per_panel[2], screen
        columns = list(axis.categoryarray)
        at = sorted(columns.index(value) for value in axis.tickvals)
        gaps = [b - a for a, b in itertools.pairwise(at)]
        assert min(gaps) >= max(1, min(gaps[: len(per_panel[0]) - 1], default=1)), screen


def test_every_layer_and_head_on_a_phone_shows_one_layer_with_a_layer_picker() -> None:
    """MiniLM's 6 × 13 panels were a few px each in 358 px: a phone gets one layer, two panels a row, and a picker."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP, assert_clean, figure_of

    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["screen_reported"] = {"width": 390, "height": 844}
    at = at.run().switch_page("pages/heads.py").run()
    at = at.text_input(key="heads_sentence").input("The animal didn't cross the street because it was too tired").run()
    assert_clean(at)
    grid = figure_of(at, "heads_grid")
    assert grid["layout"]["meta"]["panels"] == [f"L1 H{h}" for h in range(1, 13)] + ["average"]
    at.segmented_control(key="heads_grid_layer").set_value("L4").run()
    grid = figure_of(at, "heads_grid")
    assert grid["layout"]["meta"]["panels"][1] == "L4 H2"
    annotations = [a["text"] for a in grid["layout"]["annotations"] if a["text"]]
    assert annotations[:2] == ["L4 H1", "L4 H2"]


def test_a_table_of_words_writes_each_cell_once_in_the_colour_that_reads() -> None:
    """The logit lens writes words, not z values: Plotly writes a cell's text even where a copy's z is NaN, so the
    white copy once wrote every light cell's word again, a white ghost over the black (CI on the retrained model:
    'قدير 0.84' was the first dark cell)."""
    from attention_core.figures.decision import lens_figure
    from attention_core.readings.logit_lens import LogitLens

    probabilities = torch.tensor([[0.04, 0.03, 0.03], [0.19, 0.07, 0.05], [0.84, 0.04, 0.04]])
    words = (("سفيان", "من", "في"), ("قديرا", "مشيا", "من"), ("قدير", "شهيد", "قديرا"))
    lens = LogitLens(words, probabilities, None, None, None)
    figure = finish(lens_figure(lens), DESKTOP)
    written = [
        (t.textfont.color, r, c)
        for t in _numbers(figure)
        for r, row in enumerate(t.text)
        for c, x in enumerate(row)
        if x
    ]
    assert sorted((r, c) for _, r, c in written) == [(r, c) for r in range(3) for c in range(3)]  # each cell once
    assert ("#ffffff", 2, 0) in written and ("#000000", 0, 0) in written  # the dark cell white, a light one black


@pytest.mark.parametrize("screen", [PHONE, PROJECTOR, DESKTOP], ids=["phone", "projector", "desktop"])
def test_the_lens_with_the_hidden_words_column_writes_every_cell_on_every_screen(screen: Screen) -> None:
    """Issue 32: with the hidden word's column ("#3,116<br>0.000031") the lens lost every word and number in
    presentation mode (and on a phone): a cell's two lines were measured as one line with "<br>" in it, so no size
    fitted and the table was left to the hover. Each line is measured alone, and the lines stacked."""
    from attention_core.figures.decision import lens_figure
    from attention_core.readings.logit_lens import LogitLens

    probabilities = torch.tensor([[0.04, 0.03, 0.03], [0.19, 0.07, 0.05], [0.84, 0.04, 0.04], [0.9, 0.02, 0.01]])
    words = (("سفيان", "من", "في"), ("قديرا", "مشيا", "من"), ("قدير", "شهيد", "قديرا"), ("قدير", "عليم", "شهيد"))
    gold = torch.tensor([0.000031, 0.0004, 0.002, 0.004])
    lens = LogitLens(words, probabilities, "السجادة", (3116, 812, 45, 12), gold)
    figure = finish(lens_figure(lens), screen)
    written = sorted((r, c) for t in _numbers(figure) for r, row in enumerate(t.text) for c, x in enumerate(row) if x)
    assert written == [(r, c) for r in range(4) for c in range(4)]  # every cell once, the dark ones too
    size = min(t.textfont.size for t in _numbers(figure))
    assert size >= (14 if screen.presentation else 9)


@pytest.mark.parametrize("screen", [PHONE, PROJECTOR, DESKTOP], ids=["phone", "projector", "desktop"])
@pytest.mark.parametrize(
    "title, share",
    [
        ("Training loss (cross-entropy at the masked words)", 0.5),  # the Train page's two curves, side by side
        ("Held-out accuracy: the masked word guessed first time", 0.5),
        ("مسبار خطي (linear probe) على المتجه المجمَّع لكل طبقة", 1.0),  # Abstraction's probe, in Arabic
    ],
)
def test_a_long_figure_title_is_wrapped_or_shrunk_within_the_figure(screen: Screen, title: str, share: float) -> None:
    """Measured in Chromium (issue 32), these titles ran off their chart's edge on a phone or a projector: each
    line of a finished title fits the figure's width at its size, never below the screen's floor, and a title on
    two lines has the top margin for both."""
    figure = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), layout={"title": {"text": title, "x": 0.0}, "height": 300})
    figure.update_layout(margin={"l": 10, "r": 10, "t": 50, "b": 10})
    finished = finish(figure, screen, share=share)
    size = finished.layout.title.font.size or round((finished.layout.font.size or 12) * 1.4)
    lines = finished.layout.title.text.split("<br>")
    assert size >= LABEL_FLOOR_PX[screen.kind]
    assert max(text_width(line, size) for line in lines) <= screen.figure_px(share)
    assert " ".join(lines) == title
    if len(lines) == 2:
        assert finished.layout.margin.t >= size * 2.4 and finished.layout.height > 300


def test_a_title_that_fits_is_left_as_it_is() -> None:
    figure = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), layout={"title": {"text": "Loss", "x": 0.0}, "height": 300})
    finished = finish(figure, DESKTOP)
    assert finished.layout.title.text == "Loss" and finished.layout.title.font.size is None
    assert finished.layout.height == 300


@pytest.mark.parametrize("rtl", [False, True], ids=["en", "ar"])
def test_the_head_picker_s_squares_and_labels_fit_a_phone(rtl: bool) -> None:
    """MiniLM's 6 × 12 heads to click on a 390-px phone: its 43-px squares overlapped (12 of them in 358 px) and
    Plotly padded the range by half a square, so the labels H1 … H12, turned upright, ran into each other (measured
    in Chromium, issue 32). Each square now fits its column with a gap, the range is the cells', and the labels are
    one text box apart at least."""
    weights = torch.softmax(torch.randn(6, 12, 9, 9, generator=torch.Generator().manual_seed(0)), -1)
    picker = clickable_heads_map(head_roles(weights, [True] + [False] * 7 + [True]), knocked=[(0, 0)], rtl=rtl)
    finished = finish(picker, PHONE)
    column_px = (PHONE.figure_px() - 20) / 12
    assert finished.data[0].marker.size < column_px
    assert sorted(finished.layout.xaxis.range) == [-0.5, 11.5] and finished.layout.xaxis.autorange is None
    spacing = (PHONE.figure_px() - 20 - 25) / 12  # less the margins and the row labels L1 … L6
    size = finished.layout.xaxis.tickfont.size
    assert size >= 9
    if finished.layout.xaxis.tickangle == 0:
        assert text_width("H12", size) + 2 <= spacing
    else:
        assert size * 1.75 + 2 <= spacing * abs(math.sin(math.radians(finished.layout.xaxis.tickangle)))
    desktop = clickable_heads_map(head_roles(weights, [True] * 9))
    assert finish(go.Figure(desktop), DESKTOP).data[0].marker.size == desktop.data[0].marker.size  # as it was


def test_a_page_asks_whether_two_thirds_of_a_projector_label_every_word() -> None:
    """Fill the blank's "where the blank looked" (72 rows "layer 1 · head 1" × 7 words): in two thirds of a projector
    its row labels took the width and 4 of 7 words kept a label (Chromium, issue 32); the page asks first, and draws it
    under the guesses there."""
    rows = [f"layer {layer} · head {head}" for layer in range(1, 7) for head in range(1, 13)]
    words = ["[CLS]", "إن", "الله", "على", "كل", "شيء", "[MASK]"]
    figure = heatmap(torch.softmax(torch.randn(72, 7), -1), rows, words, kind="weights", shown_rows=rows)
    before = figure.to_json()
    assert not labels_every_word(figure, PROJECTOR, share=2 / 3)
    assert labels_every_word(figure, PROJECTOR) and labels_every_word(figure, DESKTOP, share=2 / 3)
    assert figure.to_json() == before  # the figure asked about is left as it was


def _labelled_columns(figure: go.Figure) -> int:
    return len(figure.layout.xaxis.tickvals)


@pytest.mark.parametrize("screen", [PHONE, PROJECTOR, DESKTOP], ids=["phone", "projector", "desktop"])
def test_three_panels_go_one_under_another_where_side_by_side_would_thin_their_words(screen: Screen) -> None:
    """Multi-head's raw | this head | head − raw of 13 words labelled 21 of 39 columns on a desktop, 12 on a phone
    and a projector (Chromium, issue 32): side by side only where every word keeps its label, else stacked; the
    panels keep their names (a lesson points at "B − A") and the difference its own signed scale either way."""
    from attention_core.figures.heatmaps import panel_strip

    matrices = torch.stack([_attention(13, 0), _attention(13, 1), _attention(13, 1) - _attention(13, 0)])
    names = ["sentence A", "sentence B", "B − A"]
    across = panel_strip(matrices, WORDS, names, across=True, signed=frozenset({2}), panel_height=380)
    stacked = panel_strip(matrices, WORDS, names, across=False, signed=frozenset({2}), panel_height=380)
    assert across.layout.meta["panels"] == stacked.layout.meta["panels"] == names
    assert [trace.coloraxis for trace in stacked.data] == ["coloraxis", "coloraxis2"]
    assert _labelled_columns(finish(go.Figure(stacked), screen)) == 13  # one panel wide: every word named
    shown = finish(go.Figure(across), screen)
    assert labels_every_word(across, screen) == (_labelled_columns(shown) == 39)
    assert not labels_every_word(across, PHONE) and not labels_every_word(across, DESKTOP)  # 13 words: too many
    short = panel_strip(matrices[:, :5, :5], WORDS[:5], names, across=True, signed=frozenset({2}))
    assert labels_every_word(short, DESKTOP)  # 5 words side by side fit a desktop


@pytest.mark.parametrize("kind", ["values", "roles"])
def test_a_phone_s_map_of_12_heads_names_every_head_with_its_colour_bar_below(kind: str) -> None:
    """A map of 12 heads kept its colour bar beside it on a phone ("largest |B − A|": 130 px), leaving each head 14 px
    and H1, H3, … H11 labelled: the bar now lies below, a legend of roles turned upright with room for its names."""
    from attention_core.figures.head_maps import head_values, role_map

    if kind == "values":
        figure = head_values(
            torch.rand(6, 12, generator=torch.Generator().manual_seed(0)),
            scale_title="largest |B − A|",
            signed=False,
            largest=1.0,
        )
    else:
        weights = torch.softmax(torch.randn(6, 12, 10, 10, generator=torch.Generator().manual_seed(0)) * 3, -1)
        figure = role_map(head_roles(weights, [True] + [False] * 8 + [True]))
    height = figure.layout.height
    phone = finish(go.Figure(figure), PHONE)
    assert list(phone.layout.xaxis.tickvals) == [f"H{h}" for h in range(1, 13)]
    bar = phone.data[0].colorbar
    assert bar.orientation == "h" and phone.layout.height > height
    if kind == "roles":
        assert bar.tickangle == -90 and len(bar.ticktext) == 6
        longest = max(text_width(name, 13) for name in bar.ticktext)
        assert phone.layout.margin.b >= longest  # the turned names have the room below the bar
    desktop = finish(go.Figure(figure), DESKTOP)
    assert desktop.data[0].colorbar.orientation != "h"  # beside it where there is room


def test_a_phone_numbers_the_columns_of_a_16_word_map_and_names_each_row_with_its_number() -> None:
    """Abstraction's word maps of 16 words labelled every other column on a phone: the columns are numbered 1–16
    and each row reads "5 bank", so every column is named; a desktop keeps the words."""
    from attention_core.figures.layers import word_map

    words = [
        "I",
        "sat",
        "on",
        "the",
        "bank",
        "of",
        "the",
        "river",
        "then",
        "went",
        "to",
        "the",
        "bank",
        "to",
        "get",
        "money",
    ]
    similarity = torch.rand(16, 16, generator=torch.Generator().manual_seed(0)) * 2 - 1
    phone = finish(word_map(similarity, words, title="The full model"), PHONE)
    assert list(phone.layout.xaxis.ticktext) == [str(k) for k in range(1, 17)]
    assert list(phone.layout.yaxis.ticktext)[4] == "5 bank" and len(phone.layout.yaxis.ticktext) == 16
    assert phone.layout.meta["cols"] == words  # the lesson's cell and the CSV keep the words
    desktop = finish(word_map(similarity, words, title="The full model"), DESKTOP)
    assert list(desktop.layout.xaxis.ticktext) == [*words[:6], "the", *words[7:11], "the", "bank", "to", *words[14:]]


def test_a_vector_s_dimensions_are_marked_as_numbered_columns_not_words() -> None:
    """A pair's V1 and V2 over 32 dimensions labels every k-th dimension, as any numbered axis: layout.meta says so,
    which Chromium's count of unlabelled word columns reads (bench/figure_overlaps.py)."""
    from attention_core.figures.heatmaps import dimension_labels

    figure = heatmap(torch.randn(2, 32), ["V1 of it", "V2 of animal"], dimension_labels(32), columns="dimensions")
    assert figure.layout.meta["columns"] == "dimensions"
    assert heatmap(_attention(5), WORDS[:5], WORDS[:5]).layout.meta["columns"] == "words"


def test_a_grid_s_first_titles_have_the_top_margin_their_type_needs() -> None:
    """Minimal pairs' "sentence A" ran off its chart's top edge on a projector (a 24-px title in a 30-px margin)."""
    grid = heatmap_grid(
        _attention(13)[None, None].repeat(1, 3, 1, 1), WORDS, row_names=[""], column_names=["a", "b", "c"]
    )
    shown = finish(go.Figure(grid), PROJECTOR)
    title = max(annotation.font.size for annotation in shown.layout.annotations)
    assert shown.layout.margin.t >= title * 1.75
