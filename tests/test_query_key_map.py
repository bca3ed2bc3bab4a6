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

from attention_core.figures.heatmaps import enlarged
from attention_core.figures.label_placement import text_width
from attention_core.figures.query_key_map import (
    PRESENTATION,
    WIDE_FONT,
    WIDE_LABELS_CSS,
    WIDE_PX,
    axis_title,
    query_key_figure,
)
from attention_core.figures.screen import PRESENTATION_SCALE
from attention_core.models.head_view import head_view
from attention_core.models.pretrained import load_minilm
from attention_core.models.query_key_words import drawn_queries_keys
from attention_core.models.trained import load_model
from attention_core.story.attention import causal_mask
from attention_core.story.query_key_map import principal_axes, query_key_map
from attention_core.story.text import tokenize
from tests.conftest import ARABIC, ARABIC_WORDS, assert_clean, figure_of, open_link, type_sentence, values
from ui.lessons.catalogue import LESSONS
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
    shown = [word for trace in figure.data if trace.text is not None for word in trace.text if word]
    assert set(shown) == set(ARABIC_WORDS)  # as typed, diacritics and all (some only on a wide screen: too close)
    assert [text.split(":")[0] for text in keys.hovertext] == ARABIC_WORDS  # and each on hover
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
    model = "Arabic: classical + modern model (shipped)"
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


# Where the map is drawn, as measured in Chromium (tests/test_browser_query_key_map.py measures the real thing): the
# plot area's width in px, the px of the figure's height that are not plot, presentation mode, and whether the chart
# is at least WIDE_PX wide (its wide-screen labels shown).
PHONE = ("a 390 × 844 phone", 271, 138, False, False)
ARABIC_PHONE = ("a 390 × 844 phone, Arabic", 278, 138, False, False)
DESKTOP = ("a 1400 × 900 desktop", 853, 138, False, True)
PROJECTOR = ("a 1280 × 720 projector", 639, 167, True, True)
SMALL_PROJECTOR = ("a 1024 × 768 projector", 390, 167, True, False)
# Chromium's box of an SVG text in these fonts, from the baseline: 1.09 em up and 0.66 em down (24 px at 14 px); the
# letters themselves (canvas measureText) reach 0.94 em up (À, Å) and 0.33 em down (إِلَى): what a marker must not touch.
ASCENT, DESCENT = 1.09, 0.66
INK_UP, INK_DOWN = 0.95, 0.35
TIRED_WORDS = ["[CLS]", *TIRED.split(), "[SEP]"]


def _drawn(figure: go.Figure, screen: tuple) -> tuple[list[tuple], list[tuple], tuple[float, float]]:
    """The labels (word, box x0, y0, x1, y1 in px from the plot's top left, its point, its letters' top and bottom)
    and markers (x, y, reach px) that `screen`
    shows, and the plot's size: the figure as Plotly lays it out there (equal axes: the scale is the smaller of the
    two, and the other axis's range widens about its centre), each label set around its point by plotly.js's rule
    (textPointPosition: r = size / 1.6 + 1 px from the centre, baseline at 0.75 em + v·r + (v − 1)·0.5 em)."""
    _, width, furniture, presentation, wide = screen
    if presentation:
        figure = enlarged(figure, 1.4)
    font = figure.layout.font.size
    height = figure.layout.height - furniture
    (x0, x1), (y0, y1) = figure.layout.xaxis.range, figure.layout.yaxis.range
    scale = min(width / (x1 - x0), height / (y1 - y0))
    left, top = (x0 + x1) / 2 - width / scale / 2, (y0 + y1) / 2 + height / scale / 2
    labels, markers = [], []
    for trace in figure.data:
        if trace.mode == "lines":
            continue
        only_wide = (trace.textfont.family or "").startswith(WIDE_FONT)
        sizes = np.broadcast_to(trace.marker.size, len(trace.x))
        for k, (x, y) in enumerate(zip(trace.x, trace.y, strict=True)):
            px, py = (x - left) * scale, (top - y) * scale
            if trace.marker.opacity != 0:
                markers.append(
                    (px, py, sizes[k] / 2 + 1 if trace.marker.symbol == "circle" else 1.3 * sizes[k] / 2 + 1)
                )
            text = trace.text[k] if trace.text is not None else ""
            if not text or (only_wide and not wide):
                continue
            place = trace.textposition[k]
            v = -1 if place.startswith("top") else 1 if place.startswith("bottom") else 0
            h = -1 if place.endswith("left") else 1 if place.endswith("right") else 0
            r = sizes[k] / 1.6 + 1
            w = text_width(text, font)
            baseline = py + 0.75 * font + v * r + (v - 1) * font / 2
            start = px + h * r - (w / 2 if h == 0 else w if h < 0 else 0)
            ink = (baseline - INK_UP * font, baseline + INK_DOWN * font)
            labels.append((text, start, baseline - ASCENT * font, start + w, baseline + DESCENT * font, px, py, ink))
    return labels, markers, (width, height)


