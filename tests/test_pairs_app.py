"""The Minimal pairs page (AppTest): a shared link with both sentences, its figures against attention_core computed
directly, the built-in pairs, the head picked, and every bad input."""

from __future__ import annotations

import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core import load_model
from attention_core.models.word_pieces import shown_attention
from attention_core.readings.minimal_pairs import compare
from attention_core.story.text import read_sentence, tokenize
from tests.bad_inputs import BAD_INPUTS
from tests.conftest import assert_clean, figure_of, open_link, values
from ui.pairs.view import PAIR_TOKENS, PAIRS

HER, HIM = PAIRS["عائشة / أنس (her or him)"]


def _grid_panels(figure: dict, n: int) -> list[torch.Tensor]:
    """The three n × n panels (sentence A, sentence B, B − A) of a one-row heatmap_grid, read off its traces."""
    weights, signed = values(figure, 0), values(figure, 1)
    (_, left_a), (_, left_b), (_, left_d) = [origin[1:] for origin in figure["layout"]["meta"]["origins"]]
    return [
        torch.tensor(weights[:n, left_a : left_a + n]),
        torch.tensor(weights[:n, left_b : left_b + n]),
        torch.tensor(signed[:n, left_d : left_d + n]),
    ]


def test_a_shared_link_opens_both_sentences_and_every_figure_is_the_models() -> None:
    at = open_link("pairs", pairs_sentence=HER, pairs_sentence_b=HIM, pairs_head="L3 H3")
    assert_clean(at)
    assert at.text_input(key="pairs_sentence").value == HER and at.text_input(key="pairs_sentence_b").value == HIM
    assert at.selectbox(key="pairs_head").value == "L3 H3"
    model = load_model()
    a, b = model.analyze(tokenize(HER)), model.analyze(tokenize(HIM))
    pair = compare(a.weights, a.labels, b.weights, b.labels)
    assert torch.allclose(torch.tensor(values(figure_of(at, "pairs_change"))), pair.head_change, atol=1e-5)
    picked = figure_of(at, "pairs_picked")
    assert picked["layout"]["meta"]["panels"] == ["sentence A", "sentence B", "B − A"]
    was, now, difference = _grid_panels(picked, len(pair.alignment.labels))
    assert torch.allclose(was, a.weights[2, 2], atol=1e-5) and torch.allclose(now, b.weights[2, 2], atol=1e-5)
    assert torch.allclose(difference, b.weights[2, 2] - a.weights[2, 2], atol=1e-5)  # nothing left out: all aligned
    table = at.dataframe[0].value.set_index("word")
    assert table["in A"].idxmax() == "عنها" and table["in B"].idxmax() == "عنه"
    assert table.loc["عنها", "in A"] == pytest.approx(dict(model.fill_mask(HER, k=5))["عنها"], abs=1e-6)
    assert any("First guess in A: \u2067عنها\u2069 (0.74); in B: \u2067عنه\u2069 (0.92)" in c.value for c in at.caption)


def test_the_page_starts_on_the_head_that_changed_most_and_another_can_be_picked() -> None:
    a_text, b_text = PAIRS["يحب / لا يحب (a word added)"]
    at = open_link("pairs", pairs_sentence=a_text, pairs_sentence_b=b_text)
    assert_clean(at)
    assert at.selectbox(key="pairs_head").value == "L2 H4"
    assert any("Left out of the difference" in c.value and "لا" in c.value for c in at.caption)
    assert figure_of(at, "pairs_picked")["layout"]["meta"]["cols"] == ["[CLS]", "إن", "الله", "يحب", "[MASK]"]
    at.selectbox(key="pairs_head").set_value("L1 H1").run()
    assert_clean(at)
    model = load_model()
    a, b = model.analyze(tokenize(a_text)), model.analyze(tokenize(b_text))
    keep_b = [0, 1, 2, 4, 5]  # [CLS] إن الله (لا) يحب [MASK]
    expected = b.weights[0, 0][keep_b][:, keep_b] - a.weights[0, 0]
    _, _, difference = _grid_panels(figure_of(at, "pairs_picked"), 5)
    assert torch.allclose(difference, expected, atol=1e-5)


