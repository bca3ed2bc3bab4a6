"""The masked-language-model encoder: shapes, weights per layer, padding, presets."""

from __future__ import annotations

import pytest
import torch

from attention_core import MaskedLanguageModel, preset
from attention_core.models.multihead import MultiHeadAttention


def test_forward_returns_logits_and_every_layers_weights() -> None:
    config = preset("tiny", vocab_size=50, n_layers=2)
    model = MaskedLanguageModel(config).eval()
    ids = torch.randint(4, 50, (3, 9))
    ids[1, 6:] = config.pad_id
    out = model(ids, need_weights=True)
    assert out.logits.shape == (3, 9, 50)
    assert out.V.shape == out.hidden.shape == (3, 9, config.d_model)
    assert len(out.weights) == 2 and out.weights[0].shape == (3, config.n_heads, 9, 9)
    assert torch.allclose(out.weights[1].sum(-1), torch.ones(3, config.n_heads, 9), atol=1e-5)
    assert torch.all(out.weights[0][1, :, :, 6:] == 0)  # nobody attends to padding
    fast = model(ids, need_weights=False)
    assert fast.weights is None and torch.allclose(fast.logits, out.logits, atol=1e-5)


def test_predict_at_limits_the_output_layer() -> None:
    model = MaskedLanguageModel(preset("tiny", vocab_size=30)).eval()
    ids = torch.randint(4, 30, (2, 5))
    where = torch.zeros(2, 5, dtype=torch.bool)
    where[0, 1] = where[1, 3] = True
    full = model(ids).logits
    assert torch.allclose(model(ids, predict_at=where).logits, full[where], atol=1e-5)


def test_padding_does_not_change_the_real_words() -> None:
    config = preset("tiny", vocab_size=40)
    model = MaskedLanguageModel(config).eval()
    ids = torch.randint(4, 40, (1, 6))
    padded = torch.cat([ids, torch.full((1, 4), config.pad_id)], dim=1)
    assert torch.allclose(model(ids).logits, model(padded).logits[:, :6], atol=1e-5)


def test_presets_and_bad_configs() -> None:
    assert preset("small").d_model == 128
    with pytest.raises(ValueError, match="unknown preset"):
        preset("huge")
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)
    model = MaskedLanguageModel(preset("tiny", vocab_size=10, max_len=4))
    with pytest.raises(ValueError, match="max_len"):
        model(torch.ones(1, 5, dtype=torch.long))
