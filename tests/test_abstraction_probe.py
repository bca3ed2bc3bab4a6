"""The abstraction probe (bench/abstraction_probe.py): its logistic regression, the topic words it removes, the split
it trains and scores on, and the result file the Abstraction page reads (attention_core/shipped/arabic/probe.json).
The probe's accuracies themselves are measured by the script (docs/abstraction.md), not asserted here."""

from __future__ import annotations

import json

import pytest
import torch

from attention_core.models.trained import SHIPPED
from bench.abstraction_probe import Line, make_task, remove_words, title_forms
from bench.linear_probe import Score, fit_probe, paired
from bench.probe_section import write_section

HAJJ = "كِتَابُ الْحَجِّ"  # "The book of pilgrimage", diacritised as the hadith text is


def separable(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n points in 6-D labelled by the largest of three fixed linear scores, none within 1 of a boundary; one
    feature a thousand times larger than the others (standardising must handle it)."""
    w = torch.tensor(
        [[2.0, -1.0, 0.5, 0.0, 1.0, 0.0], [-1.0, 2.0, 0.0, 0.5, -1.0, 0.0], [0.0, 0.0, -2.0, 1.0, 0.0, 1.0]]
    )
    points, labels = [], []
    while len(points) < n:
        x = torch.randn(6, generator=generator)
        scores = w @ x
        top2 = scores.topk(2).values
        if top2[0] - top2[1] > 1.0:
            points.append(x)
            labels.append(int(scores.argmax()))
    x = torch.stack(points)
    x[:, 0] *= 1000.0
    return x, torch.tensor(labels)


def test_the_probe_recovers_a_linearly_separable_labelling():
    generator = torch.Generator().manual_seed(7)
    x_train, y_train = separable(300, generator)
    x_test, y_test = separable(200, generator)
    probe = fit_probe(x_train, y_train, 3, weight_decay=1e-3, steps=200, seed=0)
    assert (probe.predict(x_test) == y_test).float().mean().item() == 1.0
    assert set(y_test.tolist()) == {0, 1, 2}


def test_the_probe_is_seeded():
    x, y = separable(120, torch.Generator().manual_seed(3))
    a = fit_probe(x, y, 3, steps=20, seed=5).linear.weight
    b = fit_probe(x, y, 3, steps=20, seed=5).linear.weight
    assert torch.equal(a, b)


def test_title_forms_are_the_title_words_with_their_clitics():
    forms = title_forms(HAJJ)
    for form in ("كتاب", "الكتاب", "بكتاب", "الحج", "حج", "بالحج", "والحج", "فالحج", "للحج", "وللحج"):
        assert form in forms
    for other in ("حجة", "الحجاج", "حدثنا", "الصلاة", "كتب"):
        assert other not in forms


def test_the_topic_word_removal_removes_exactly_the_title_words():
    text = "حَدَّثَنَا يَحْيَى ، قَالَ : خَرَجْنَا بِالْحَجِّ فِي حَجَّةِ الْوَدَاعِ ، وَالصَّلاَةُ فِي كِتَابِ اللَّهِ وَالْحَجُّ"
    kept = remove_words(text, title_forms(HAJJ))
    assert kept == [
        "حَدَّثَنَا",
        "يَحْيَى",
        "،",
        "قَالَ",
        ":",
        "خَرَجْنَا",
        "فِي",
        "حَجَّةِ",
        "الْوَدَاعِ",
        "،",
        "وَالصَّلاَةُ",
        "فِي",
        "اللَّهِ",
    ]


def test_a_task_trains_on_the_models_training_lines_and_scores_on_its_held_out_ones():
    # line i of a corpus is held out when i % 10 == 9 (attention_core/training/corpora.py); the task keeps that
    lines = [Line(i, f"قال الحج رجل{i} صام", i % 2, i) for i in range(30)]
    task = make_task(
        "t",
        "c",
        [("even", "زوجي"), ("odd", "فردي")],
        lines,
        30,
        title_words=title_forms(HAJJ),
        specific=0,
        per_text=1,
        max_per_class=None,
        max_words=255,
    )
    assert sorted(t.tokens[1] for t in task.test) == ["رجل19", "رجل29", "رجل9"]
    assert len(task.train) == 27
    assert all(t.tokens == ("قال", t.tokens[1], "صام") for t in task.train + task.test)  # الحج gone, nothing else


def test_texts_are_cut_to_the_models_max_words():
    lines = [Line(i, " ".join(["كلمة"] * 50), i % 2, i) for i in range(20)]
    task = make_task(
        "t",
        "c",
        [("a", "أ"), ("b", "ب")],
        lines,
        20,
        title_words=frozenset(),
        specific=0,
        per_text=1,
        max_per_class=None,
        max_words=12,
    )
    assert {len(t.tokens) for t in task.train + task.test} == {12}


@pytest.fixture(scope="module")
def shipped_probe() -> dict:
    return json.loads((SHIPPED / "probe.json").read_text(encoding="utf-8"))


def test_the_shipped_probe_file_has_one_accuracy_per_depth(shipped_probe):
    n_layers = json.loads((SHIPPED / "config.json").read_text(encoding="utf-8"))["n_layers"]
    assert shipped_probe["command"].startswith("python -m bench.abstraction_probe")
    tasks = {task["name"]: task for task in shipped_probe["tasks"]}
    assert set(tasks) == {"hadith book", "sura revelation"}
    assert tasks["hadith book"]["corpus"] == "hadith" and tasks["sura revelation"]["corpus"] == "quran"
    for task in tasks.values():
        assert all(isinstance(c, str) and c for c in task["classes"]) and len(task["classes"]) >= 2
        assert isinstance(task["n_train"], int) and isinstance(task["n_test"], int)
        assert task["n_train"] > task["n_test"] > 0
        assert 0.0 < task["majority"] < 1.0
        for key in ("accuracy", "accuracy_without_attention"):
            assert len(task[key]) == n_layers + 1
            assert all(isinstance(a, float) and 0.0 <= a <= 1.0 for a in task[key])
        # depth 0 is the input V, which no head touches: the same with and without attention
        assert task["accuracy"][0] == task["accuracy_without_attention"][0]
        # the majority baseline is one class's share of the held-out texts
        assert round(task["majority"] * task["n_test"]) in task["test_per_class"]
        assert sum(task["test_per_class"]) == task["n_test"]


def test_the_paired_test_is_mcnemars_exact_test():
    y = torch.zeros(10, dtype=torch.long)
    better = Score(torch.tensor([0] * 8 + [1] * 2), 0.8, 0.8, 0.0)  # right on texts 0-7
    worse = Score(torch.tensor([0] * 3 + [1] * 7), 0.3, 0.3, 0.0)  # right on texts 0-2
    # five texts only the first gets right, none the other way: p = 2 · (1/2)⁵
    assert paired(better, worse, y) == {"only_this": 5, "only_other": 0, "p": 0.0625}
    assert paired(worse, better, y) == {"only_this": 0, "only_other": 5, "p": 0.0625}
    assert paired(better, better, y)["p"] == 1.0


def test_the_probe_section_replaces_only_itself(tmp_path):
    doc = tmp_path / "abstraction.md"
    write_section(doc, "## The probe\n\nfirst\n")
    first = "# Abstraction: what the layers make of the words\n\n## The probe\n\nfirst\n"
    assert doc.read_text(encoding="utf-8") == first
    doc.write_text("# A\n\nintro\n\n## The probe\n\nold\n\n### a table\n\n## Later\n\nkept\n", encoding="utf-8")
    write_section(doc, "## The probe\n\nnew\n")
    assert doc.read_text(encoding="utf-8") == "# A\n\nintro\n\n## The probe\n\nnew\n\n## Later\n\nkept\n"