def test_a_built_in_pair_fills_both_boxes_and_english_runs_on_minilm_with_whole_words() -> None:
    at = open_link("pairs", pairs_sentence=HER, pairs_sentence_b=HIM)
    at.pills(key="pairs_example").set_value("it: too tired / too wide").run()
    assert_clean(at)
    tired, wide = PAIRS["it: too tired / too wide"]
    assert at.text_input(key="pairs_sentence").value == tired and at.text_input(key="pairs_sentence_b").value == wide
    assert any("Using MiniLM-L6" in c.value for c in at.sidebar.caption)
    assert figure_of(at, "pairs_picked")["layout"]["meta"]["cols"][-2:] == ["tired / wide", "[SEP]"]
    assert len(values(figure_of(at, "pairs_change"))) == 6  # 6 layers × 12 heads
    assert not at.dataframe  # MiniLM makes no guesses
    at.toggle(key="pairs_special").set_value(False).run()  # [CLS] and [SEP] hidden: still aligned, still clean
    assert_clean(at)
    assert "[SEP]" not in figure_of(at, "pairs_picked")["layout"]["meta"]["cols"]


def test_the_first_visit_opens_the_first_built_in_pair() -> None:
    at = open_link(
        "pairs",
    )
    assert_clean(at)
    assert (at.text_input(key="pairs_sentence").value, at.text_input(key="pairs_sentence_b").value) == next(
        iter(PAIRS.values())
    )


@pytest.mark.parametrize(
    ("a", "b", "says"),
    [
        ("", HIM, "Sentence A is empty"),
        (HER, "   ", "Sentence B is empty"),
        (HER, "The cat sat on the mat", "Sentence A is in Arabic script and sentence B is not"),
        ("cat dog", "sun moon rain", "share no word"),
        (HER, HER, "The two sentences are the same"),
        (HER, "عن أنس رضي الله عنه", "Put a [MASK] in both sentences"),
    ],
)
def test_bad_pairs_get_a_clear_message(a: str, b: str, says: str) -> None:
    at = open_link("pairs", pairs_sentence=a, pairs_sentence_b=b)
    assert not at.exception, [e.value for e in at.exception]
    assert any(says in m.value for m in (*at.info, *at.warning)), [m.value for m in (*at.info, *at.warning)]


def test_a_long_sentence_is_cut_with_a_notice() -> None:
    long = " ".join(["the cat sat on the mat"] * 20)
    at = open_link("pairs", pairs_sentence=long, pairs_sentence_b=long.replace("mat", "rug", 1))
    assert_clean(at)
    assert any(f"only the first {PAIR_TOKENS} are compared" in w.value for w in at.warning)
    assert len(figure_of(at, "pairs_picked")["layout"]["meta"]["cols"]) == PAIR_TOKENS + 2  # [CLS] … [SEP]


@pytest.mark.parametrize("model", ["automatic", "Arabic"])  # automatic: Latin text goes to MiniLM
def test_every_bad_input_in_both_boxes_renders_or_says_why(model: str) -> None:
    at = open_link("pairs", pairs_sentence=HER, pairs_sentence_b=HIM)
    switch = at.radio(key="pairs_model")
    at = switch.set_value(next(option for option in switch.options if option.startswith(model))).run()
    for case, text in BAD_INPUTS.items():
        at.text_input(key="pairs_sentence").input(text)
        at = at.text_input(key="pairs_sentence_b").input(f"{text} x").run()  # one word added
        assert not at.exception, (case, [e.value for e in at.exception])
        if read_sentence(text).is_empty:
            assert any("Sentence A is empty" in i.value for i in at.info), case
        for message in (*at.warning, *at.caption, *at.markdown):
            assert "<img" not in message.value and "<script" not in message.value, (case, message.value)


def test_shown_attention_drawn_on_the_page_is_what_the_sidebar_asks() -> None:
    """The Arabic model with [CLS] hidden: the maps are renormalised over the words, as on Multi-head."""
    at = open_link("pairs", pairs_sentence=HER, pairs_sentence_b=HIM, pairs_special="false")
    assert_clean(at)
    model = load_model()
    a = model.analyze(tokenize(HER))
    shown = shown_attention(a.weights, a.labels, a.known, a.pieces, show_special=False)
    was, _, _ = _grid_panels(figure_of(at, "pairs_picked"), len(shown.labels))
    layer, head = (int(x) - 1 for x in at.selectbox(key="pairs_head").value[1:].split(" H"))
    assert torch.allclose(was, shown.weights[layer, head], atol=1e-5)


