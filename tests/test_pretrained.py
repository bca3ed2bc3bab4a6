"""MiniLM read by our own attention code: parity with Hugging Face's eager BERT, word-piece pooling, the W1
switch, and the heads the English lessons rely on."""

from __future__ import annotations

import math
import subprocess
import sys
from functools import cache

import pytest
import torch

from attention_core.models.head_view import head_view
from attention_core.models.pretrained import PretrainedModel, load_minilm, minilm_folder
from attention_core.models.word_pieces import WordPieces, pool_to_words, shown_attention, without_special
from attention_core.story.attention import similarity
from attention_core.story.text import tokenize

TIRED = "The animal didn't cross the street because it was too tired"


@cache
def english() -> PretrainedModel:
    return load_minilm()


def test_matches_hugging_face_eager_bert_on_every_hidden_state_and_attention_map() -> None:
    import transformers  # a test-only dependency (requirements-dev.txt): the app never imports it

    reference = transformers.AutoModel.from_pretrained(str(minilm_folder()), attn_implementation="eager").eval()
    for text in (TIRED, "Unbelievably, the transformer's heads attend to [CLS] most of the time."):
        _, ids, _ = english().encode(tokenize(text))
        with torch.no_grad():
            theirs = reference(ids, output_attentions=True, output_hidden_states=True)
            ours = english().model(ids, need_weights=True)
        assert len(ours.hidden_states) == len(theirs.hidden_states) == 7
        hidden = max(float((a - b).abs().max()) for a, b in zip(ours.hidden_states, theirs.hidden_states, strict=True))
        maps = max(float((a - b).abs().max()) for a, b in zip(ours.weights, theirs.attentions, strict=True))
        print(f"{text[:20]}…: hidden states max |diff| {hidden:.1e}, attention {maps:.1e}")
        assert hidden <= 1e-5 and maps <= 1e-5


def test_the_tokenizer_reads_whole_typed_words_as_pieces() -> None:
    pieces = english().word_pieces(tokenize(TIRED))
    assert pieces.words == (
        "[CLS]",
        "The",
        "animal",
        "didn't",
        "cross",
        "the",
        "street",
        "because",
        "it",
        "was",
        "too",
        "tired",
        "[SEP]",
    )
    assert pieces.word_of.count(3) == 3  # didn ' t
    assert pieces.special == (True,) + (False,) * 11 + (True,)
    assert all(pieces.known)
    analysis = english().analyze(tokenize(TIRED))
    assert analysis.weights.shape == (6, 12, 15, 15)
    assert [t.surface for t in analysis.tokens][3:6] == ["didn", "'", "t"]


def test_pooled_rows_sum_to_one_and_match_a_loop_over_pieces() -> None:
    analysis = english().analyze(tokenize("Unbelievably, tokenisation splits words into pieces"))
    pieces = analysis.pieces
    assert pieces.splits_words
    pooled = pool_to_words(analysis.weights, pieces)
    m = len(pieces.words)
    assert pooled.shape == (6, 12, m, m)
    assert torch.allclose(pooled.sum(-1), torch.ones(6, 12, m), atol=1e-5)
    # the oracle: to a word = sum over its pieces' columns, from a word = mean over its pieces' rows
    A = analysis.weights[2, 5]
    for w_from in range(m):
        rows = [p for p, w in enumerate(pieces.word_of) if w == w_from]
        for w_to in range(m):
            cols = [p for p, w in enumerate(pieces.word_of) if w == w_to]
            expected = A[rows][:, cols].sum(dim=1).mean()
            assert math.isclose(float(pooled[2, 5, w_from, w_to]), float(expected), abs_tol=1e-6)


def test_pooling_a_sentence_of_single_piece_words_changes_nothing() -> None:
    analysis = english().analyze(tokenize("the cat sat on the mat"))
    assert not analysis.pieces.splits_words
    assert torch.equal(pool_to_words(analysis.weights, analysis.pieces), analysis.weights)


