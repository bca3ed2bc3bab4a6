"""When did the model decide, and what mattered? (issue 24, point 5): the logit lens (the guess read at every depth
through the model's own output head) and occlusion (each word hidden by [MASK] in turn), against oracles that run
the model another way, and the section on Fill the blank, whose numbers must be the core's."""

from __future__ import annotations

import pytest
import torch
from conftest import assert_clean, figure_of, hidden_word_pills, open_framed_link, open_page, type_sentence, values

from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.models.trained import TrainedModel, load_model
from attention_core.models.vocabulary import build_vocabulary
from attention_core.readings.logit_lens import blank_probabilities, logit_lens, word_index
from attention_core.readings.occlusion import compare, occlusion
from attention_core.story.text import MASK, Token, tokenize

NEGATION = "ذلك الكتاب لا [MASK] فيه"  # the negation lesson (Qurʾān 2:2): the model guesses ريب
LESSON_SENTENCES = ["إنه هو السميع [MASK]", "إنه سميع [MASK]", NEGATION, "لا [MASK] إلا هو"]


@pytest.fixture(scope="module")
def shipped() -> TrainedModel:
    return load_model()


def my_model() -> TrainedModel:
    """A model of the user's own: the Train page's tiny preset, untrained, on a few English lines."""
    vocabulary = build_vocabulary(["the cat sat on the mat", "the dog sat on the rug", "a cat saw a dog"] * 5)
    torch.manual_seed(0)
    network = MaskedLanguageModel.for_vocabulary(preset("tiny", n_layers=2), vocabulary)
    return TrainedModel(network, vocabulary, name="mine", step=0)


@pytest.mark.parametrize("text", LESSON_SENTENCES)
@pytest.mark.parametrize("knock_out", [(), ((0, 0),)])
def test_the_lens_last_depth_is_the_models_own_guess_exactly(shipped: TrainedModel, text: str, knock_out) -> None:
    lens = logit_lens(shipped, text, k=5, knock_out=knock_out)
    guesses = shipped.fill_mask(text, k=5, knock_out=knock_out)
    assert list(lens.top_words[-1]) == [word for word, _ in guesses]
    assert lens.top_probabilities[-1].tolist() == [p for _, p in guesses]  # the same floats, not only close
    assert lens.n_depths == shipped.n_layers + 1


def test_the_lens_on_my_model_too() -> None:
    mine = my_model()
    lens = logit_lens(mine, "the cat [MASK] on the mat", k=3, gold="sat")
    assert lens.n_depths == 3
    assert list(lens.top_words[-1]) == [word for word, _ in mine.fill_mask("the cat [MASK] on the mat", k=3)]
    assert lens.gold_rank is not None and all(rank >= 1 for rank in lens.gold_rank)


def depth_probabilities_by_hooks(model: TrainedModel, text: str) -> torch.Tensor:
    """Oracle: the whole network run once as training runs it (MaskedLanguageModel.forward), each layer's output
    caught by a forward hook, then the model's own final LayerNorm and word scores written out by hand."""
    caught: list[torch.Tensor] = []
    hooks = [layer.register_forward_hook(lambda _m, _i, out: caught.append(out[0])) for layer in model.model.layers]
    tokens, pieces, _ = model.encode(tokenize(text))
    blank = [t.norm for t in tokens].index(MASK)
    try:
        with torch.no_grad():
            output = model.model(pieces, predict=False)
            inputs = [output.V, *caught]  # depth 0: V (word embedding + positions), depth l: layer l's output
            network = model.model
            rows = []
            for x in inputs:
                h = torch.nn.functional.layer_norm(
                    x[0, blank], (network.config.d_model,), network.norm.weight, network.norm.bias, network.norm.eps
                )
                logits = h @ network.output_vectors().T + network.output_bias
                logits[list(model.vocabulary.never_guessed)] = float("-inf")
                rows.append(torch.softmax(logits, dim=-1))
    finally:
        for hook in hooks:
            hook.remove()
    return torch.stack(rows)


@pytest.mark.parametrize("text", [NEGATION, "إن الله على كل شيء [MASK]"])
def test_every_depth_matches_the_layers_run_by_hand(shipped: TrainedModel, text: str) -> None:
    oracle = depth_probabilities_by_hooks(shipped, text)
    lens = blank_probabilities(shipped, tokenize(text))
    assert lens.shape == oracle.shape
    assert torch.allclose(lens, oracle, atol=1e-6), float((lens - oracle).abs().max())
    # and the record reads them right: layer 1's top word, and the gold word's rank by sorting
    record = logit_lens(shipped, text, k=3, gold="ريب")
    assert record.top_words[1][0] == shipped.word_shown(int(oracle[1].argmax()))
    gold = word_index(shipped, "ريب")
    assert gold is not None
    order = torch.argsort(oracle[1], descending=True).tolist()
    assert record.gold_rank is not None and record.gold_rank[1] == order.index(gold) + 1