def _collisions(figure: go.Figure, screen: tuple) -> list[str]:
    """Every pair of drawn labels whose boxes overlap, every label whose letters touch a marker not at its own point,
    and every label or marker not wholly inside the plot, on `screen`."""
    labels, markers, (width, height) = _drawn(figure, screen)
    found = []
    for k, (word, a0, b0, a1, b1, px, py, (top, bottom)) in enumerate(labels):
        if a0 < 0 or b0 < 0 or a1 > width or b1 > height:
            found.append(f"{word} is cut by the plot's edge: {a0:.0f}, {b0:.0f}, {a1:.0f}, {b1:.0f}")
        for other, c0, d0, c1, d1, *_ in labels[k + 1 :]:
            if min(a1, c1) - max(a0, c0) > 0 and min(b1, d1) - max(b0, d0) > 0:
                found.append(f"{word} overlaps {other}")
        for mx, my, reach in markers:
            own = abs(mx - px) < 1e-6 and abs(my - py) < 1e-6
            if not own and min(a1, mx + reach) > max(a0, mx - reach) and min(bottom, my + reach) > max(top, my - reach):
                found.append(f"{word} covers the marker at {mx:.0f}, {my:.0f}")
    found += [
        f"a marker at {x:.0f}, {y:.0f} is cut"
        for x, y, r in markers
        if min(x, y) < r or x > width - r or y > height - r
    ]
    return found


def _page_map(model: object, sentence: str, layer: int, head: int, W12: bool = True) -> tuple[object, list[str]]:
    """The map the Multi-head page draws for one head (whole words, [CLS] and [SEP] shown), and its words."""
    tokens = tokenize(sentence)
    view = head_view(model, tokens, layer, head, use_W1=W12, use_W2=W12)  # type: ignore[arg-type]
    analysis = model.analyze(tokens)  # type: ignore[attr-defined]
    drawn = drawn_queries_keys(view.V1, view.V2, view.weights, analysis, whole_words=True, show_special=True)
    return query_key_map(drawn.V1, drawn.V2, drawn.weights), list(drawn.labels)


def test_no_label_of_a_dense_map_overlaps_another_or_a_marker_or_is_cut_on_a_phone_or_a_projector() -> None:
    """The map of "The animal didn't cross the street because it was too tired" (MiniLM; on a 390-px phone its labels
    overlapped and "because" was cut at the left edge): on each screen, the labels it shows (boxes estimated from
    their characters, the fair proxy tests/test_browser_query_key_map.py checks against Chromium's own boxes) meet no
    other label, no other marker and no edge. A label that fits nowhere is left to the hover, and counted."""
    for layer, head in ((0, 2), (5, 0), (2, 7)):  # the head the page opens on, and the densest two maps
        qk, words = _page_map(load_minilm(), TIRED, layer, head)
        assert words == TIRED_WORDS
        figure = query_key_figure(qk, words)
        for screen in (PHONE, DESKTOP, PROJECTOR, SMALL_PROJECTOR):
            assert _collisions(figure, screen) == [], (layer, head, screen[0])
        labels = {screen[0]: _drawn(figure, screen)[0] for screen in (PHONE, DESKTOP)}
        assert 3 * len(labels[PHONE[0]]) >= 2 * len(words)  # a third of the 2 × 13 labels even on the densest map
        assert len(labels[DESKTOP[0]]) > len(labels[PHONE[0]])
        hidden = figure.layout.meta["hidden"]
        assert hidden == {
            "narrow": 2 * len(words) - len(labels[PHONE[0]]),
            "wide": 2 * len(words) - len(labels[DESKTOP[0]]),
        }
        hover = [t for t in figure.data if t.hovertext is not None]
        assert [len(t.hovertext) for t in hover] == [len(words)] * 2  # every point still named on hover
    assert f"{hidden['wide']} on a wide screen, {hidden['narrow']} on a narrow one" in map_caption(qk, 1, hidden=hidden)


def test_arabic_labels_and_one_cloud_keep_clear_too_and_the_legend_is_below_the_toolbar() -> None:
    for layer, head in ((0, 0), (0, 2), (2, 3)):
        qk, words = _page_map(load_model(), "ذهب الله بنورهم ولهم اساور من ذهب", layer, head)
        figure = query_key_figure(qk, words, rtl=True)
        for screen in (ARABIC_PHONE, PROJECTOR, SMALL_PROJECTOR):
            assert _collisions(figure, screen) == [], (layer, head, screen[0])
    qk, words = _page_map(load_minilm(), TIRED, 0, 2, W12=False)  # W1 and W2 off: one cloud, one label a word
    assert qk.same_points
    figure = query_key_figure(qk, words)
    for screen in (PHONE, DESKTOP, PROJECTOR):
        assert _collisions(figure, screen) == [], screen[0]
    # Plotly's toolbar sits at the figure's top right; the legend is at the figure's bottom, under the axis title.
    assert figure.layout.legend.yref == "container" and figure.layout.legend.y == 0
    assert figure.layout.legend.yanchor == "bottom"


def test_the_wide_screen_labels_are_hidden_below_wide_px_by_the_pages_css() -> None:
    assert WIDE_FONT in WIDE_LABELS_CSS and f"@container (min-width: {WIDE_PX}px)" in WIDE_LABELS_CSS
    assert PRESENTATION == PRESENTATION_SCALE  # the projector the labels are placed for is presentation mode's
