"""Trainable attention's core: the normalised input, defaults that teach, and captions true for every state."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from attention_core.models.pretrained import ModelNotInstalledError, load_minilm
from attention_core.models.trained import load_model
from attention_core.story.attention import attend_heads, normalise, random_projections, similarity
from attention_core.story.text import MAX_TOKENS, read_sentence
from attention_core.story.trainable import (
    TrainableSettings,
    head_columns,
    head_columns_text,
    scores_text,
    sharpness,
    trainable_heads,
)

ENGLISH, ARABIC = "The cat is on the mat", "ذهب الطالب إلى المدرسة"


@pytest.fixture(scope="module")
def sentences() -> dict[str, torch.Tensor]:
    """V of the default English sentence (MiniLM's vectors, as the page's automatic source picks) and of an Arabic
    one (the shipped model's)."""
    try:
        english = load_minilm()
    except ModelNotInstalledError:
        pytest.skip("MiniLM is not installed")
    out = {}
    for name, model, text in [("english", english, ENGLISH), ("arabic", load_model(), ARABIC)]:
        out[name] = model.sentence(list(read_sentence(text, MAX_TOKENS).tokens)).V
    return out


def test_normalise_is_torch_layer_norm_without_gain() -> None:
    V = torch.randn(5, 12) * 3 + 1
    oracle = torch.nn.LayerNorm(12, elementwise_affine=False)(V)
    assert torch.allclose(normalise(V), oracle, atol=1e-6)
    assert torch.allclose(normalise(V).norm(dim=-1), torch.full((5,), math.sqrt(12)), atol=1e-3)


@pytest.mark.parametrize("name", ["english", "arabic"])
@pytest.mark.parametrize("n_heads", [1, 8])
def test_defaults_teach_rows_differ_and_low_temperature_sharpens(
    sentences: dict[str, torch.Tensor], name: str, n_heads: int
) -> None:
    V = sentences[name]
    n = V.shape[0]
    warm = trainable_heads(V, TrainableSettings(n_heads=n_heads))
    cold = sharpness(trainable_heads(V, TrainableSettings(n_heads=n_heads, temperature=0.1)))
    measured = sharpness(warm)
    assert measured.score_std > 0.5  # scores of order one (MiniLM before: 0.004)
    assert measured.mean_max_weight > 1.5 / n  # rows are not flat (before: 1/n in every row)
    assert cold.mean_max_weight > 0.75 and cold.mean_max_weight > measured.mean_max_weight + 0.3
    rows = warm[0].weights
    assert float((rows[:, None, :] - rows[None, :, :]).abs().amax()) > 0.1  # rows differ visibly


def test_raw_minilm_vectors_give_flat_attention_which_is_why_v_is_normalised(sentences: dict) -> None:
    V = sentences["english"]
    raw = sharpness(trainable_heads(V, TrainableSettings(normalise=False, n_heads=8, temperature=0.1)))
    assert raw.score_std < 0.1 and raw.mean_max_weight < 1 / V.shape[0] + 0.02


def test_the_seed_draws_the_weights() -> None:
    V = torch.randn(4, 16)
    same = [trainable_heads(V, TrainableSettings(seed=3))[0].weights for _ in range(2)]
    assert torch.equal(*same)
    assert not torch.equal(same[0], trainable_heads(V, TrainableSettings(seed=4))[0].weights)
    assert torch.equal(random_projections(16, 3)[0], random_projections(16, 3)[0])


@pytest.mark.parametrize(("d", "n_heads"), [(384, 8), (128, 4), (64, 1)])
def test_head_columns_are_the_columns_each_head_reads(d: int, n_heads: int) -> None:
    spans = head_columns(d, n_heads)
    assert spans[0][0] == 1 and spans[-1][1] == d
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))
    V = torch.randn(3, d)
    for (first, last), head in zip(spans, attend_heads(V, n_heads), strict=True):  # identity W's: V1 = V's slice
        assert torch.equal(head.V1, V[:, first - 1 : last])


def test_head_columns_text_counts_from_one() -> None:
    text = "Head 1 uses columns 1–48 of each W, head 2 columns 49–96, …, head 8 columns 337–384"
    assert head_columns_text(384, 8) == text
    assert head_columns_text(384, 2) == "Head 1 uses columns 1–192 of each W, head 2 columns 193–384"


STATES = list(itertools.product([False, True], [False, True], [1, 2], [1.0, 0.5]))


@pytest.mark.parametrize(("normalised", "scaled", "n_heads", "temperature"), STATES)
def test_scores_caption_with_w1_w2_off_says_how_they_differ_from_raw_vvt(
    normalised: bool, scaled: bool, n_heads: int, temperature: float
) -> None:
    V = torch.randn(5, 16) * 2
    settings = TrainableSettings(False, False, True, normalised, scaled, True, temperature, n_heads)
    record = trainable_heads(V, settings)[0]
    text = scores_text(settings, 16, record)
    d_h = 16 // n_heads
    # The oracle: what the caption's own words say the scores are, computed from the Similarity page's V·Vᵀ.
    x = torch.nn.functional.layer_norm(V, (16,)) if "normalised V̂" in text else V
    x = x[:, :d_h] if f"this head's {d_h} columns" in text else x
    expected = similarity(x) / (math.sqrt(d_h) if f"divided by √{d_h}" in text else 1) / temperature
    if "temperature" not in text:
        assert temperature == 1.0
    assert torch.allclose(record.scores, expected, atol=1e-4)
    assert ("exactly the raw V·Vᵀ" in text) == (not normalised and not scaled and n_heads == 1 and temperature == 1)
    assert f"from {float(record.scores.min()):.2f} to {float(record.scores.max()):.2f}" in text


def test_scores_caption_names_the_identity_when_one_w_is_off() -> None:
    V = torch.randn(4, 8)
    settings = TrainableSettings(use_W1=False, normalise=False)
    text = scores_text(settings, 8, trainable_heads(V, settings)[0])
    assert "W1 is off (the identity), so V1 = V." in text and "V·Vᵀ" not in text
