"""The shipped model through the inference API the app uses: fill the blank, look inside."""

from __future__ import annotations

import pytest
import torch

from attention_core import load_model
from attention_core.models.position_bias import RelativePositionBias, local_prior
from attention_core.story.text import tokenize


def test_shipped_model_fills_formulaic_blanks() -> None:
    model = load_model()
    predictions = model.fill_mask("ان الله على كل شيء [MASK]")  # "God has power over all things" (2:20 …)
    assert predictions[0][0] == "قدير"
    assert len(predictions) == 5 and all(0 <= p <= 1 for _, p in predictions)
    assert [p for _, p in predictions] == sorted((p for _, p in predictions), reverse=True)
    assert model.fill_mask("بسم الله [MASK] الرحيم", k=3)[0][0] == "الرحمن"


def test_fill_mask_needs_a_blank() -> None:
    model = load_model()
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        model.fill_mask("بسم الله الرحمن الرحيم")


def test_analysis_has_every_layer_and_head() -> None:
    model = load_model()
    analysis = model.analyze("الحمد لله رب العالمين")
    config = model.model.config
    assert analysis.labels == ["[CLS]", "الحمد", "لله", "رب", "العالمين"]
    assert analysis.V.shape == (5, config.d_model)
    assert analysis.weights.shape == (config.n_layers, config.n_heads, 5, 5)
    assert torch.allclose(analysis.weights.sum(-1), torch.ones(config.n_layers, config.n_heads, 5), atol=1e-5)
    assert all(analysis.known)


def test_mask_marker_survives_tokenisation() -> None:
    assert [t.surface for t in tokenize("the [MASK] sat.")] == ["the", "[MASK]", "sat", "."]
    assert [t.norm for t in tokenize("[MASK][MASK]")] == ["[MASK]", "[MASK]"]


def test_local_prior_points_heads_at_neighbours() -> None:
    prior = local_prior(4, 8)
    offsets = list(range(-8, 9))
    assert [offsets[int(prior[h].argmax())] for h in range(4)] == [-1, 1, -2, 2]
    bias = RelativePositionBias(4, 8, local_init=True)(5)  # (1, nh, T, T)
    assert bias.shape == (1, 4, 5, 5)
    assert int(bias[0, 0, 3].argmax()) == 2 and int(bias[0, 1, 3].argmax()) == 4  # word 3 looks at 2, at 4


def test_head_view_with_trained_projections_equals_the_models_own_weights() -> None:
    from attention_core.models.head_view import head_view
    from attention_core.story.text import tokenize

    model = load_model()
    tokens = tokenize("قل هو الله احد")
    analysis = model.analyze(tokens)
    for layer in range(model.n_layers):
        for head in range(model.n_heads):
            view = head_view(model, tokens, layer, head)
            assert torch.allclose(view.weights, analysis.weights[layer, head], atol=1e-5)
    raw = head_view(model, tokens, 0, 1, use_W1=False, use_W2=False)
    d_h = view.V1.shape[1]
    x = raw.x[:, d_h : 2 * d_h]  # head 2's slice of the layer input
    assert torch.allclose(raw.scores, x @ x.T / d_h**0.5 + raw.bias, atol=1e-5)  # the formula with W1 = W2 = I


def test_analysis_runs_the_layers_as_the_model_does_and_feeds_head_view() -> None:
    from attention_core.models.head_view import head_view

    model = load_model()
    tokens = tokenize("الحمد لله رب العالمين")
    analysis = model.analyze(tokens)
    _, ids, _ = model.encode(tokens)
    with torch.no_grad():
        out = model.model(ids, need_weights=True, predict=False)  # the model's own forward pass
    torch.testing.assert_close(analysis.weights, torch.stack([w[0] for w in out.weights]))
    torch.testing.assert_close(analysis.V, out.V[0])
    given = head_view(model, tokens, 1, 2, use_W2=False, inputs=analysis.inputs)
    recomputed = head_view(model, tokens, 1, 2, use_W2=False)
    torch.testing.assert_close(given.weights, recomputed.weights)
    assert given.tokens == recomputed.tokens


def test_everyday_words_have_learned_vectors_and_an_unknown_one_does_not_dominate() -> None:
    from attention_core.story.attention import similarity

    model = load_model()
    tokens = tokenize("جلس الولد أمام الكمبيوتر في الصباح")
    assert model.known_share(tokens) == 1.0  # الكمبيوتر is in no training text, its pieces are
    assert tokens[3].norm not in model.vocabulary.index and len(model.word_pieces_of(tokens[3])) > 1
    with_unknown = tokenize("ذهب الولد zorp إلى المدرسة")
    words_only = model.sentence(with_unknown, use_position=False)
    assert words_only.known == (True, True, False, True, True)
    # [UNK] has the zero vector: it resembles no word, in dot products and in cosines …
    assert similarity(words_only.V)[2].abs().max() == 0 and similarity(words_only.V, "cosine")[2].abs().max() == 0
    V = model.sentence(with_unknown).V  # … and with positions too: its whole row is zero, its place included
    assert V[2].abs().max() == 0 and V[[0, 1, 3, 4]].abs().min(dim=1).values.max() > 0
    assert similarity(V)[2].abs().max() == 0 and similarity(V, "cosine")[2].abs().max() == 0


def test_guesses_are_the_models_own_softmax_at_the_blank() -> None:
    model = load_model()
    tokens = tokenize("ذلك الكتاب لا [MASK] فيه")
    guesses = model.predict(tokens, k=3)
    _, pieces, _ = model.encode(tokens)
    with torch.no_grad():
        at_blank = torch.zeros(pieces.shape[:2], dtype=torch.bool)
        at_blank[0, 4] = True  # [CLS] ذلك الكتاب لا [MASK]
        logits = model.model(pieces, predict_at=at_blank).logits[0]  # the model's own forward pass and output layer
    # Never an answer: the specials, and '' (a lone tatweel's form, in the shipped vocabulary from before it was a mark)
    never = [i for i, w in enumerate(model.vocabulary.words) if i < model.vocabulary.n_special or not w]
    logits[never] = float("-inf")
    top = torch.topk(torch.softmax(logits, -1), 3)
    assert [w for w, _ in guesses] == [model.vocabulary.shown(int(i)) for i in top.indices]
    torch.testing.assert_close(torch.tensor([p for _, p in guesses]), top.values)
