"""Heads taken apart in the app (AppTest): knock-outs from a click or a shared link, what changed, which heads matter,
the roles map and the river, each figure compared with attention_core computed directly."""

from __future__ import annotations

import pytest
import torch

from attention_core.models.head_importance import head_importance
from attention_core.models.head_roles import ROLES, head_roles
from attention_core.models.knock_out_effects import attention_shift
from attention_core.models.trained import load_model
from attention_core.story.rollout import attention_rollout
from attention_core.story.text import tokenize
from tests.conftest import assert_clean, figure_of, open_link, values

AGREEMENT = "إنه سميع [MASK]"
SENTENCE = "ذهب الطالب إلى المدرسة في الصباح"


def test_a_shared_link_knocks_heads_out_on_fill_the_blank_and_shows_what_changed() -> None:
    at = open_link("fill_blank", fill_blank_sentence=AGREEMENT, fill_blank_knock_out=["L1 H1"])
    assert_clean(at)
    assert at.multiselect(key="fill_blank_knock_out").value == ["L1 H1"]
    model, tokens = load_model(), tokenize(AGREEMENT)
    table = at.dataframe[1].value.set_index("word")
    after = dict(model.predict(tokens, k=50, knock_out=[(0, 0)]))
    before = dict(model.predict(tokens, k=5))
    assert table.loc["عليم", "every head"] == pytest.approx(before["عليم"], abs=1e-6)
    assert table.loc["عليم", "heads knocked out"] == pytest.approx(after["عليم"], abs=1e-6)
    assert table["heads knocked out"].idxmax() == max(after, key=after.__getitem__) == "السميع"
    # The blank's rows: every head | knocked out | difference, each the model's own analysis.
    whole, knocked = model.analyze(tokens), model.analyze(tokens, knock_out=[(0, 0)])
    blank = 3  # [CLS] إنه سميع [MASK]
    was, now = whole.weights[:, :, blank].reshape(12, -1), knocked.weights[:, :, blank].reshape(12, -1)
    assert torch.allclose(torch.tensor(values(figure_of(at, "fill_blank_knock_out_weights_every"))), was, atol=1e-5)
    assert torch.allclose(torch.tensor(values(figure_of(at, "fill_blank_knock_out_weights_heads"))), now, atol=1e-5)
    difference = torch.tensor(values(figure_of(at, "fill_blank_knock_out_signed_after")))
    assert torch.allclose(difference, now - was, atol=1e-5)
    assert torch.allclose(difference[:4], torch.zeros(4, 4), atol=1e-6)  # layer 1 attends as before


def test_rank_every_head_maps_head_importance_and_keeps_it_until_the_sentence_changes() -> None:
    at = open_link("fill_blank", fill_blank_sentence=AGREEMENT)
    at.button(key="fill_blank_rank").click().run()
    assert_clean(at)
    expected = head_importance(load_model(), tokenize(AGREEMENT)).scores
    assert torch.allclose(torch.tensor(values(figure_of(at, "fill_blank_importance"))), expected, atol=1e-5)
    assert any("Most important: L1 H1" in c.value for c in at.caption)
    at.slider(key="fill_blank_k").set_value(3).run()  # another control: the ranking stays
    assert figure_of(at, "fill_blank_importance")
    at.text_input(key="fill_blank_sentence").input("ذلك الكتاب لا [MASK] فيه").run()  # a new sentence: it goes
    assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith("-fill_blank_importance")]


def test_the_river_is_each_layers_mean_or_the_rollout_of_the_blanks_row() -> None:
    at = open_link("fill_blank", fill_blank_sentence=AGREEMENT)
    weights = load_model().analyze(tokenize(AGREEMENT)).weights
    river = torch.tensor(values(figure_of(at, "fill_blank_river")))
    assert torch.allclose(river, weights.mean(1)[:, 3], atol=1e-5)
    at.radio(key="fill_blank_flow").set_value("all layers combined (rollout)").run()
    river = torch.tensor(values(figure_of(at, "fill_blank_river")))
    assert torch.allclose(river, attention_rollout(weights)[:, 3], atol=1e-5)
    assert any("not the whole explanation" in c.value for c in at.caption)


def test_multi_head_knock_out_view_maps_how_far_each_head_moved() -> None:
    at = open_link(
        "heads",
        heads_sentence=SENTENCE,
        heads_model="Arabic: classical + modern model (shipped)",
        heads_view="Knock heads out",
    )
    assert_clean(at)
    assert any("Pick one or more heads" in i.value for i in at.info)
    at.multiselect(key="heads_knock_out").set_value(["L2 H1"]).run()
    assert_clean(at)
    model, tokens = load_model(), tokenize(SENTENCE)
    shift = attention_shift(model.analyze(tokens).weights, model.analyze(tokens, knock_out=[(1, 0)]).weights)
    drawn = torch.tensor(values(figure_of(at, "heads_shift")))
    assert torch.allclose(drawn, shift, atol=1e-5) and float(drawn[:2].abs().max()) == 0.0
    texts = figure_of(at, "heads_shift")["data"][0]["text"]
    assert texts[1][0] == "✕ 0"  # the knocked-out head is marked; its own attention is computed before it goes
    # Issue 23: every head that moved writes a number that is not 0 (each with its own two significant digits).
    moved = [
        (text, float(value))
        for row, numbers in zip(texts, shift, strict=True)
        for text, value in zip(row, numbers, strict=True)
    ]
    assert all((float(text.removeprefix("✕ ")) > 0) == (value > 0) for text, value in moved), moved
    most = int(shift[2].argmax())
    assert at.selectbox(key="heads_knock_out_view").value == f"L3 H{most + 1}"  # starts on the head that moved most