def test_hiding_cls_and_sep_drops_them_and_renormalises_rows() -> None:
    analysis = english().analyze(tokenize(TIRED))
    labels = [t.surface for t in analysis.tokens]
    shown = shown_attention(analysis.weights, labels, analysis.known, analysis.pieces, show_special=False)
    assert "[CLS]" not in shown.labels and "[SEP]" not in shown.labels and len(shown.labels) == 11
    assert torch.allclose(shown.weights.sum(-1), torch.ones(6, 12, 11), atol=1e-5)
    pooled = pool_to_words(analysis.weights, analysis.pieces)[:, :, 1:-1, 1:-1]
    assert torch.allclose(shown.weights, pooled / pooled.sum(-1, keepdim=True), atol=1e-6)
    pieces_view = shown_attention(
        analysis.weights, labels, analysis.known, analysis.pieces, whole_words=False, show_special=False
    )
    assert pieces_view.labels[2:5] == ["didn", "'", "t"] and len(pieces_view.labels) == 13
    special_pieces = tuple(analysis.pieces.special[w] for w in analysis.pieces.word_of)
    assert torch.allclose(without_special(analysis.weights, special_pieces), pieces_view.weights)


def test_switching_w1_to_identity_changes_the_scores_exactly_as_the_formula_says() -> None:
    tokens = tokenize(TIRED)
    on = head_view(english(), tokens, 3, 1)
    off = head_view(english(), tokens, 3, 1, use_W1=False)
    analysis = english().analyze(tokens)
    assert torch.allclose(on.weights, analysis.weights[3, 1], atol=1e-5)  # all on: the model's own head
    attention = english().attention_block(3)
    cols = slice(32, 64)
    V2 = (on.x @ attention.W2.weight.T + attention.W2.bias)[:, cols]
    assert torch.allclose(off.scores, on.x[:, cols] @ V2.T / math.sqrt(32), atol=1e-5)
    assert torch.equal(off.V2, on.V2) and not torch.allclose(off.scores, on.scores)


def test_raw_similarity_of_the_input_embeddings_means_something() -> None:
    sentence = english().sentence(tokenize("cat kitten dog mat rug"), use_position=False)
    unit = sentence.V / sentence.V.norm(dim=1, keepdim=True)
    cosine = unit @ unit.T
    assert cosine[0, 1] > cosine[0, 2] > cosine[0, 3]  # cat–kitten > cat–dog > cat–mat
    assert cosine[3, 4] > cosine[0, 3]  # mat–rug > cat–mat
    positioned = english().sentence(tokenize("unbelievable cat"), use_position=True)
    assert positioned.labels == ["unbelievable", "cat"] and positioned.learned_positions
    pieces = english().sentence(tokenize("tokenisation cat"), whole_words=False)
    assert len(pieces.labels) > 2


def test_a_text_longer_than_512_pieces_is_cut_at_a_whole_word() -> None:
    tokens = tokenize(" ".join(["tokenisations"] * 300))  # 3 pieces a word: 900 pieces
    read = english().words_read(tokens)
    analysis = english().analyze(tokens)
    assert analysis.weights.shape[-1] <= 512 and read < 300
    assert len(analysis.pieces.words) == read + 2
    assert analysis.pieces.word_of.count(read) == 3  # the last word kept has all its pieces


def test_word_pieces_of_a_model_with_whole_word_tokens() -> None:
    pieces = WordPieces.one_per_token(["[CLS]", "a", "b"], [True, False, False], [True, True, False])
    assert not pieces.splits_words and pieces.membership().equal(torch.eye(3))


@pytest.mark.slow
def test_the_app_never_imports_transformers_or_sentence_transformers() -> None:
    """Every page run with an English sentence, in a fresh interpreter: neither library may be imported."""
    script = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120)
at.session_state["kept_sentence"] = "The animal didn't cross the street because it was too tired"
at.run()
for page in ["idea", "similarity", "trainable", "heads", "abstraction", "fill_blank", "word_order", "lessons", "train"]:
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, (page, at.exception)
loaded = [m for m in ("transformers", "sentence_transformers") if m in sys.modules]
print("loaded:", loaded)
sys.exit(1 if loaded else 0)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "loaded: []" in result.stdout


