"""The Abstraction page's captions say what their own numbers say (issue 32, points 5 and 6): a fall is not called a
rise, a tie is not a win, the centred cosines' mean (about −1/(n − 1) by construction) is not offered as a
comparison, and when a learner's own texts contradict reading the pooled cosine as meaning, one plain line says so,
computed from the same numbers the chart draws."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention_core import load_minilm, sentence_similarity
from attention_core.readings.shared_words import pushed_apart, shared_words, words_or_meaning
from tests.conftest import assert_clean, open_link
from ui.abstraction.sentences import TextPairs, _pairs_caption
from ui.abstraction.view import _map_caption, _why_centre
from ui.i18n import catalog

DEPTHS = ["V", "layer 1", "layer 2", "layer 3"]


@pytest.fixture(scope="module")
def minilm():
    return load_minilm()


def test_why_centre_says_the_raw_cosines_fall_when_its_numbers_fall() -> None:
    """An Arabic caption said raw cosines rise while its own numbers fell (0.59 → 0.26)."""
    falling = _why_centre(torch.tensor([0.59, 0.41, 0.33, 0.26]), DEPTHS)
    assert "0.59 at the input V and 0.26 after layer 3" in falling
    assert "fall" in falling and "creep up" not in falling and "lifts" not in falling
    rising = _why_centre(torch.tensor([0.26, 0.4, 0.5, 0.59]), DEPTHS)
    assert "creep up" in rising
    level = _why_centre(torch.tensor([0.591, 0.5, 0.4, 0.589]), DEPTHS)  # 0.59 and 0.59 as written
    assert "still 0.59" in level and "creep up" not in level and "fall" not in level
    arabic = catalog("ar").singular
    fall_ar = next(text for key, text in arabic.items() if key.startswith("Why centre:") and "cosines fall" in key)
    assert "تهبط" in fall_ar  # "fall", in the Arabic the teacher reads


def _two_pairs(end_a: float, end_b: float) -> tuple[torch.Tensor, TextPairs]:
    full = torch.tensor([[0.5, 0.7, 0.8, end_a], [0.6, 0.65, 0.7, end_b]])
    return full, TextPairs(("a one", "b one"), ("a two", "b two"), ("A", "B"), None)


def test_a_tie_as_written_is_not_written_as_a_win() -> None:
    """ "0.99 against 0.99" read as one pair ending closer than the other."""
    full, pairs = _two_pairs(0.991, 0.989)
    caption = _pairs_caption(full, full - 0.1, pairs, DEPTHS)
    assert "“A” and “B” end level (0.99)" in caption
    assert "ends closer than" not in caption and "against" not in caption
    full, pairs = _two_pairs(0.95, 0.90)
    assert "“A” ends closer than “B” (0.95 against 0.90)" in _pairs_caption(full, full - 0.1, pairs, DEPTHS)


def test_no_rise_is_counted_where_the_written_numbers_do_not_rise() -> None:
    full = torch.tensor([[0.991, 0.5, 0.989], [0.2, 0.3, 0.4]])  # 0.99 → 0.99: not closer
    pairs = TextPairs(("a", "b"), ("c", "d"), ("A", "B"), None)
    assert "1 of 2 pairs ends closer" in _pairs_caption(full, full, pairs, DEPTHS[:3])


def test_the_centred_map_caption_says_how_far_attention_moved_the_pairs_not_their_mean() -> None:
    """Centred cosines average about −1/(n − 1) by construction, with attention or without: comparing the two means
    said nothing."""
    generator = torch.Generator().manual_seed(0)
    vectors, others = torch.randn(2, 6, 16, generator=generator)

    def centred_cosines(x: torch.Tensor) -> torch.Tensor:  # the oracle: torch's own cosine of centred vectors
        x = x - x.mean(0)
        return torch.nn.functional.cosine_similarity(x[:, None], x[None], dim=-1)

    full, bare = centred_cosines(vectors), centred_cosines(others)
    off = ~torch.eye(6, dtype=torch.bool)
    assert float(full[off].mean()) == pytest.approx(float(bare[off].mean()), abs=0.05)  # why the mean says nothing
    caption = _map_caption(full, bare, list("abcdef"), "after layer 3", centred=True)
    moved = float((full - bare).abs()[off].mean())
    assert f"attention moved two words' centred cosine by {moved:.2f} on average" in caption
    assert "average -0" not in caption and "without attention." not in caption
    raw = _map_caption(full.abs(), bare.abs(), list("abcdef"), "after layer 3", centred=False)
    assert "two words average" in raw


def test_two_words_are_one_pair_not_a_closest_and_a_farthest() -> None:
    caption = _map_caption(torch.tensor([[1.0, 0.5], [0.5, 1.0]]), torch.eye(2), ["x", "y"], "after layer 1", False)
    assert caption == "After layer 1, raw cosine of the two words “x” and “y”: 0.50; without attention 0.00."


def test_shared_words_are_counted_on_the_words_look_up_forms() -> None:
    assert shared_words("The dog bit the man.", "the man bit the DOG") == 1.0
    assert shared_words("the film was great", "a movie I loved") == 0.0
    assert shared_words("ذَهَبَ الولدُ", "ذهب البنت") == pytest.approx(1 / 3)  # harakat left out: ذهب is ذهب


def test_the_issues_numbers_read_as_words_not_meaning() -> None:
    """The learner's texts: same-word pairs ended at 0.99/0.99/0.89, paraphrases at 0.71/0.63/0.79."""
    a = ["the dog bit the man", "the cat ate the fish", "he gave her a book", "the film was great", "I am tired", "ok"]
    b = [
        "the man bit the dog",
        "the fish ate the cat",
        "she gave him a book",
        "a movie I loved",
        "I need sleep",
        "fine",
    ]
    split = words_or_meaning(a, b, [0.99, 0.99, 0.89, 0.71, 0.63, 0.79])
    assert split is not None and split.verdict == "words"
    assert split.sharing == (0, 1) and split.other == (2, 3, 4, 5)  # "he gave her" / "she gave him": 3 of 7 words
    assert words_or_meaning(a[:2], b[:2], [0.9, 0.9]) is None  # one kind only: nothing to compare
    tie = words_or_meaning(a[:4], b[:4], [0.801, 0.8, 0.8, 0.8])
    assert tie is not None and tie.verdict == "level"
    assert pushed_apart([0.36, 0.9, 0.5], [0.75, 0.85, 0.59]) == [0]  # 0.75 → 0.36 named; 0.59 → 0.50 is too small