def test_the_negation_lesson_decides_at_layer_one(shipped: TrainedModel) -> None:
    """What the page's caption says of the negation lesson: ريب is first from layer 1 on, far down at the input."""
    lens = logit_lens(shipped, NEGATION, gold="ريب")
    assert lens.guess == "ريب" and lens.settles_at == 1 and lens.gold_first_at == 1
    assert lens.gold_rank is not None and lens.gold_rank[0] > 1000


def test_a_word_the_model_cannot_guess_has_no_rank(shipped: TrainedModel) -> None:
    lens = logit_lens(shipped, NEGATION, gold="computer")
    assert lens.gold_rank is None and lens.gold_probability is None


def hidden_one_at_a_time(model: TrainedModel, tokens: list[Token], word: int, knock_out=()) -> torch.Tensor:
    """Oracle: the sentence with one word replaced by [MASK], run alone through analyze, read at the first blank's
    place (which is no longer the first [MASK] when the hidden word comes before it)."""
    blank = next(i for i, t in enumerate(tokens) if t.norm == MASK)
    hidden = [Token(MASK, MASK, is_word=False) if i == word else t for i, t in enumerate(tokens)]
    return model.word_probabilities(model.analyze(hidden, knock_out=knock_out).final[blank + 1])  # +1: [CLS]


@pytest.mark.parametrize("text", [NEGATION, "إن الله على كل شيء [MASK]", "لا [MASK] إلا هو"])
@pytest.mark.parametrize("knock_out", [(), ((0, 1),)])
def test_the_batched_drops_equal_hiding_one_word_at_a_time(shipped: TrainedModel, text: str, knock_out) -> None:
    tokens = tokenize(text)
    found = occlusion(shipped, tokens, gold="ريب", knock_out=knock_out)
    whole = shipped.word_probabilities(shipped.analyze(tokens, knock_out=knock_out).final[found.blank + 1])
    first = int(whole.argmax())
    assert found.guess == shipped.word_shown(first)
    assert found.probability == pytest.approx(float(whole[first]), abs=1e-5)
    gold = word_index(shipped, "ريب")
    assert gold is not None
    for word in range(len(tokens)):
        if word == found.blank:
            assert torch.isnan(found.drop[word])
            continue
        alone = hidden_one_at_a_time(shipped, tokens, word, knock_out)
        assert float(found.drop[word]) == pytest.approx(float(whole[first] - alone[first]), abs=1e-5)
        assert found.gold_drop is not None
        assert float(found.gold_drop[word]) == pytest.approx(float(whole[gold] - alone[gold]), abs=1e-5)
        assert found.guess_when_hidden[word] == shipped.word_shown(int(alone.argmax()))


def test_occlusion_on_my_model_and_in_chunks() -> None:
    mine = my_model()
    tokens = tokenize("the cat [MASK] on the mat and the dog sat on the rug")
    found = occlusion(mine, tokens)
    import attention_core.readings.occlusion as module

    chunked_size, module.BATCH_TOKENS = module.BATCH_TOKENS, 20  # one sentence per forward pass
    try:
        chunked = occlusion(mine, tokens)
    finally:
        module.BATCH_TOKENS = chunked_size
    assert torch.allclose(found.drop, chunked.drop, atol=1e-6, equal_nan=True)
    alone = hidden_one_at_a_time(mine, tokens, 0)
    whole = mine.word_probabilities(mine.analyze(tokens).final[3])
    first = int(whole.argmax())
    assert float(found.drop[0]) == pytest.approx(float(whole[first] - alone[first]), abs=1e-5)


def test_looked_at_is_the_blanks_attention_row(shipped: TrainedModel) -> None:
    tokens = tokenize(NEGATION)
    analysis = shipped.analyze(tokens)
    found = occlusion(shipped, tokens)
    mean = compare(analysis, found, "mean")
    row = analysis.weights[:, :, found.blank + 1, :].mean(dim=(0, 1))  # the blank's row, every head and layer
    assert torch.allclose(mean.attention, row[1:]) and mean.special_share == pytest.approx(float(row[0]))
    assert float(mean.attention.sum()) + mean.special_share == pytest.approx(1.0, abs=1e-5)
    rollout = compare(analysis, found, "rollout")
    assert float(rollout.attention.sum()) + rollout.special_share == pytest.approx(1.0, abs=1e-5)
    # the lesson's point: the blank looks at الكتاب most, but لا matters most
    assert found.words[mean.most_looked_at or 0] == "الكتاب" and found.words[found.most_mattered or 0] == "لا"