def test_neighbour_blocks_pool_a_long_map_and_keep_rows_summing_to_one() -> None:
    from attention_core.models.word_pieces import neighbour_blocks

    weights = torch.softmax(torch.randn(2, 3, 10, 10), -1)
    blocks = neighbour_blocks([f"w{i}" for i in range(10)], 4)
    assert blocks.words == ("w0 …", "w3 …", "w6 …", "w9 …") and blocks.word_of == (0, 0, 0, 1, 1, 1, 2, 2, 2, 3)
    pooled = pool_to_words(weights, blocks)
    assert pooled.shape == (2, 3, 4, 4) and torch.allclose(pooled.sum(-1), torch.ones(2, 3, 4), atol=1e-6)
    assert neighbour_blocks(["a", "b"], 4).words == ("a", "b")  # short enough: unchanged


def test_a_word_the_tokenizer_reads_as_nothing_is_left_out_and_nothing_is_called_cut() -> None:
    tokens = tokenize("cat \u0301\u0301 dog")  # a "word" of two combining accents: MiniLM's normaliser strips them
    assert len(tokens) == 3 and english().words_read(tokens) == 3
    assert english().word_pieces(tokens).words == ("[CLS]", "cat", "dog", "[SEP]")
    assert english().sentence(tokens).labels == ["cat", "dog"]


EMOJI = "I love 🍕 and 🐱 so much 😊👍🏽"


def _every_model() -> dict[str, object]:
    """MiniLM, the shipped Arabic model, and a model of the user's own (the Train page's tiny preset, built for a
    vocabulary of a few English lines: it reads their letters, not the emoji)."""
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.models.trained import TrainedModel, load_model
    from attention_core.models.vocabulary import build_vocabulary

    vocabulary = build_vocabulary(["i love pizza and my cat so much", "the cat sat on the mat"] * 3, min_count=1)
    torch.manual_seed(0)
    mine = TrainedModel(MaskedLanguageModel.for_vocabulary(preset("tiny"), vocabulary), vocabulary, name="mine", step=0)
    return {"MiniLM": english(), "Arabic": load_model(), "mine": mine}


@pytest.mark.parametrize("name", ["MiniLM", "Arabic", "mine"])
def test_an_unknown_words_vector_is_zero_for_every_model_so_emoji_never_dominate_similarity(name: str) -> None:
    """Issue 23: on MiniLM the five emoji of this sentence are [UNK] and shared its trained vector, so they scored
    1.52–1.62 with each other, the largest values of V·Vᵀ. The docs promise an unknown word's vector is zero."""
    model = _every_model()[name]
    tokens = tokenize(EMOJI)
    words_only = model.sentence(tokens, use_position=False)
    unknown = [i for i, ok in enumerate(words_only.known) if not ok]
    assert [words_only.labels[i] for i in unknown][-3:] == ["😊", "👍", "🏽"]  # every emoji, in every model
    assert float(words_only.words[unknown].abs().max()) == 0.0
    with_positions = model.sentence(tokens)
    torch.testing.assert_close(with_positions.words, words_only.words)
    S = with_positions.V @ with_positions.V.T
    row, column = divmod(int(S.argmax()), S.shape[1])
    known = [i for i, ok in enumerate(words_only.known) if ok]
    if known:  # the largest value of the map is a real word's, not a pair of unknown ones
        assert row in known or column in known, (words_only.labels[row], words_only.labels[column])
    # Its place is not a word either: its whole row of V is zero, so in cosines too the unknown ones resemble
    # nothing (with their positions left in, the emoji compared by place alone scored 0.67–0.89 on MiniLM, above
    # every pair of real words).
    assert float(with_positions.V[unknown].abs().max()) == 0.0
    cosines = similarity(with_positions.V, "cosine")
    assert float(cosines[unknown].abs().max()) == 0.0 and float(cosines[:, unknown].abs().max()) == 0.0


def test_minilms_own_layers_still_read_its_trained_unknown_vector_as_hugging_face_does() -> None:
    """The zero is the V·Vᵀ story's: the model's forward pass reads its own [UNK] embedding (so parity holds)."""
    model = english()
    _, ids, known = model.encode(tokenize(EMOJI))
    unk = ids[0].tolist().index(model.unk_id)
    assert not known[unk] and float(model.model.word_embeddings.weight[model.unk_id].detach().norm()) > 1.0
    first = model.analyze(tokenize(EMOJI)).V  # what the first layer reads
    torch.testing.assert_close(first, model.model.embed(ids)[0])