def test_a_learners_own_texts_that_contradict_the_claim_get_one_plain_line(minilm) -> None:
    a = ["the dog bit the man", "the cat chased the mouse", "I drink tea every morning", "the film was boring"]
    b = ["the man bit the dog", "the mouse chased the cat", "each morning I have a cup of tea", "the movie was dull"]
    at = open_link("abstraction", abstraction_texts_a="\n".join(a), abstraction_texts_b="\n".join(b))
    assert_clean(at)
    ends = [float(sentence_similarity(minilm, x, y)[-1]) for x, y in zip(a, b, strict=True)]
    heads = _every_head(minilm)
    bare = [float(sentence_similarity(minilm, x, y, knock_out=heads)[-1]) for x, y in zip(a, b, strict=True)]
    sharing, other = np.mean(ends[:2]), np.mean(ends[2:])
    lines = [m.value for m in at.markdown if m.value.startswith("**On these texts")]
    assert (round(sharing, 2) > round(other, 2)) == bool(lines)  # said exactly when its numbers say it
    assert lines, "MiniLM keeps these same-word pairs closer than the paraphrases"
    assert f"(after layer 6: {ends[0]:.2f}, {ends[1]:.2f})" in lines[0]
    assert f"({ends[2]:.2f}, {ends[3]:.2f})" in lines[0] and "no test of whether two texts mean the same" in lines[0]
    pushed = [k for k in range(4) if round(bare[k], 2) - round(ends[k], 2) >= 0.1 - 1e-9]
    apart = [m.value for m in at.markdown if m.value.startswith("**Attention pushed")]
    assert bool(apart) == bool(pushed)


def test_the_lines_are_in_arabic_for_an_arabic_reader() -> None:
    arabic = catalog("ar").singular
    line = next(text for key, text in arabic.items() if key.startswith("**On these texts the layers keep"))
    assert "الكلمات المشتركة" in line and "{sharing}" in line and "{other}" in line


def _every_head(model) -> list[tuple[int, int]]:
    return [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
