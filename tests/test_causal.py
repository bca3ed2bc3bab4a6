"""Can words look ahead? The causal mask on Similarity and Trainable attention: weights above the diagonal exactly 0,
against torch's own causal attention, and the switch in the app and its URL (issue 15, point 4)."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F
from streamlit.testing.v1 import AppTest

from attention_core.story.attention import attend, attend_heads, causal_mask
from attention_core.story.trainable import TrainableSettings, trainable_heads
from tests.conftest import APP, ARABIC, assert_clean, figure_of, values


def test_causal_attention_is_torchs_causal_attention_with_exact_zeros_above_the_diagonal() -> None:
    V = torch.randn(6, 8, generator=torch.Generator().manual_seed(0))
    ours = attend(V, mask=causal_mask(6))
    expected = F.scaled_dot_product_attention(V[None], V[None], V[None], is_causal=True)[0]
    assert torch.allclose(ours.output, expected, atol=1e-5)
    above = torch.ones(6, 6, dtype=torch.bool).triu(1)
    assert torch.equal(ours.weights[above], torch.zeros(int(above.sum())))
    assert torch.allclose(ours.weights.sum(-1), torch.ones(6))
    assert ours.weights[0, 0] == 1.0  # the first word has only itself to look at
    raw = attend(V, softmax=False, scale=False, mask=causal_mask(6))  # no softmax: the similarities, future at 0
    assert torch.equal(raw.weights[above], torch.zeros(int(above.sum())))
    assert torch.allclose(raw.weights[~above], (V @ V.T)[~above])


def test_every_head_of_trainable_attention_is_causal_when_asked() -> None:
    V = torch.randn(5, 16, generator=torch.Generator().manual_seed(1))
    heads = trainable_heads(V, TrainableSettings(n_heads=4, causal=True))
    for head in heads:
        assert torch.equal(head.weights.triu(1), torch.zeros(5, 5))
        assert torch.isinf(head.scores.triu(1)[torch.ones(5, 5, dtype=torch.bool).triu(1)]).all()
    plain = attend_heads(V, 4, mask=None)
    assert not torch.equal(plain[0].weights.triu(1), torch.zeros(5, 5))


def _open(page: str, **query: str) -> AppTest:
    at = AppTest.from_file(APP.replace("app.py", f"pages/{page}.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_the_switch_masks_the_future_on_similarity_from_a_link_in_arabic() -> None:
    at = _open("similarity", similarity_sentence=ARABIC, similarity_causal="true", similarity_softmax="true")
    assert_clean(at)
    assert at.toggle(key="similarity_causal").value is True
    assert torch.tensor(values(figure_of(at, "similarity_A"))).triu(1).abs().max() == 0
    assert any("must not see it" in m.value for m in at.markdown)
    at.toggle(key="similarity_causal").set_value(False).run()
    assert torch.tensor(values(figure_of(at, "similarity_A"))).triu(1).abs().max() > 0


def test_trainable_scores_above_the_diagonal_are_blank_and_weights_zero() -> None:
    at = _open("trainable", trainable_sentence="The cat sat on the mat", trainable_causal="true")
    assert_clean(at)
    scores = torch.tensor(values(figure_of(at, "trainable_scores")))
    assert torch.isnan(scores.triu(1)[torch.ones_like(scores, dtype=torch.bool).triu(1)]).all()
    assert torch.isfinite(scores.tril()).all()
    weights = torch.tensor(values(figure_of(at, "trainable_weights")))
    assert weights.triu(1).abs().max() == 0 and torch.allclose(weights.sum(-1), torch.ones(len(weights)))
    assert any("blank: masked" in m.value for m in at.markdown)


def test_in_a_causal_model_the_future_changes_nothing_in_the_past() -> None:
    """With the future hidden, every word's attention and final vector are the same whatever follows it: the same
    sentence cut after word i, or with other words after it, gives the same rows 0…i; and every weight above the
    diagonal is exactly 0. Without the mask the words after do change the rows before them."""
    from attention_core.models.pretrained import ModelNotInstalledError, load_minilm
    from attention_core.models.trained import load_model
    from attention_core.story.text import tokenize

    cases = [(load_model(), "ذلك الكتاب لا ريب فيه", "ذلك الكتاب لا شك عندنا")]
    with contextlib.suppress(ModelNotInstalledError):  # the English wheel is optional; CI installs it
        cases.append((load_minilm(), "the animal was too tired", "the animal was very wide"))
    for model, text, other in cases:
        tokens, changed = tokenize(text), tokenize(other)
        causal = model.analyze(tokens, causal=True)
        n = len(causal.tokens)
        above = torch.ones(n, n, dtype=torch.bool).triu(1)
        assert torch.equal(causal.weights[..., above], torch.zeros_like(causal.weights[..., above]))
        past = 1 + 3  # [CLS] and the three words both sentences share
        for variant in (tokens[:3], changed):
            again = model.analyze(variant, causal=True)
            assert torch.allclose(again.final[:past], causal.final[:past], atol=1e-5), model.name
            assert torch.allclose(again.weights[:, :, :past, :past], causal.weights[:, :, :past, :past], atol=1e-6)
        whole, whole_changed = model.analyze(tokens), model.analyze(changed)
        assert not torch.allclose(whole.final[:past], whole_changed.final[:past], atol=1e-3)


def test_fill_the_blank_shows_the_guesses_reading_only_the_words_before_from_a_link() -> None:
    at = _open("fill_blank", fill_blank_sentence="ذلك الكتاب لا [MASK] فيه", fill_blank_causal="true")
    assert_clean(at)
    table = at.dataframe[1].value.set_index("word")
    assert table.loc["ريب", "both sides"] > 0.9 and table.loc["ريب", "only the words before"] < 0.05
    assert any("even when the blank is the last word" in c.value for c in at.caption)
    at.toggle(key="fill_blank_causal").set_value(False).run()
    assert len(at.dataframe) == 1  # switched off: the page's own guesses only
