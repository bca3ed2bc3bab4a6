"""The app as a user drives it (Streamlit AppTest): every page, every control, English and Arabic."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core.figures.heatmaps import UNKNOWN_MARK
from attention_core.models.trained import load_model
from tests.conftest import (
    APP,
    ARABIC,
    ARABIC_WORDS,
    ENGLISH,
    assert_clean,
    figure_of,
    figures,
    hidden_word_pills,
    open_page,
    type_sentence,
    values,
    word_axes,
)
from ui.examples import EXAMPLES
from ui.models import SHIPPED


@pytest.mark.parametrize("page", ["similarity", "trainable"])
@pytest.mark.parametrize(("text", "words", "rtl"), [(ENGLISH, ENGLISH.split(), False), (ARABIC, ARABIC_WORDS, True)])
def test_typed_words_label_every_heatmap(page: str, text: str, words: list[str], rtl: bool) -> None:
    at = type_sentence(open_page(page), page, text)
    assert_clean(at)
    axes = word_axes(at)
    assert len(axes) >= 2
    assert all(x == words for x, _ in axes)
    for figure in figures(at):
        assert (figure["layout"]["yaxis"].get("side") == "right") == rtl


SIMILARITY_SWITCHES = [  # sources first: "automatic" is the Arabic model for Arabic and MiniLM for English
    ("radio", "similarity_embedding", "one-hot"),
    ("radio", "similarity_embedding", "trained model"),
    ("radio", "similarity_embedding", "random"),
    ("toggle", "similarity_scale", True),
    ("toggle", "similarity_softmax", True),
    ("radio", "similarity_metric", "cosine"),
    ("toggle", "similarity_position", False),
    ("radio", "similarity_embedding", "one-hot"),
]
TRAINABLE_SWITCHES = [
    ("toggle", "trainable_W1", False),
    ("toggle", "trainable_W2", False),
    ("toggle", "trainable_W3", False),
    ("toggle", "trainable_scale", False),
    ("toggle", "trainable_softmax", False),
    ("slider", "trainable_temperature", 2.5),
    ("select_slider", "trainable_heads", 4),
    ("radio", "trainable_embedding", "one-hot"),
    ("radio", "trainable_embedding", "trained model"),
    ("radio", "trainable_embedding", "random"),
    ("select_slider", "trainable_d", 16),
    ("number_input", "trainable_seed", 7),
    ("toggle", "trainable_position", False),
    ("radio", "trainable_embedding", "one-hot"),
]


def flip(at: AppTest, widget: str, key: str, value: object) -> AppTest:
    getattr(at, widget)(key=key).set_value(value)
    return at.run()


@pytest.mark.parametrize(("page", "switches"), [("similarity", SIMILARITY_SWITCHES), ("trainable", TRAINABLE_SWITCHES)])
@pytest.mark.parametrize("text", [ENGLISH, ARABIC])
def test_every_control_keeps_the_page_working(page: str, switches: list, text: str) -> None:
    at = type_sentence(open_page(page), page, text)
    for widget, key, value in switches:
        before = figures(at)
        at = flip(at, widget, key, value)
        assert_clean(at)
        assert figures(at) != before, f"{key} changed nothing"
        axes = word_axes(at)  # every word × word heatmap is labelled with the typed words, in order
        assert axes and all(x == text.split() == y for x, y in axes), (key, axes)


def test_similarity_colour_scales_follow_the_values() -> None:
    at = open_page("similarity")
    at = flip(flip(at, "radio", "similarity_metric", "cosine"), "toggle", "similarity_softmax", True)
    similarity_figure, weights_figure = figures(at)[1], figures(at)[2]
    assert (similarity_figure["data"][0]["zmin"], similarity_figure["data"][0]["zmax"]) == (-1, 1)
    assert (weights_figure["data"][0]["zmin"], weights_figure["data"][0]["zmax"]) == (0, 1)
    assert any("sum to 1" in c.value for c in at.caption)


def test_trainable_heads_show_in_one_grid_and_redraw_changes_weights() -> None:
    at = open_page("trainable")
    at = flip(at, "select_slider", "trainable_heads", 4)
    assert figures(at)[0]["layout"]["meta"]["panels"] == ["head 1", "head 2", "head 3", "head 4"]
    at = flip(at, "radio", "trainable_head", 3)
    assert_clean(at)
    before = figures(at)
    at = at.button(key="trainable_redraw").click().run()
    assert_clean(at)
    assert figures(at) != before


def row_max(at: AppTest) -> float:
    """The one head's weights (figures: scores, weights, output): each row's largest weight, averaged."""
    return float(values(figures(at)[1]).max(axis=1).mean())


@pytest.mark.parametrize(("text", "n"), [("The cat is on the mat", 6), (ARABIC, 4)])
def test_trainable_defaults_teach_rows_differ_and_low_temperature_sharpens(text: str, n: int) -> None:
    at = type_sentence(open_page("trainable"), "trainable", text)
    assert_clean(at)
    scores, weights = values(figures(at)[0]), values(figures(at)[1])
    assert scores.std() > 0.5  # before: 0.004 on MiniLM, every score printed 0.00
    assert np.abs(weights[:, None, :] - weights[None, :, :]).max() > 0.1  # rows differ
    warm = row_max(at)
    assert warm > 1.5 / n  # before: exactly 1/n in every row
    at = flip(at, "slider", "trainable_temperature", 0.1)
    assert row_max(at) > 0.75 and row_max(at) > warm + 0.3


def test_trainable_weight_seed_is_in_the_url_and_a_link_reproduces_the_view() -> None:
    at = type_sentence(open_page("trainable"), "trainable", ENGLISH)
    seed_0 = [values(f) for f in figures(at)]
    for _ in range(2):
        at = at.button(key="trainable_redraw").click().run()
    assert_clean(at)
    assert at.number_input(key="trainable_weight_seed").value == 2
    assert at.query_params["trainable_weight_seed"] in ("2", ["2"])
    shown = [values(f) for f in figures(at)]
    assert not np.array_equal(shown[1], seed_0[1])
    link = AppTest.from_file(str(Path(APP).parent / "pages" / "trainable.py"), default_timeout=60)
    link.query_params["trainable_sentence"] = ENGLISH
    link.query_params["trainable_weight_seed"] = "2"
    link = link.run()
    assert_clean(link)
    assert all(np.array_equal(a, b) for a, b in zip(shown, [values(f) for f in figures(link)], strict=True))


def test_trainable_scores_caption_is_true_after_switching_w1_and_w2_off() -> None:
    at = type_sentence(open_page("trainable"), "trainable", ENGLISH)
    at = flip(flip(at, "toggle", "trainable_W1", False), "toggle", "trainable_W2", False)
    text = " ".join(m.value for m in at.markdown)
    assert "exactly the raw" not in text and "divided by √384 = 19.60" in text and "normalised V̂" in text
    at = flip(flip(at, "toggle", "trainable_scale", False), "toggle", "trainable_normalise", False)
    assert "exactly the raw V·Vᵀ of the Similarity page" in " ".join(m.value for m in at.markdown)
    scores = values(figures(at)[0])
    similarity = type_sentence(open_page("similarity"), "similarity", ENGLISH)  # its scaling is off by default
    assert np.allclose(scores, values(figures(similarity)[1]), atol=1e-4)


def test_trainable_heads_caption_counts_columns_from_one() -> None:
    at = flip(type_sentence(open_page("trainable"), "trainable", ENGLISH), "select_slider", "trainable_heads", 8)
    assert_clean(at)
    assert any(
        "Head 1 uses columns 1–48 of each W, head 2 columns 49–96, …, head 8 columns 337–384" in m.value
        for m in at.markdown
    )


def test_heads_explained_cell_prints_a_negative_bias_with_a_minus() -> None:
    at = type_sentence(open_page("heads"), "heads", ARABIC)
    latex = at.latex[-1].value  # the default cell's bias is negative (−0.162 for this sentence)
    assert "+ -" not in latex and re.search(r"\\frac\{-?[0-9.]+\}\{[0-9.]+\} [-+][0-9.]+ = ", latex), latex


@pytest.mark.parametrize("page", ["similarity", "trainable"])
@pytest.mark.parametrize("text", ["", "   \t  "])
def test_blank_sentence_gets_a_message_and_no_heatmap(page: str, text: str) -> None:
    at = type_sentence(open_page(page), page, text)
    assert_clean(at)
    assert not at.get("plotly_chart")
    assert any("Type a sentence" in i.value for i in at.info)


def test_long_text_is_cut_at_512_and_long_axes_label_every_few_words() -> None:
    at = open_page("similarity")
    at.sidebar.radio(key="similarity_embedding").set_value("random").run()  # MiniLM would read only 255 of these
    at = type_sentence(at, "similarity", " ".join(f"w{i}" for i in range(600)))
    assert_clean(at)
    assert any("only the first 512" in w.value for w in at.warning)
    assert any("label every few words" in i.value for i in at.info)
    ticks = word_axes(at)[0][0]
    # every k-th of 512 words, at most 40 labels per axis (the labels' type shrinks to its floor before they are
    # thinned, figures/screen.py: every 13th at 1400 px; tests/test_browser_fit.py checks what Chromium draws)
    step = int(ticks[1][1:])
    assert 2 <= step <= 26 and len(ticks) <= 40 and ticks == [f"w{i}" for i in range(0, 512, step)]
    matrix = figures(at)[1]["data"][0]["z"]  # the similarities: a typed array of 512 × 512 for the browser
    assert matrix["shape"] in ("512, 512", [512, 512])


def test_example_button_fills_the_sentence_and_follows_to_the_next_page() -> None:
    at = open_page("similarity")
    example = next(o for o in EXAMPLES if "الطالب" in o)  # the chip's value; its label is isolated right to left
    at = at.pills(key="similarity_example").set_value(example).run()
    assert_clean(at)
    assert word_axes(at)[0][0] == ARABIC_WORDS
    at = at.switch_page("pages/trainable.py").run()
    assert at.text_input(key="trainable_sentence").value == ARABIC


def test_everyday_arabic_gets_the_trained_models_vectors_and_random_ones_are_announced() -> None:
    everyday = "جلس الطالب أمام الكمبيوتر"
    at = type_sentence(open_page("similarity"), "similarity", everyday)
    assert_clean(at)
    x_labels = figures(at)[1]["layout"]["xaxis"]["ticktext"]
    # الكمبيوتر occurs in no training text (the modern one included), but its pieces do: no word is unknown.
    assert x_labels == everyday.split() and not at.warning
    assert "(4 × 128)" in " ".join(c.value for c in at.caption)  # the trained vectors are 128 wide
    assert any("learned word vectors" in c.value for c in at.sidebar.caption) and not at.info
    at = flip(at, "toggle", "similarity_words", False)  # the pieces the model read, one row each
    pieces = figures(at)[1]["layout"]["xaxis"]["ticktext"]
    assert len(pieces) > 4 and any(p.startswith("##") for p in pieces)
    at = flip(at, "radio", "similarity_embedding", "random")
    assert "(4 × 64)" in " ".join(c.value for c in at.caption)
    assert any("random vectors" in i.value for i in at.info)  # said where the heatmaps are, not only in the sidebar
    assert any("random vectors" in c.value for c in at.sidebar.caption)


def test_automatic_says_why_it_falls_back_to_random_vectors() -> None:
    at = open_page("similarity")
    at = flip(at, "radio", "similarity_model", "Arabic: classical + modern model (shipped)")
    at = type_sentence(at, "similarity", "The cat sat on the mat")  # no Arabic letter: nothing the model learned
    assert_clean(at)
    notice = " ".join(i.value for i in at.info)
    assert "random vectors" in notice and "automatic" in notice and "0%" in notice


def test_the_app_credits_the_quran_text() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert any("quran-text" in c.value and "CC-BY-4.0" in c.value for c in at.sidebar.caption)


def test_idea_page_draws_the_raw_story() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert_clean(at)
    assert word_axes(at)[0][0] == ["The", "cat", "is", "on", "the", "mat"]
    assert UNKNOWN_MARK not in json.dumps(figures(at))


def test_fill_the_blank_guesses_and_shows_where_the_blank_looked() -> None:
    at = type_sentence(open_page("fill_blank"), "fill_blank", "إن الله على كل شيء [MASK]")
    assert_clean(at)
    guesses = at.dataframe[0].value
    assert guesses["word"].iloc[0] == "قدير" and len(guesses) == 5
    assert guesses["probability"].is_monotonic_decreasing
    attention = figures(at)[0]
    assert attention["layout"]["xaxis"]["ticktext"] == ["[CLS]", "إن", "الله", "على", "كل", "شيء", "[MASK]"]
    config = load_model().model.config
    assert len(attention["layout"]["yaxis"]["ticktext"]) == config.n_layers * config.n_heads  # one row per head
    assert attention["layout"]["xaxis"]["autorange"] == "reversed"  # Arabic reads right to left
    at = at.slider(key="fill_blank_k").set_value(3).run()
    assert len(at.dataframe[0].value) == 3


def test_fill_the_blank_hides_a_clicked_word() -> None:
    at = type_sentence(open_page("fill_blank"), "fill_blank", "بسم الله الرحمن الرحيم")
    assert_clean(at)
    assert figures(at)[0]["layout"]["xaxis"]["ticktext"][-1] == "[MASK]"  # the last word is hidden first
    at = hidden_word_pills(at).set_value(2).run()
    assert_clean(at)
    assert at.dataframe[0].value["word"].iloc[0] == "الرحمن"
    assert figures(at)[0]["layout"]["xaxis"]["ticktext"] == ["[CLS]", "بسم", "الله", "[MASK]", "الرحيم"]


def test_english_on_automatic_never_goes_to_the_arabic_model_on_fill_the_blank() -> None:
    """Issue 11: "Birds fly south in winter" went to the Arabic model (every word unknown, guesses اجمعين)."""
    at = type_sentence(open_page("fill_blank"), "fill_blank", "Birds fly south in winter")
    assert_clean(at)
    assert at.radio(key="fill_blank_model").value == "automatic (from the sentence's script)"
    # Issue 34: English goes to MiniLM retrained to guess, whose guesses are English words
    assert not at.warning and any("six layers retrained here" in c.value for c in at.sidebar.caption)
    assert all(word.isascii() for word in at.dataframe[0].value["word"])
    at = flip(at, "radio", "fill_blank_model", "Arabic: classical + modern model (shipped)")  # asked for: it reads
    assert_clean(at)
    assert any("[UNK]" in w.value for w in at.warning)  # … and says every English word is unknown to it
    assert len(at.dataframe[0].value) == 5


def test_word_order_shuffle_changes_nothing_without_positions() -> None:
    at = type_sentence(open_page("word_order"), "word_order", "the dog bit the man")
    assert_clean(at)
    learned = figures(at)[0]  # English: MiniLM's own vectors and its learned position table
    assert learned["layout"]["yaxis"]["ticktext"] == ["1: the", "2: dog", "3: bit", "4: the", "5: man"]
    assert len(learned["layout"]["xaxis"]["ticktext"]) <= 40 and any("learned" in m.value for m in at.markdown)
    assert float(at.metric[0].value) > 1e-3 and any("barely moves" in m.value for m in at.markdown)  # MiniLM: small
    at = flip(at, "radio", "word_order_embedding", "random")  # random vectors + the sinusoidal encoding
    pe = figures(at)[0]
    assert pe["layout"]["yaxis"]["ticktext"] == ["1: the", "2: dog", "3: bit", "4: the", "5: man"]
    assert (pe["data"][0]["zmin"], pe["data"][0]["zmax"]) == (-1, 1)
    assert any("Sines and cosines" in c.value for c in at.caption)
    assert float(at.metric[0].value) > 0.01  # with positions, the shuffle really changes attention
    at = flip(at, "toggle", "word_order_position", False)
    assert float(at.metric[0].value) < 1e-5  # without them, it only moves with the words
    shuffled_before = figures(at)[2]["layout"]["xaxis"]["ticktext"]
    at = at.button(key="word_order_shuffle").click().run()
    assert_clean(at)
    assert float(at.metric[0].value) < 1e-5
    assert figures(at)[2]["layout"]["xaxis"]["ticktext"] != shuffled_before
    assert sorted(figures(at)[2]["layout"]["xaxis"]["ticktext"]) == sorted(["the", "dog", "bit", "the", "man"])


def test_word_order_arabic_with_the_trained_model() -> None:
    at = type_sentence(open_page("word_order"), "word_order", "الحمد لله رب العالمين")
    assert_clean(at)
    assert any("(4 × 128)·(128 × 4) = (4 × 4)" in c.value for c in at.caption)  # the trained vectors' width
    assert any("4 positions × 128 dimensions" in c.value for c in at.caption)


def test_multi_head_page_grid_toggles_and_explained_cell() -> None:
    at = type_sentence(open_page("heads"), "heads", "قل هو الله احد")
    assert_clean(at)
    grid = figures(at)[0]  # every head in one figure: 3 layers × (4 heads + their average)
    n_layers = load_model().n_layers
    assert grid["layout"]["meta"]["panels"] == [
        f"L{layer} {head}" for layer in range(1, n_layers + 1) for head in ("H1", "H2", "H3", "H4", "average")
    ]
    assert len(grid["data"]) == 1  # one trace: the whole grid is one matrix with blank gaps
    words = ["[CLS]", "قل", "هو", "الله", "احد"]
    axes = word_axes(at)
    assert axes and all(x == words for x, _ in axes)
    picked_before = figure_of(at, "heads_picked")
    at = flip(at, "toggle", "heads_W1", False)
    assert_clean(at)
    assert figure_of(at, "heads_picked") != picked_before  # identity W1 changes the picked head
    assert any(r"\frac{x\,(xW_2 + b_2)^\top}" in latex.value for latex in at.latex)
    at = flip(flip(at, "selectbox", "heads_layer", 2), "selectbox", "heads_head", 3)
    at = flip(flip(at, "selectbox", "heads_i", 4), "selectbox", "heads_j", 3)
    assert_clean(at)
    assert "V2_{3}" in at.latex[-1].value and "B_{4,3}" in at.latex[-1].value


def test_a_tiny_cell_weight_is_written_with_its_own_digits_not_as_zero() -> None:
    """ "One cell, explained" wrote a cell's weight with three decimals: a weight of 0.00003 read 0.000, as if the
    head gave the word nothing (issue 32). The sentence's smallest weight of the picked head is written with its
    own two significant digits, as the figures write it."""
    at = type_sentence(open_page("heads"), "heads", "قل هو الله احد الله الصمد لم يلد ولم يولد")
    picked = values(figure_of(at, "heads_picked")).astype(float)
    i, j = np.unravel_index(np.nanargmin(picked), picked.shape)
    at = flip(flip(at, "selectbox", "heads_i", int(i)), "selectbox", "heads_j", int(j))
    assert_clean(at)
    (line,) = [c.value for c in at.caption if "this cell's weight is" in c.value]
    written = re.search(r"weight is ([0-9.e-]+)\.$", line).group(1)
    assert float(written) > 0 and abs(float(written) - picked[i, j]) <= 0.05 * picked[i, j], (line, picked[i, j])


def test_every_figure_exports_png_and_csv_with_sensible_names() -> None:
    at = open_page("similarity")
    charts = at.get("plotly_chart")
    configs = [json.loads(chart.proto.config) for chart in charts]
    names = [c["toImageButtonOptions"]["filename"] for c in configs]
    assert names == [
        "attention-similarity_V",
        "attention-similarity_S",
        "attention-similarity_A",
        "attention-similarity_output",
    ]
    downloads = at.get("download_button")
    assert len(downloads) == len(charts)  # one CSV button under every heatmap (contents: figure_table, tested)
    labels = [d.proto.label.replace("\\", "") for d in downloads]  # named after its figure (Markdown escapes dropped)
    assert all(label.startswith("CSV: ") for label in labels) and len(set(labels)) == len(labels), labels


def test_presentation_mode_enlarges_every_figure() -> None:
    at = type_sentence(open_page("similarity"), "similarity", ARABIC)
    normal = [figure["layout"]["font"]["size"] for figure in figures(at)]
    at.toggle(key="presentation").set_value(True).run()
    assert_clean(at)
    bigger = [figure["layout"]["font"]["size"] for figure in figures(at)]
    assert len(bigger) == len(normal) and all(b > n for b, n in zip(bigger, normal, strict=True))


@pytest.mark.parametrize(
    ("page", "prefix"), [("heads", "heads"), ("fill_blank", "fill_blank"), ("similarity", "similarity")]
)
def test_text_longer_than_the_model_reads_is_cut_with_a_notice(page: str, prefix: str) -> None:
    at = type_sentence(open_page(page), prefix, " ".join(["الله"] * 300))
    assert_clean(at)
    if page != "fill_blank":
        assert any("reads only the first 255 words" in w.value for w in at.warning)
        assert len(figures(at)[-1]["layout"]["meta"]["rows"]) <= 256
    else:  # Fill the blank hides the last word, which the model cannot read: it says so
        assert any("put the [MASK] earlier" in w.value for w in at.warning)


def test_clicking_a_repeated_word_hides_that_very_word() -> None:
    at = type_sentence(open_page("fill_blank"), "fill_blank", "the cat sat on the mat the")
    at = flip(at, "radio", "fill_blank_model", SHIPPED)  # English has no model on automatic
    assert hidden_word_pills(at).value == 6  # the last word by default, though "the" occurs three times
    at = hidden_word_pills(at).set_value(4).run()
    assert_clean(at)
    columns = figures(at)[0]["layout"]["meta"]["cols"]
    assert [c.removesuffix(UNKNOWN_MARK) for c in columns] == [
        "[CLS]",
        "the",
        "cat",
        "sat",
        "on",
        "[MASK]",
        "mat",
        "the",
    ]


CORE_REFERENCE = "The animal didn't cross the street because it was too tired"
TYPED = ["The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"]


@pytest.mark.parametrize(
    ("page", "prefix"),
    [("similarity", "similarity"), ("trainable", "trainable"), ("heads", "heads"), ("word_order", "word_order")],
)
def test_an_english_sentence_uses_minilm_with_whole_words(page: str, prefix: str) -> None:
    at = type_sentence(open_page(page), prefix, CORE_REFERENCE)
    assert_clean(at)
    assert any("Using MiniLM-L6" in c.value for c in at.sidebar.caption)
    assert at.radio(key=f"{prefix}_model").value.startswith("automatic")
    axes, expected = word_axes(at), TYPED if page != "heads" else ["[CLS]", *TYPED, "[SEP]"]
    assert axes[0][0] == expected and all(sorted(x) == sorted(expected) for x, _ in axes)  # Word order shuffles
    if page != "heads":  # V is MiniLM's input embedding: 384 wide
        assert any("(11 × 384)" in c.value for c in at.caption)


def test_multi_head_page_with_minilm_shows_6_by_12_heads_pieces_and_hidden_special_tokens() -> None:
    at = type_sentence(open_page("heads"), "heads", CORE_REFERENCE)
    grid = next(f for f in figures(at) if "panels" in f["layout"]["meta"])
    assert grid["layout"]["meta"]["panels"][:13] == [f"L1 H{h}" for h in range(1, 13)] + ["L1 average"]
    assert len(grid["layout"]["meta"]["panels"]) == 6 * 13
    assert any("summed over its pieces" in c.value or "sum over its pieces" in c.value for c in at.caption)
    at = flip(at, "toggle", "heads_words", False)
    assert word_axes(at)[0][0][3:6] == ["didn", "'", "t"]  # the pieces MiniLM read
    at = flip(at, "toggle", "heads_special", False)
    assert_clean(at)
    assert "[CLS]" not in word_axes(at)[0][0] and any("renormalised" in c.value for c in at.caption)
    at = flip(at, "toggle", "heads_W1", False)  # a real model's query projection, switched to the identity
    assert_clean(at)
    assert any(r"\frac{x\,(xW_2 + b_2)^\top}" in latex.value for latex in at.latex)


def test_the_model_switch_overrides_the_script() -> None:
    at = type_sentence(open_page("heads"), "heads", CORE_REFERENCE)
    at = flip(at, "radio", "heads_model", "Arabic: classical + modern model (shipped)")
    grid = next(f for f in figures(at) if "panels" in f["layout"]["meta"])
    assert len(grid["layout"]["meta"]["panels"]) == load_model().n_layers * 5  # its layers × (4 heads + average)
    at = type_sentence(at, "heads", "الحمد لله رب العالمين")
    at = flip(at, "radio", "heads_model", "English: MiniLM-L6 (pretrained)")
    grid = next(f for f in figures(at) if "panels" in f["layout"]["meta"])
    assert len(grid["layout"]["meta"]["panels"]) == 6 * 13


def test_fill_the_blank_offers_minilm_retrained_to_guess_and_says_so() -> None:
    """Issue 34: the English choice on Fill the blank is MiniLM retrained here with a word-guessing head."""
    at = type_sentence(open_page("fill_blank"), "fill_blank", "the animal was too [MASK]")
    assert_clean(at)
    assert "English: MiniLM-L6 (pretrained)" in at.radio(key="fill_blank_model").options
    assert any("six layers retrained here" in c.value for c in at.sidebar.caption)
    assert any("retrained here to guess hidden words" in c.value for c in at.caption)


def test_a_long_english_text_is_cut_at_512_pieces_and_pools_the_grid_of_heads() -> None:
    at = type_sentence(open_page("heads"), "heads", " ".join(["tokenisations"] * 300))  # 3 pieces a word
    assert_clean(at)
    assert any("reads only the first 170 words" in w.value for w in at.warning)  # 510 pieces + [CLS] + [SEP]
    grid = next(f for f in figures(at) if "panels" in f["layout"]["meta"])
    assert len(grid["layout"]["meta"]["rows"]) == 86  # 172 words in pairs: 78 panels of 86² cells, not of 172²
    assert any("each cell pools 2 neighbouring words" in c.value for c in at.caption)
    picked = figure_of(at, "heads_picked")
    assert len(picked["layout"]["meta"]["rows"]) == 172  # the picked head keeps every word


def test_a_sentence_carried_over_from_another_page_is_in_the_url() -> None:
    """Issue 11: the sentence kept from the last page was put in the box but not in the URL, so a link lost it."""
    at = type_sentence(open_page("similarity"), "similarity", ARABIC)
    at = at.switch_page("pages/heads.py").run()
    assert_clean(at)
    assert at.text_input(key="heads_sentence").value == ARABIC
    assert at.query_params["heads_sentence"] in (ARABIC, [ARABIC])


def test_the_hidden_word_of_fill_the_blank_is_in_a_shared_link() -> None:
    """The word chips are bound to the URL under a key made from the sentence, which the link also carries. (The
    browser writes a clicked chip into the URL; AppTest has no browser, so the link is written here.)"""
    at = type_sentence(open_page("fill_blank"), "fill_blank", "بسم الله الرحمن الرحيم")
    link = {"fill_blank_sentence": "بسم الله الرحمن الرحيم", hidden_word_pills(at).key: "الرحمن"}
    shared = AppTest.from_file(APP, default_timeout=60)
    for key, value in link.items():
        shared.query_params[key] = value
    shared = shared.switch_page("pages/fill_blank.py").run()
    assert_clean(shared)
    assert figures(shared)[0]["layout"]["xaxis"]["ticktext"] == ["[CLS]", "بسم", "الله", "[MASK]", "الرحيم"]


def test_old_links_of_fill_the_blank_and_word_order_still_open_their_view() -> None:
    """Widget keys start with their page's URL path (fill_blank_…, word_order_…); a link shared before that says
    fill_… and order_…, and must open the same sentence and settings (read under the new names)."""
    from ui.navigation import renamed_legacy_parameters

    assert renamed_legacy_parameters({"fill_sentence": "a", "fill_blank_model": "b", "order_pe": "c"}) == {
        "fill_sentence": "fill_blank_sentence",
        "order_pe": "word_order_pe",
    }
    assert renamed_legacy_parameters({"fill_k": "3", "fill_blank_k": "7"}) == {}  # the new name wins
    sentence = "بسم الله [MASK] الرحيم"
    # Through app.py: AppTest's direct run of a page file loses URL writes across the app frame's first rerun (a real
    # server's first visit to an old link keeps them: tests/test_class_load.py).
    old = AppTest.from_file(APP, default_timeout=60)
    old.query_params["fill_sentence"] = sentence
    old.query_params["fill_k"] = "3"
    old = old.run().switch_page("pages/fill_blank.py").run()
    assert_clean(old)
    assert old.text_input(key="fill_blank_sentence").value == sentence and old.slider(key="fill_blank_k").value == 3
    assert "fill_sentence" not in old.query_params and old.query_params["fill_blank_sentence"] in (sentence, [sentence])
    shuffled = AppTest.from_file(APP, default_timeout=60)
    shuffled.query_params["order_sentence"] = "the dog bit the man"
    shuffled = shuffled.run().switch_page("pages/word_order.py").run()
    assert_clean(shuffled)
    assert shuffled.text_input(key="word_order_sentence").value == "the dog bit the man"
