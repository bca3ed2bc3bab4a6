"""What the layers make of the words (attention_core/readings/layers.py), against independent recomputations: for
MiniLM, Hugging Face's own BERT (its hidden states, pooled over each word's pieces by the tokenizer's word ids);
for the Arabic model, forward hooks on its own layers during its plain forward pass; and all heads knocked out
against a copy whose attention output projections are zero."""

from __future__ import annotations

import copy
from functools import cache

import pytest
import torch
import torch.nn.functional as F

from attention_core import layer_similarity, sentence_similarity
from attention_core.models.interface import AttentionModel
from attention_core.models.pretrained import PretrainedModel, load_minilm, minilm_folder
from attention_core.models.trained import TrainedModel, load_model
from attention_core.readings.layers import cosine_matrix, layer_states
from attention_core.story.text import tokenize

TIRED = "The animal didn't cross the street because it was too tired, unbelievably"
GOLD = "ذهب الله بنورهم ولهم اساور من ذهب"


@cache
def english() -> PretrainedModel:
    return load_minilm()


@cache
def arabic() -> TrainedModel:
    return load_model()


def test_minilms_words_at_every_depth_are_hugging_faces_hidden_states_pooled_over_each_words_pieces() -> None:
    import transformers  # test-only (requirements-dev.txt)

    reference = transformers.AutoModel.from_pretrained(str(minilm_folder()), attn_implementation="eager").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(minilm_folder()))
    words = [t.surface for t in tokenize(TIRED)]
    encoded = tokenizer(words, is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        hidden = reference(**encoded, output_hidden_states=True).hidden_states  # 7 × (1, T, 384)
    word_ids = encoded.word_ids()
    pooled = torch.stack(
        [
            torch.stack([h[0, [p for p, w in enumerate(word_ids) if w == i]].mean(0) for i in range(len(words))])
            for h in hidden[1:]
        ]
    )
    states = layer_states(english(), TIRED)
    assert states.words == tuple(words) and states.states.shape == (7, len(words), 384)
    torch.testing.assert_close(states.states[1:], pooled, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(states.states[0], english().sentence(tokenize(TIRED)).V)  # the Similarity page's V


def my_model() -> TrainedModel:
    """A model of the user's own (the Train page's tiny preset, untrained, on a few lines): the readings take it."""
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.models.vocabulary import build_vocabulary

    vocabulary = build_vocabulary(["the cat sat on the mat", "the dog sat on the rug", "a cat saw a dog"] * 5)
    torch.manual_seed(0)
    network = MaskedLanguageModel.for_vocabulary(preset("tiny", n_layers=2), vocabulary)
    return TrainedModel(network, vocabulary, name="mine", step=0)


@pytest.mark.parametrize(("which", "text"), [("arabic", GOLD), ("mine", "the cat sat on the mat")])
def test_a_trained_models_words_at_every_depth_are_its_layers_outputs_in_its_own_forward_pass(
    which: str, text: str
) -> None:
    model = arabic() if which == "arabic" else my_model()
    _, pieces, _ = model.encode(tokenize(text))
    outputs: list[torch.Tensor] = []
    hooks = [block.register_forward_hook(lambda _m, _i, out: outputs.append(out[0][0])) for block in model.model.blocks]
    try:
        with torch.no_grad():
            model.model(pieces)
    finally:
        for hook in hooks:
            hook.remove()
    states = layer_states(model, text)
    assert states.words == tuple(text.split()) and states.states.shape[0] == model.n_layers + 1
    torch.testing.assert_close(states.states[1:], torch.stack(outputs)[:, 1:], atol=1e-5, rtol=1e-4)  # [CLS] out
    torch.testing.assert_close(states.states[0], model.sentence(tokenize(text)).V)


def _without_attention(model: AttentionModel) -> AttentionModel:
    """A copy whose every attention output projection is zero: only the feed-forward layers move the words."""
    oracle = copy.deepcopy(model)
    with torch.no_grad():
        for layer in range(model.n_layers):
            oracle.attention_block(layer).out.weight.zero_()
    return oracle


@pytest.mark.parametrize("which", ["english", "arabic"])
def test_every_head_knocked_out_is_the_model_with_its_attention_outputs_zeroed(which: str) -> None:
    model, text = (english(), TIRED) if which == "english" else (arabic(), GOLD)
    every_head = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    knocked = layer_states(model, text, knock_out=every_head).states
    oracle = layer_states(_without_attention(model), text).states
    torch.testing.assert_close(knocked, oracle, atol=1e-5, rtol=1e-4)
    assert not torch.allclose(knocked[1:], layer_states(model, text).states[1:], atol=1e-3)
    torch.testing.assert_close(knocked[0], layer_states(model, text).states[0])  # the input is the same


def test_layer_similarity_is_the_cosine_of_every_pair_raw_or_centred_on_the_sentences_mean() -> None:
    states = layer_states(arabic(), GOLD).states
    raw, centred = layer_similarity(arabic(), GOLD), layer_similarity(arabic(), GOLD, centred=True)
    assert raw.shape == centred.shape == (arabic().n_layers + 1, 7, 7)
    for depth in range(len(states)):
        x = states[depth]
        loop = torch.tensor([[float(F.cosine_similarity(a, b, dim=0)) for b in x] for a in x])
        torch.testing.assert_close(raw[depth], loop, atol=1e-5, rtol=0)
        c = x - x.mean(0)
        loop = torch.tensor([[float(a @ b / (a.norm() * b.norm())) for b in c] for a in c])
        torch.testing.assert_close(centred[depth], loop, atol=1e-5, rtol=0)
    assert float(cosine_matrix(torch.zeros(1, 3)).abs().max()) == 0.0  # a zero row resembles nothing


def test_sentence_similarity_is_the_cosine_of_the_mean_word_vectors_at_every_depth() -> None:
    a, b = "the film was great", "the movie was excellent"
    ours = sentence_similarity(english(), a, b)
    mean_a, mean_b = (layer_states(english(), t).states.mean(1) for t in (a, b))
    torch.testing.assert_close(ours, F.cosine_similarity(mean_a, mean_b, dim=-1))
    assert ours.shape == (7,)
    # The article's claim, on MiniLM's last layer: other words with the same meaning end closer than one word
    # that turns the meaning round.
    assert float(ours[-1]) > float(sentence_similarity(english(), a, "the film was terrible")[-1]) + 0.1


@pytest.mark.parametrize("language", ["english", "arabic"])
def test_each_sentence_set_holds_thirty_of_each_and_no_paragraph_names_its_topic(language: str) -> None:
    from attention_core.readings.sets import sentence_sets
    from attention_core.story.text import normalize_word

    sets = sentence_sets(language)
    assert len(sets.paraphrases) >= 30 and len(sets.same_words_other_meaning) >= 30
    assert len(sets.topic_paragraphs) >= 30 and {topic for topic, _ in sets.topic_paragraphs} == set(sets.topics)
    for topic, paragraph in sets.topic_paragraphs:
        words = {normalize_word(t.surface) for t in tokenize(paragraph)}
        stem = normalize_word(topic).removeprefix("ال")  # the Arabic topic without its article
        assert not any(stem in word for word in words), (topic, paragraph)
    for a, b in sets.same_words_other_meaning:  # the same words, give or take a negation or a case ending
        words_a, words_b = set(a.split()), set(b.split())
        assert max(len(words_a - words_b), len(words_b - words_a)) <= 3, (a, b)


@pytest.mark.parametrize("which", ["english", "arabic"])
def test_several_knock_outs_in_one_batch_are_each_knock_out_alone(which: str) -> None:
    from attention_core.readings.layers import layer_states_each

    model, text = (english(), TIRED) if which == "english" else (arabic(), GOLD)
    sets = [(), [(0, 1), (1, 0)], [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]]
    for batched, knock_out in zip(layer_states_each(model, text, sets), sets, strict=True):
        torch.testing.assert_close(
            batched.states, layer_states(model, text, knock_out=knock_out).states, atol=2e-5, rtol=1e-4
        )


def test_the_pages_shortcuts_equal_the_matrices_they_stand_for() -> None:
    """The mean cosine of two words from unit vectors, and the closest and farthest pair by argmax, against the
    full (n, n) matrices they avoid building (and a listing of every pair)."""
    from attention_core.figures.layers import extreme_pairs, mean_cosine_of_two, off_diagonal_mean

    vectors = torch.randn(4, 9, 16, generator=torch.Generator().manual_seed(0))
    vectors[:, 3] = 0  # an unknown word's zero row
    torch.testing.assert_close(mean_cosine_of_two(vectors), off_diagonal_mean(cosine_matrix(vectors)))
    similarity = cosine_matrix(vectors)[2]
    pairs = [(i, j) for i in range(9) for j in range(i + 1, 9)]
    values = [float(similarity[i, j]) for i, j in pairs]
    assert extreme_pairs(similarity) == (pairs[values.index(max(values))], pairs[values.index(min(values))])