def test_the_section_on_fill_the_blank_shows_the_cores_numbers(shipped: TrainedModel) -> None:
    at = type_sentence(open_page("fill_blank"), "fill_blank", NEGATION)
    at = at.text_input(key="fill_blank_gold").set_value("ريب").run()
    assert_clean(at)
    assert any(s.value == "When did the model decide, and what mattered?" for s in at.subheader)
    lens = logit_lens(shipped, NEGATION, k=at.slider(key="fill_blank_lens_k").value, gold="ريب")
    shown = figure_of(at, "fill_blank_lens")
    assert shown["layout"]["meta"]["rows"] == ["input", "layer 1", "layer 2", "layer 3"]
    expected = torch.cat([lens.top_probabilities, lens.gold_probability[:, None]], dim=1)  # type: ignore[index]
    assert torch.allclose(torch.tensor(values(shown)), expected.double(), atol=1e-6)
    assert [row[0].split("<br>")[0] for row in shown["data"][0]["text"]] == [words[0] for words in lens.top_words]
    captions = " ".join(c.value for c in at.caption)
    assert f"settles at layer {lens.settles_at}" in captions
    assert f"rank {lens.gold_rank[0]:,} at the input" in captions  # type: ignore[index]
    found = occlusion(shipped, NEGATION, gold="ريب")
    strip = figure_of(at, "fill_blank_mattered")
    seen = compare(shipped.analyze(tokenize(NEGATION)), found, "mean")
    assert torch.allclose(torch.tensor(values(strip, 0)[:, 0]), seen.attention.double(), atol=1e-6)
    drop = torch.tensor(values(strip, 1)[:, 1])
    assert torch.allclose(drop, found.drop.double(), atol=1e-6, equal_nan=True)
    assert "The word that mattered most, \u2067لا\u2069, got only 0.23" in captions
    assert "is not what the word contributes" in captions  # why attention alone is no explanation, in plain words


def test_the_section_reads_the_hidden_word_and_follows_its_controls() -> None:
    at = type_sentence(open_page("fill_blank"), "fill_blank", "بسم الله الرحمن الرحيم")
    at = hidden_word_pills(at).set_value(2).run()
    assert_clean(at)
    assert not [t for t in at.text_input if t.key == "fill_blank_gold"]  # the clicked word is the gold word
    assert figure_of(at, "fill_blank_lens")["layout"]["meta"]["cols"][-1] == "الرحمن (hidden)"
    at = at.radio(key="fill_blank_looked_at").set_value("all layers combined (rollout)").run()
    at = at.slider(key="fill_blank_lens_k").set_value(2).run()
    assert_clean(at)
    assert figure_of(at, "fill_blank_mattered")["layout"]["meta"]["cols"][0] == "looked at (rollout)"
    assert len(figure_of(at, "fill_blank_lens")["layout"]["meta"]["cols"]) == 3  # two guesses and the hidden word


def test_a_link_reopens_the_section_as_it_was_shared() -> None:
    at = open_framed_link(
        "fill_blank",
        fill_blank_sentence=NEGATION,
        fill_blank_gold="ريب",
        fill_blank_lens_k="2",
        fill_blank_looked_at="all layers combined (rollout)",
    )
    assert_clean(at)
    assert at.text_input(key="fill_blank_gold").value == "ريب"
    assert at.slider(key="fill_blank_lens_k").value == 2
    assert figure_of(at, "fill_blank_mattered")["layout"]["meta"]["cols"][0] == "looked at (rollout)"
    assert figure_of(at, "fill_blank_lens")["layout"]["meta"]["cols"] == ["#1", "#2", "ريب (hidden)"]


def test_the_section_in_arabic() -> None:
    at = open_framed_link("fill_blank", lang="ar", fill_blank_sentence=NEGATION, fill_blank_gold="ريب")
    assert_clean(at)
    titles = [s.value for s in at.subheader]
    assert "When did the model decide, and what mattered?" not in titles and len(titles) >= 3
    rows = figure_of(at, "fill_blank_lens")["layout"]["yaxis"]["ticktext"]
    assert rows[1] != "layer 1" and "1" in rows[1]  # the depths drawn in Arabic


def test_a_blank_alone_hides_no_word_and_says_nothing_mattered() -> None:
    """A text that is only the blank (a bad input the page gets) has no word to hide: no drop, no error."""
    found = occlusion(load_model(), "[MASK]")
    assert found.others == [] and found.most_mattered is None and found.drop.shape == (1,)


def test_a_tie_in_attention_as_written_is_not_called_less() -> None:
    """Issue 32: "got only 0.21 of the blank's attention, less than X (0.21)" wrote a tie as a difference."""
    from attention_core.readings.occlusion import LookedAtAndMattered, Occlusion
    from ui.fill_blank.decision import _strip_captions

    words = ("the", "cat", "[MASK]", "on", "mat")
    found = Occlusion(
        words, 2, "sat", 0.5, torch.tensor([0.0, 0.3, float("nan"), 0.1, 0.05]), ("sat",) * 5, None, None, None
    )
    attention = torch.tensor([0.2101, 0.2099, 0.3, 0.14, 0.14])  # "the" looked at most; "cat" mattered most
    tie = _strip_captions(LookedAtAndMattered(found, attention, 0.0, "mean"))[0]
    assert "got 0.21 of the blank's attention, as much as the:" in tie and "less than" not in tie
    attention = torch.tensor([0.30, 0.21, 0.3, 0.1, 0.09])
    apart = _strip_captions(LookedAtAndMattered(found, attention, 0.0, "mean"))[0]
    assert "got only 0.21 of the blank's attention, less than the (0.30)" in apart