def test_a_head_of_another_models_shape_gives_way_to_the_most_changed_one() -> None:
    at = open_link(
        "pairs",
    )  # the English pair: MiniLM, 6 × 12 heads
    at.selectbox(key="pairs_head").set_value("L6 H12").run()
    at.pills(key="pairs_example").set_value("عائشة / أنس (her or him)").run()  # the Arabic model: 3 × 4 heads
    assert_clean(at)
    assert at.selectbox(key="pairs_head").value == "L2 H1"
    linked = open_link(
        "pairs", pairs_sentence=HER, pairs_sentence_b=HIM, pairs_head="L6 H12"
    )  # a link naming no such head
    assert_clean(linked)
    assert linked.selectbox(key="pairs_head").value == "L2 H1"


TROPHY = (
    "The trophy didn't fit in the suitcase because it was too big",
    "The trophy didn't fit in the suitcase because it was too small",
)


def _most_changed(a_text: str, b_text: str) -> str:
    """The head whose largest |B − A| on the shared words' rows is the largest, from MiniLM's analyses directly (the
    page draws [CLS] and [SEP] and whole words, as shown_attention does here)."""
    from attention_core.models.pretrained import load_minilm

    model = load_minilm()
    a, b = model.analyze(tokenize(a_text)), model.analyze(tokenize(b_text))
    shown_a, shown_b = (shown_attention(x.weights, x.labels, x.known, x.pieces, show_special=True) for x in (a, b))
    change = compare(shown_a.weights, list(shown_a.labels), shown_b.weights, list(shown_b.labels)).head_change
    flat = int(change.argmax())
    return f"L{flat // change.shape[1] + 1} H{flat % change.shape[1] + 1}"


def _type_pair(at: AppTest, a_text: str, b_text: str) -> AppTest:
    at.text_input(key="pairs_sentence").input(a_text)
    return at.text_input(key="pairs_sentence_b").input(b_text).run()


def test_a_typed_pair_follows_the_head_that_changed_most_until_the_user_picks_one() -> None:
    """Issue 23: a typed pair stayed on the first pair's head (L4 H2) while its own map said another head changed
    most, and a link to it (no head in the URL) opened on that other head."""
    at = open_link("pairs")
    tired, wide = PAIRS["it: too tired / too wide"]
    assert at.selectbox(key="pairs_head").value == _most_changed(tired, wide) == "L4 H2"
    at = _type_pair(at, *TROPHY)
    assert_clean(at)
    followed = at.selectbox(key="pairs_head").value
    assert followed == _most_changed(*TROPHY) != "L4 H2"
    assert f"Changed most: {followed} (" in next(c.value for c in at.caption if "Changed most" in c.value)
    # A link with these sentences and no head (what the address bar holds while the head follows) opens the same view.
    linked = open_link("pairs", pairs_sentence=TROPHY[0], pairs_sentence_b=TROPHY[1])
    assert linked.selectbox(key="pairs_head").value == followed
    # Once the user picks a head, it stays when the sentences change …
    at.selectbox(key="pairs_head").set_value("L1 H3").run()
    at = _type_pair(at, "The dog chased the cat", "The cat chased the dog")
    assert_clean(at)
    assert at.selectbox(key="pairs_head").value == "L1 H3"
    # … and a built-in pair starts afresh, on its own most-changed head.
    at.pills(key="pairs_example").set_value("it: too tired / too wide").run()
    assert at.selectbox(key="pairs_head").value == "L4 H2"
    at = _type_pair(at, *TROPHY)
    assert at.selectbox(key="pairs_head").value == followed


def test_a_link_that_names_a_head_keeps_it_when_a_sentence_is_typed() -> None:
    at = open_link("pairs", pairs_sentence=TROPHY[0], pairs_sentence_b=TROPHY[1], pairs_head="L2 H9")
    assert_clean(at)
    assert at.selectbox(key="pairs_head").value == "L2 H9"
    at = _type_pair(at, "The dog chased the cat", "The cat chased the dog")
    assert at.selectbox(key="pairs_head").value == "L2 H9"
