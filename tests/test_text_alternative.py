"""A heatmap's text alternative (attention_core/figures/text_alternative.py) against the matrix it was drawn from:
each row's strongest word found with torch.argmax, a big map's largest cells with torch.topk, a grid's panels with
their own maxima, roles with HeadRoles, and the sentence in Arabic from the catalog."""

from __future__ import annotations

import re

import torch

from attention_core.figures.head_maps import ROLE_NAMES, role_map
from attention_core.figures.heatmaps import heatmap, heatmap_grid
from attention_core.figures.layers import DepthLine, depth_lines
from attention_core.figures.numbers import written_alone
from attention_core.figures.text_alternative import (
    MAX_ROWS,
    as_table,
    panels,
    text_alternative,
)
from attention_core.models.head_roles import head_roles
from ui.i18n import in_language

WORDS = ["The", "cat", "sat", "on", "the", "mat"]


def _weights(n: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.softmax(3 * torch.randn(n, n, generator=generator), dim=-1)


def _seen(sentence: str) -> str:
    """The sentence without its invisible isolates (each word is isolated for the bidi algorithm)."""
    return sentence.replace("\u2068", "").replace("\u2069", "")


def _items(sentence: str) -> list[str]:
    return _seen(sentence).split(": ", 1)[1].rstrip(".").split("; ")


def test_each_row_names_its_strongest_word_and_weight() -> None:
    weights = _weights(len(WORDS))
    figure = heatmap(weights, WORDS, WORDS, kind="weights", title="Attention weights")
    sentence = text_alternative(figure)
    assert sentence.startswith("Attention weights, 6 rows × 6 columns.")
    expected = [
        f"{WORDS[i]} → {WORDS[int(j)]} ({written_alone(float(weights[i, j]))})"
        for i, j in enumerate(weights.argmax(dim=1))
    ]
    assert _items(sentence) == expected


def test_repeated_words_keep_their_rows_and_the_table_holds_every_value() -> None:
    weights = _weights(len(WORDS), seed=3)
    (panel,) = panels(heatmap(weights, WORDS, WORDS, kind="weights"))
    assert panel.rows == tuple(WORDS) and panel.cols == tuple(WORDS)
    table = as_table(panel)
    assert list(table.index) == WORDS and list(table.columns) == WORDS
    assert torch.allclose(torch.tensor(table.to_numpy()), weights.double(), atol=1e-6)


def test_a_signed_map_names_the_value_furthest_from_zero_with_its_sign() -> None:
    matrix = torch.tensor([[0.2, -0.9, 0.1], [0.5, 0.4, -0.3], [-0.05, 0.0, 0.04]])
    words = ["a", "b", "c"]
    sentence = text_alternative(heatmap(matrix, words, words, kind="signed", title="Difference"))
    assert "furthest from 0" in sentence
    assert _items(sentence) == ["a → b (-0.90)", "b → a (+0.50)", "c → a (-0.050)"]


def test_a_big_map_is_summed_up_by_its_largest_cells() -> None:
    n = MAX_ROWS + 8
    words = [f"w{i}" for i in range(n)]
    weights = _weights(n, seed=1)
    sentence = _seen(text_alternative(heatmap(weights, words, words, kind="weights", title="Big")))
    assert f"{n} rows × {n} columns" in sentence and "5 largest values" in sentence
    top = torch.topk(weights.reshape(-1), 5)
    expected = [f"w{int(i) // n} → w{int(i) % n} ({written_alone(float(v))})" for v, i in zip(*top, strict=True)]
    assert sentence.split(": ", 1)[1].split(". ")[0].split("; ") == expected


def test_a_grid_names_each_heads_largest_cell() -> None:
    weights = torch.stack([torch.stack([_weights(4, seed=10 * i + h) for h in range(3)]) for i in range(2)])
    words = ["a", "b", "c", "d"]
    figure = heatmap_grid(weights, words, row_names=["L1", "L2"], column_names=["H1", "H2", "H3"])
    items = _items(text_alternative(figure).split(". ", 1)[1])
    assert len(items) == 6
    for item, (layer, head) in zip(items, [(i, h) for i in range(2) for h in range(3)], strict=True):
        flat = int(weights[layer, head].argmax())
        value = written_alone(float(weights[layer, head].max()))
        assert item == f"L{layer + 1} H{head + 1}: {words[flat // 4]} → {words[flat % 4]} ({value})"


def test_a_map_of_roles_names_each_heads_role() -> None:
    n = 5
    previous = torch.zeros(n, n)
    previous[torch.arange(1, n), torch.arange(n - 1)] = 1.0
    previous[0, 0] = 1.0
    weights = torch.stack([previous, torch.eye(n)])[None]  # (1 layer, 2 heads, n, n)
    roles = head_roles(weights, [False] * n)
    sentence = _seen(text_alternative(role_map(roles)))
    for head in range(2):
        assert f"L1 H{head + 1}: {ROLE_NAMES[roles.roles[0][head]]}" in sentence


def test_a_line_chart_has_no_heatmap_to_describe() -> None:
    lines = [DepthLine("a · b", (0.2, 0.5, 0.9))]
    assert text_alternative(depth_lines(lines, ["V", "1", "2"], title="Cosine", y_title="cosine")) == ""


def test_the_sentence_reads_in_arabic() -> None:
    weights = _weights(4)
    words = ["ذهب", "الطالب", "إلى", "المدرسة"]
    sentence = text_alternative(
        heatmap(weights, words, words, kind="weights", rtl=True), lambda m: in_language("ar", m)
    )
    assert not re.search(r"[A-Za-z]", sentence), sentence
    assert all(f"\u2068{word}\u2069" in sentence for word in words)  # each word isolated: it keeps its place
