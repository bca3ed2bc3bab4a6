"""The query–key map (issue 15, point 3): the PCA against numpy, signs that never flip, one cloud when W1 and W2 are
the identity (in the core and from a shared link), lines to each query's true strongest key, Arabic labels, and the
lesson's numbers measured on MiniLM. Issue 23, point 7: on Multi-head the map draws the heatmaps' whole words, and
opens on the head whose map explains most words of the sentence until the user picks one."""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from attention_core.figures.query_key_map import axis_title, query_key_figure
from attention_core.models.head_view import head_view
from attention_core.models.pretrained import load_minilm
from attention_core.models.trained import load_model
from attention_core.story.attention import causal_mask
from attention_core.story.query_key_map import principal_axes, query_key_map
from attention_core.story.text import tokenize
from tests.conftest import ARABIC, ARABIC_WORDS, assert_clean, figure_of, open_link, type_sentence, values
from ui.examples import LESSONS
from ui.query_key_view import map_caption

FOX = "the quick brown fox jumps over the lazy dog"


def _cloud(n: int = 7, d: int = 5, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    V1, V2 = torch.randn(n, d, generator=generator), torch.randn(n, d, generator=generator) + 1.5
    return V1, V2, torch.softmax(V1 @ V2.T / d**0.5, dim=1)


def test_the_plane_is_numpys_pca_of_queries_and_keys_together() -> None:
    V1, V2, weights = _cloud()
    qk = query_key_map(V1, V2, weights)
    points = np.concatenate([V1.numpy(), V2.numpy()]).astype(np.float64)
    centred = points - points.mean(0)
    variances = np.linalg.eigvalsh(np.cov(centred.T))[::-1]  # the covariance's eigenvalues, largest first
    assert qk.axis_shares == pytest.approx(tuple(variances[:2] / variances.sum()), abs=1e-9)
    assert qk.kept == pytest.approx(variances[:2].sum() / variances.sum(), abs=1e-9)
    _, _, Vh = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ Vh[:2].T  # numpy's signs may differ: compare up to a sign per axis
    drawn = torch.cat([qk.queries, qk.keys]).double().numpy()
    for axis in range(2):
        sign = np.sign(drawn[:, axis] @ projected[:, axis])
        np.testing.assert_allclose(drawn[:, axis], sign * projected[:, axis], atol=1e-5)
    # What the plane keeps is the variance of the drawn points over the variance of the points themselves.
    assert drawn.var(0).sum() / centred.var(0).sum() == pytest.approx(qk.kept, abs=1e-6)


def test_signs_follow_one_rule_so_the_same_words_give_the_same_picture() -> None:
    V1, V2, weights = _cloud(seed=3)
    _, components, _ = principal_axes(torch.cat([V1, V2]).double())
    for component in components:  # scikit-learn's svd_flip: the largest loading of each axis is positive
        assert component[component.abs().argmax()] > 0
    first = query_key_map(V1, V2, weights)
    assert torch.equal(first.queries, query_key_map(V1, V2, weights).queries)
    order = torch.randperm(len(V1), generator=torch.Generator().manual_seed(1))  # the words listed in another order
    shuffled = query_key_map(V1[order], V2[order], weights[order][:, order])
    assert torch.allclose(shuffled.queries, first.queries[order], atol=1e-5)
    assert torch.allclose(shuffled.keys, first.keys[order], atol=1e-5)


def test_with_w1_and_w2_the_identity_queries_and_keys_are_one_cloud() -> None:
    V, _, weights = _cloud(n=9, d=16)
    qk = query_key_map(V, V.clone(), weights)
    assert qk.same_points and torch.equal(qk.queries, qk.keys)  # exactly, not nearly
    assert not query_key_map(V, V + 1e-3, weights).same_points


def test_small_heads_and_sentences_and_equal_points_have_sensible_maps() -> None:
    V1, V2, weights = _cloud(n=5, d=1)
    line = query_key_map(V1, V2, weights)  # d_h = 1: one axis, all of the variance
    assert line.n_axes == 1 and line.kept == pytest.approx(1.0) and line.axis_shares[1] == 0.0
    assert torch.all(line.queries[:, 1] == 0) and "one dimension" in axis_title(2, 0.0, line.n_axes)
    one = query_key_map(V1[:1], V2[:1] + 2.0, torch.ones(1, 1))  # one word: its query and key, on one axis
    assert one.kept == pytest.approx(1.0) and torch.all(one.queries[:, 1] == 0) and one.pairs == ((0, 0, 1.0),)
    assert torch.allclose(one.queries[:, 0], -one.keys[:, 0])  # centred: either side of their mean
    same = query_key_map(torch.ones(4, 3), torch.ones(4, 3), torch.full((4, 4), 0.25))  # nothing varies
    assert same.kept == 1.0 and same.axis_shares == (0.0, 0.0) and torch.all(same.queries == 0)
    figure = query_key_figure(same, list("abcd"))
    assert "every point is the same" in figure.layout.xaxis.title.text


def test_the_lines_join_each_query_to_its_strongest_keys_and_skip_masked_ones() -> None:
    V1, V2, weights = _cloud(n=6)
    qk = query_key_map(V1, V2, weights, per_query=2)
    top = weights.topk(2, dim=1)
    expected = [(i, int(j), float(w)) for i in range(6) for j, w in zip(top.indices[i], top.values[i], strict=True)]
    assert list(qk.pairs) == expected and qk.strongest == tuple(weights.argmax(1).tolist())
    masked = torch.softmax((V1 @ V2.T).masked_fill(causal_mask(6), float("-inf")), dim=1)  # the first row: itself
    pairs = query_key_map(V1, V2, masked, per_query=3).pairs
    assert [p[:2] for p in pairs if p[0] == 0] == [(0, 0)] and all(j <= i for i, j, _ in pairs)
    assert query_key_map(V1, V2, weights, per_query=0).pairs == ()


def test_the_figure_tells_queries_from_keys_keeps_arabic_and_has_true_distances() -> None:
    V1, V2, weights = _cloud(n=4)
    qk = query_key_map(V1, V2, weights)
    figure = query_key_figure(qk, ARABIC_WORDS, rtl=True)
    go.Figure(figure.to_dict())  # Plotly's validator accepts every property
    queries, keys = (next(t for t in figure.data if (t.name or "").startswith(name)) for name in ("query", "key"))
    assert queries.marker.symbol != keys.marker.symbol and queries.marker.color != keys.marker.color
    assert list(queries.text) == list(keys.text) == ARABIC_WORDS  # as typed, diacritics and all
    assert "Noto Naskh Arabic" in figure.layout.font.family
    assert figure.layout.yaxis.scaleanchor == "x" and figure.layout.yaxis.scaleratio == 1
    assert figure.layout.xaxis.title.text == f"PC1 ({100 * qk.axis_shares[0]:.0f} % of the variance)"
    lines = [t for t in figure.data if t.mode == "lines"]
    assert sum(list(t.x).count(None) for t in lines) == len(qk.pairs)  # one segment per pair


def _points(figure: dict, name: str) -> np.ndarray:
    """(n, 2) x and y of the scatter trace whose name starts with `name`, as the browser receives them."""
    trace = next(t for t in figure["data"] if t.get("name", "").startswith(name))

    def numbers(value: object) -> np.ndarray:
        if isinstance(value, dict):  # Plotly's typed array
            return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return np.asarray(value, dtype=np.float64)

    return np.stack([numbers(trace["x"]), numbers(trace["y"])], axis=1)


def test_a_shared_link_with_w1_and_w2_off_shows_one_cloud_on_trainable_attention() -> None:
    at = open_link("trainable", trainable_sentence="The cat sat on the mat", trainable_W1="false", trainable_W2="false")
    assert_clean(at)
    figure = figure_of(at, "trainable_qk_map")
    assert np.array_equal(_points(figure, "query"), _points(figure, "key"))
    assert any("V1 = V2" in c.value for c in at.caption)
    at.toggle(key="trainable_W1").set_value(True).run()  # a trained W1: two clouds
    assert not np.allclose(_points(figure_of(at, "trainable_qk_map"), "query"), _points(figure, "key"))


def test_on_multi_head_the_lines_join_each_query_to_its_strongest_key_and_w1_w2_off_make_one_cloud() -> None:
    model = "Arabic: Qurʾān + hadith model (shipped)"
    at = open_link("heads", heads_sentence=ARABIC, heads_model=model, heads_layer="2", heads_head="2")
    assert_clean(at)
    arabic, tokens = load_model(), tokenize(ARABIC)
    view = head_view(arabic, tokens, 1, 1)
    figure = figure_of(at, "heads_qk_map")
    queries, keys = _points(figure, "query").tolist(), _points(figure, "key").tolist()
    segments = set()
    for trace in (t for t in figure["data"] if t.get("mode") == "lines"):  # x0, x1, None, x0, x1, None, …
        x, y = trace["x"], trace["y"]
        segments |= {(x[k], y[k], x[k + 1], y[k + 1]) for k in range(0, len(x), 3)}
    strongest = view.weights.argmax(1).tolist()
    assert segments == {(*queries[i], *keys[j]) for i, j in enumerate(strongest)}  # one line a word, to its key
    query_trace = next(t for t in figure["data"] if t.get("name", "").startswith("query"))
    assert ARABIC_WORDS[1] in query_trace["text"]
    assert any("position bias B" in c.value for c in at.caption)
    at = open_link("heads", heads_sentence=ARABIC, heads_model=model, heads_W1="false", heads_W2="false")
    assert_clean(at)
    figure = figure_of(at, "heads_qk_map")
    assert np.array_equal(_points(figure, "query"), _points(figure, "key"))


def test_the_query_key_lesson_holds_on_minilm() -> None:
    (lesson,) = [lesson for lesson in LESSONS if lesson.topic == "query–key map"]
    english, tokens = load_minilm(), tokenize(lesson.sentence)
    layer, head = lesson.settings["heads_layer"] - 1, lesson.settings["heads_head"] - 1
    trained = query_key_map(*_head(english, tokens, layer, head, True))
    nearest = torch.cdist(trained.queries, trained.keys).argmin(1)  # tokens: [CLS] the quick … dog [SEP]
    assert [int(nearest[i]) for i in range(2, 10)] == list(range(1, 9))  # quick … dog: the key of the word before
    assert round(trained.kept, 2) == 0.48
    raw = query_key_map(*_head(english, tokens, layer, head, False))
    assert raw.same_points and raw.strongest == tuple(range(11))  # one cloud; every token attends most to itself
    assert "all 11 tokens attend most to themselves" in lesson.look_for
    assert "11 of the 11 words attend most to themselves" in map_caption(raw, 1)


def _head(model: object, tokens: list, layer: int, head: int, trained: bool) -> tuple[torch.Tensor, ...]:
    view = head_view(model, tokens, layer, head, use_W1=trained, use_W2=trained)  # type: ignore[arg-type]
    return view.V1, view.V2, view.weights


TIRED = "The animal didn't cross the street because it was too tired"  # MiniLM reads didn't as didn ' t


def _numpy_plane(V1: np.ndarray, V2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Queries and keys (n, 2) on the first two principal axes of [V1; V2], by numpy's SVD (signs as numpy gives)."""
    points = np.concatenate([V1, V2]).astype(np.float64)
    centred = points - points.mean(0)
    _, _, Vh = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ Vh[:2].T
    return projected[: len(V1)], projected[len(V1) :]


def _words_of(pieces: object) -> list[list[int]]:
    return [[t for t, w in enumerate(pieces.word_of) if w == word] for word in range(len(pieces.words))]


def test_on_multi_head_the_map_draws_the_heatmaps_whole_words_with_their_true_geometry() -> None:
    """Issue 23.7: the map showed didn, ', t while every heatmap shows didn't. Now its points are the words the
    heatmap draws, each the mean of its pieces' V1 and V2 (recomputed here with numpy from MiniLM's own head), and
    every line goes to the key of the largest weight in the query's row of the heatmap on the page."""
    at = open_link("heads", heads_sentence=TIRED, heads_layer="2", heads_head="5")
    assert_clean(at)
    heatmap, figure = figure_of(at, "heads_picked"), figure_of(at, "heads_qk_map")
    words = [label.rstrip("\u200b") for label in heatmap["data"][0]["y"]]
    assert "didn't" in words and "didn" not in words
    assert figure["layout"]["meta"]["rows"] == words  # the map's words are the heatmap's, in its order
    english, tokens = load_minilm(), tokenize(TIRED)
    view, pieces = head_view(english, tokens, 1, 4), english.analyze(tokens).pieces
    groups = _words_of(pieces)
    assert [len(g) for g in groups][3] == 3  # didn ' t: three pieces, one word
    V1 = np.stack([view.V1.numpy()[g].mean(0) for g in groups])
    V2 = np.stack([view.V2.numpy()[g].mean(0) for g in groups])
    queries, keys = _numpy_plane(V1, V2)
    drawn_queries, drawn_keys = _points(figure, "query"), _points(figure, "key")
    for axis in range(2):  # numpy's SVD may turn an axis the other way: compare up to its sign
        sign = np.sign(drawn_queries[:, axis] @ queries[:, axis])
        np.testing.assert_allclose(drawn_queries[:, axis], sign * queries[:, axis], atol=2e-4)
        np.testing.assert_allclose(drawn_keys[:, axis], sign * keys[:, axis], atol=2e-4)
    z = values(heatmap)  # the heatmap the student sees: rows from a word, columns to a word
    segments = set()
    for trace in (t for t in figure["data"] if t.get("mode") == "lines"):
        x, y = trace["x"], trace["y"]
        segments |= {
            (round(x[k], 5), round(y[k], 5), round(x[k + 1], 5), round(y[k + 1], 5)) for k in range(0, len(x), 3)
        }
    expected = {(*drawn_queries[i], *drawn_keys[int(j)]) for i, j in enumerate(z.argmax(1))}
    assert segments == {tuple(round(float(v), 5) for v in segment) for segment in expected}
    nearest = np.linalg.norm(queries[:, None] - keys[None], axis=2).argmin(1)  # independent of the map's code
    shown = sum(int(nearest[i] == j) for i, j in enumerate(z.argmax(1)))
    assert any(f"for {shown} of the {len(words)} words" in c.value for c in at.caption)
    at.sidebar.toggle(key="heads_words").set_value(False).run()  # Whole words off: the pieces, as the heatmap
    assert figure_of(at, "heads_qk_map")["layout"]["meta"]["rows"][3:6] == ["didn", "'", "t"]


def _explained_by_numpy(model: object, tokens: list) -> np.ndarray:
    """(layers, heads): words (not [CLS]/[SEP]) that attend most to another word whose key is the nearest to their
    query on the map, from each head alone (head_view), pooled and projected with numpy."""
    analysis = model.analyze(tokens)  # type: ignore[attr-defined]
    pieces = analysis.pieces
    groups, special = _words_of(pieces), np.array(pieces.special)
    counts = np.zeros((model.n_layers, model.n_heads), dtype=int)  # type: ignore[attr-defined]
    for layer in range(model.n_layers):  # type: ignore[attr-defined]
        for head in range(model.n_heads):  # type: ignore[attr-defined]
            view = head_view(model, tokens, layer, head)  # type: ignore[arg-type]
            V1 = np.stack([view.V1.numpy()[g].mean(0) for g in groups])
            V2 = np.stack([view.V2.numpy()[g].mean(0) for g in groups])
            weights = view.weights.numpy()
            pooled = np.stack([weights[g].mean(0) for g in groups])  # from a word: the mean of its pieces' rows
            pooled = np.stack([pooled[:, g].sum(1) for g in groups], axis=1)  # to a word: the sum of its pieces'
            queries, keys = _numpy_plane(V1, V2)
            nearest = np.linalg.norm(queries[:, None] - keys[None], axis=2).argmin(1)
            strongest = pooled.argmax(1)
            other = (strongest != np.arange(len(groups))) & ~special & ~special[strongest]
            counts[layer, head] = int(((nearest == strongest) & other).sum())
    return counts


def test_multi_head_opens_on_the_head_whose_map_explains_most_words_until_the_user_picks_one() -> None:
    """Issue 23.7: the map opened on L1 H1, where the nearest key is the strongest for few words. Now the head is
    computed for the sentence (here recomputed head by head with numpy), said in a caption, followed when the sentence
    changes, and left alone once the user picks one; a link that names a head opens on it."""
    english = load_minilm()
    at = type_sentence(open_link("heads"), "heads", TIRED)
    assert_clean(at)
    counts = _explained_by_numpy(english, tokenize(TIRED))
    layer, head = at.selectbox(key="heads_layer").value, at.selectbox(key="heads_head").value
    assert counts[layer - 1, head - 1] == counts.max() > counts[0, 0]  # the most words; L1 H1 explains fewer
    words = 11  # The animal didn't cross the street because it was too tired
    assert any(
        f"Opened on layer {layer}, head {head}" in c.value and f"({counts.max()} of {words}:" in c.value
        for c in at.caption
    )
    assert any(f"{counts.max()} of the {words} words attend most to another word" in c.value for c in at.caption)
    at = type_sentence(at, "heads", ARABIC)  # another sentence and model: the pickers follow
    counts = _explained_by_numpy(load_model(), tokenize(ARABIC))
    layer, head = at.selectbox(key="heads_layer").value, at.selectbox(key="heads_head").value
    assert counts[layer - 1, head - 1] == counts.max()
    at.selectbox(key="heads_head").set_value(head % 4 + 1).run()  # the user picks a head: it stays
    picked = (at.selectbox(key="heads_layer").value, at.selectbox(key="heads_head").value)
    assert not any("Opened on layer" in c.value for c in at.caption)
    at = type_sentence(at, "heads", "ذهب الولد إلى السوق في الصباح")
    assert (at.selectbox(key="heads_layer").value, at.selectbox(key="heads_head").value) == picked
    at = open_link("heads", heads_sentence=TIRED, heads_layer="4", heads_head="2")  # a shared link names its head
    assert (at.selectbox(key="heads_layer").value, at.selectbox(key="heads_head").value) == (4, 2)
    assert not any("Opened on layer" in c.value for c in at.caption)