def test_roles_map_shows_each_heads_role_and_a_legend() -> None:
    at = open_link("heads", heads_sentence=SENTENCE)
    analysis = load_model().analyze(tokenize(SENTENCE))
    roles = head_roles(analysis.weights, analysis.special)
    figure = figure_of(at, "heads_roles")
    expected = [[ROLES.index(role) for role in layer] for layer in roles.roles]
    assert values(figure).tolist() == expected
    assert figure["data"][0]["colorbar"]["ticktext"] == list(ROLES)
    assert figure["data"][0]["text"][0][0].startswith("prev ")  # layer 1, head 1 reads the word before


def test_heads_of_another_model_are_dropped_when_the_model_changes_and_a_bad_link_changes_nothing() -> None:
    at = open_link("heads", heads_view="Knock heads out", heads_knock_out=["L6 H12", "L1 H1"])  # English: MiniLM
    assert_clean(at)
    if at.multiselect(key="heads_knock_out").value != ["L6 H12", "L1 H1"]:
        pytest.skip("MiniLM is not installed: the English sentence runs on the Arabic model")
    at.radio(key="heads_model").set_value("Arabic: classical + modern model (shipped)").run()
    assert_clean(at)
    assert at.multiselect(key="heads_knock_out").value == ["L1 H1"]  # the Arabic model has no layer 6
    bad = open_link("heads", heads_sentence=SENTENCE, heads_view="Knock heads out", heads_knock_out=["L9 H9", "x"])
    assert_clean(bad)
    assert bad.multiselect(key="heads_knock_out").value == []


def test_the_ranking_says_where_the_knocked_out_heads_stand() -> None:
    """The pronoun lesson asks the class to press Rank every head and find L4 H2 34th of 72."""
    at = open_link(
        "heads",
        heads_sentence="The animal didn't cross the street because it was too tired",
        heads_view="Knock heads out",
        heads_knock_out=["L4 H2"],
    )
    if at.multiselect(key="heads_knock_out").value != ["L4 H2"]:
        pytest.skip("MiniLM is not installed: the English sentence runs on the Arabic model")
    at.button(key="heads_rank").click().run()
    assert_clean(at)
    assert any("Knocked out above: L4 H2 ranks 34th of 72" in c.value for c in at.caption)
    # Issue 23: layers 1–5 read 0.00 under "(0: nothing changed)"; as angles every head writes a number above 0.
    texts = [text for row in figure_of(at, "heads_importance")["data"][0]["text"] for text in row]
    assert all(float(text.removeprefix("✕ ")) > 0 for text in texts), texts
    caption = next(c.value for c in at.caption if "Most important" in c.value)
    from attention_core.models.pretrained import load_minilm

    top = head_importance(load_minilm(), tokenize("The animal didn't cross the street because it was too tired"))
    assert "(0°: nothing changed)" in caption and f"Most important: L6 H12 ({float(top.scores[5, 11]):.1f}°)" in caption


def test_multi_head_shows_the_guesses_before_and_after_for_a_masked_word_model() -> None:
    at = open_link(
        "heads",
        heads_sentence="إنه هو السميع [MASK]",
        heads_model="Arabic: classical + modern model (shipped)",
        heads_view="Knock heads out",
        heads_knock_out=["L1 H1"],
    )
    assert_clean(at)
    table = at.dataframe[0].value.set_index("word")
    assert table.loc["العليم", "every head"] == pytest.approx(0.716, abs=1e-3)
    assert table.loc["العليم", "heads knocked out"] == pytest.approx(0.157, abs=1e-3)


def test_the_later_head_follows_the_one_that_moved_most_as_the_knock_out_changes_until_one_is_picked() -> None:
    """As Minimal pairs' head (issue 23): the view stayed on the head that moved most under the first knock-out."""
    at = open_link(
        "heads",
        heads_sentence=SENTENCE,
        heads_model="Arabic: classical + modern model (shipped)",
        heads_view="Knock heads out",
        heads_knock_out=["L2 H1"],
    )
    model, tokens = load_model(), tokenize(SENTENCE)
    whole = model.analyze(tokens).weights

    def moved_most(knocked: list[tuple[int, int]]) -> str:
        shift = attention_shift(whole, model.analyze(tokens, knock_out=knocked).weights)
        first = min(layer for layer, _ in knocked) + 1
        flat = int(shift[first:].flatten().argmax())
        return f"L{first + flat // 4 + 1} H{flat % 4 + 1}"

    assert at.selectbox(key="heads_knock_out_view").value == moved_most([(1, 0)])
    at.multiselect(key="heads_knock_out").set_value(["L1 H1"]).run()
    assert_clean(at)
    assert moved_most([(0, 0)]) != moved_most([(1, 0)])  # the case at hand: another head moves most
    assert at.selectbox(key="heads_knock_out_view").value == moved_most([(0, 0)])
    at.selectbox(key="heads_knock_out_view").set_value("L3 H4").run()
    at.multiselect(key="heads_knock_out").set_value(["L1 H1", "L1 H2"]).run()
    assert at.selectbox(key="heads_knock_out_view").value == "L3 H4"
