"""bench/abstraction_report.py on 3 pairs of each kind: its numbers are what sentence_similarity and layer_similarity
give, recomputed text by text in plain loops, and docs/abstraction.md as it renders them holds every one of them
(and no number in its tables that the run did not measure)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

import pytest
import torch

from attention_core import layer_similarity, sentence_similarity
from attention_core.models.interface import AttentionModel
from attention_core.models.pretrained import load_minilm
from attention_core.models.trained import load_model
from attention_core.readings.layers import layer_states
from attention_core.readings.sets import SentenceSets, sentence_sets
from bench.abstraction_report import (
    CONDITIONS,
    MEASURES,
    VARIANTS,
    cell,
    measure,
    report,
    texts_of,
    with_error,
)

N = 3  # pairs of each kind, and paragraphs (each of another topic, against N + 1 topics)


def small_sets(language: str) -> SentenceSets:
    """The first N pairs of each kind, the first paragraph of N topics, and those topics and one more."""
    sets = sentence_sets(language)  # type: ignore[arg-type]
    topics = sets.topics[: N + 1]
    paragraphs = tuple(next(p for p in sets.topic_paragraphs if p[0] == topic) for topic in topics[:N])
    return SentenceSets(sets.paraphrases[:N], sets.same_words_other_meaning[:N], topics, paragraphs)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """Many short texts: on this shared 2-core machine a second torch thread waits on busy cores (37 ms a pair with
    one thread, 474 ms with two, under load), and the report itself runs on one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@cache
def model_of(language: str) -> AttentionModel:
    return load_minilm() if language == "english" else load_model()


@cache
def run(language: str) -> tuple[dict, SentenceSets]:
    sets = small_sets(language)
    record, _ = measure(model_of(language), sets, language)  # type: ignore[arg-type]
    return record, sets


def all_heads(model: AttentionModel) -> list[tuple[int, int]]:
    return [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]


def rank_of_own(cosines: list[float], own: int) -> int:
    """1 + how many topics come strictly nearer than the paragraph's own, by sorting."""
    order = sorted(range(len(cosines)), key=lambda t: -cosines[t])
    return order.index(own) + 1


def plain_cosine(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(a @ b / (a.norm() * b.norm()))


@pytest.mark.parametrize("language", ["english", "arabic"])
def test_the_raw_numbers_are_sentence_similaritys_pair_by_pair(language: str) -> None:
    record, sets = run(language)
    model = model_of(language)
    for condition, knock_out in zip(CONDITIONS, ([], all_heads(model)), strict=True):
        numbers = record[condition]["raw"]
        loops = {
            kind: torch.stack([sentence_similarity(model, a, b, knock_out=knock_out) for a, b in pairs]).mean(0)
            for kind, pairs in (("paraphrases", sets.paraphrases), ("same words", sets.same_words_other_meaning))
        }
        torch.testing.assert_close(torch.tensor(numbers["paraphrases"]), loops["paraphrases"], atol=1e-5, rtol=0)
        torch.testing.assert_close(torch.tensor(numbers["same words"]), loops["same words"], atol=1e-5, rtol=0)
        torch.testing.assert_close(
            torch.tensor(numbers["difference"]), loops["paraphrases"] - loops["same words"], atol=1e-5, rtol=0
        )
        cosines = [  # per paragraph, (n_topics, depths)
            torch.stack([sentence_similarity(model, paragraph, t, knock_out=knock_out) for t in sets.topics])
            for _, paragraph in sets.topic_paragraphs
        ]
        for depth in range(model.n_layers + 1):
            ranks = [
                rank_of_own(c[:, depth].tolist(), sets.topics.index(topic))
                for (topic, _), c in zip(sets.topic_paragraphs, cosines, strict=True)
            ]
            assert numbers["topic nearest"][depth] == sum(r == 1 for r in ranks)
            assert numbers["topic rank"][depth] == pytest.approx(sum(ranks) / len(ranks))


@pytest.mark.parametrize("language", ["english", "arabic"])
def test_the_centred_numbers_centre_on_the_mean_text_of_the_sets(language: str) -> None:
    record, sets = run(language)
    model = model_of(language)
    texts = texts_of(sets)
    assert len(texts) == len(set(texts)) and set(sets.topics) <= set(texts)
    for condition, knock_out in zip(CONDITIONS, ([], all_heads(model)), strict=True):
        means = {t: layer_states(model, t, knock_out=tuple(knock_out)).states.mean(dim=1) for t in texts}
        centre = sum(means.values()) / len(means)
        numbers = record[condition]["centred"]
        for depth in range(model.n_layers + 1):
            vector = {t: means[t][depth] - centre[depth] for t in texts}
            for kind, pairs in (("paraphrases", sets.paraphrases), ("same words", sets.same_words_other_meaning)):
                loop = sum(plain_cosine(vector[a], vector[b]) for a, b in pairs) / len(pairs)
                assert numbers[kind][depth] == pytest.approx(loop, abs=1e-5)
            others = [plain_cosine(vector[a], vector[b]) for a in texts for b in texts if a != b]
            assert numbers["any two"][depth] == pytest.approx(sum(others) / len(others), abs=1e-5)
            ranks = [
                rank_of_own([plain_cosine(vector[p], vector[t]) for t in sets.topics], sets.topics.index(topic))
                for topic, p in sets.topic_paragraphs
            ]
            assert numbers["topic rank"][depth] == pytest.approx(sum(ranks) / len(ranks))


def test_the_two_banks_are_layer_similaritys_cells() -> None:
    record, _ = run("english")
    two = record["two words"]
    model = model_of("english")
    first, second = (p - 1 for p in two["positions"])
    assert two["word"] == "bank" and (first, second) == (4, 12)
    for condition, knock_out in zip(CONDITIONS, ([], all_heads(model)), strict=True):
        for centred in (False, True):
            cells = layer_similarity(model, two["sentence"], centred, knock_out=knock_out)[:, first, second]
            assert two[condition]["centred" if centred else "raw"] == pytest.approx(cells.tolist(), abs=1e-6)
    # The numbers: 0.93 at the input, 0.84 after layer 3 and 0.94 after layer 6.
    assert [round(two["full model"]["raw"][d], 2) for d in (0, 3, 6)] == [0.93, 0.84, 0.94]


NUMBER = re.compile(r"[+-]?\d+\.\d+|\d+/\d+")


def numbers_of(records: list[dict]) -> set[str]:
    """Every number of the records as the markdown writes it."""
    written = set()
    for record in records:
        for condition in CONDITIONS:
            for variant in VARIANTS:
                numbers = record[condition][variant]
                for depth in range(record["depths"]):
                    for m in MEASURES:
                        written.add(cell(m, numbers[m][depth], record))
                    written |= set(NUMBER.findall(with_error(numbers, "difference", depth, record)))
                for variant_values in (record["two words"][condition][variant],):
                    written |= {f"{x:.3f}" for x in variant_values}
    return written


def test_the_markdown_holds_every_number_of_the_run_and_its_tables_no_other() -> None:
    records = [run("english")[0], run("arabic")[0]]
    markdown = report(records, "2026-12-02")
    found = set(NUMBER.findall(markdown))
    expected = numbers_of(records)
    assert expected <= found, sorted(expected - found)
    table_numbers = {n for line in markdown.splitlines() if line.startswith("| ") for n in NUMBER.findall(line)}
    assert table_numbers <= expected, sorted(table_numbers - expected)
    assert markdown.count("| input V |") == 2 * 2 + 2  # per model: raw, centred, the two words


def test_the_probe_section_shows_the_probe_files_accuracy_at_every_depth() -> None:
    task = {
        "name": "hadith book",
        "corpus": "hadith",
        "classes": ["a", "b", "c"],
        "n_train": 1200,
        "n_test": 130,
        "majority": 0.4,
        "accuracy": [0.5, 0.61, 0.625],
        "standard_error": [0.04, 0.041, 0.042],
        "balanced_accuracy": [0.45, 0.55, 0.575],
        "accuracy_without_attention": [0.5, 0.52, 0.53],
        "balanced_accuracy_without_attention": [0.45, 0.46, 0.47],
        "bag_of_words": {"accuracy": 0.7, "balanced_accuracy": 0.65},
    }
    markdown = report([run("arabic")[0]], "2026-12-02", probe={"command": "python x.py", "tasks": [task]})
    section = markdown.split("## The Arabic model: a linear probe per depth")[1]
    assert "| layer 2 | 62.5 % ± 4.2 % (57.5 %) | 53.0 % (47.0 %) |" in section
    assert "40.0 %" in section and "70.0 % (65.0 %)" in section and "1,200 training and 130 held-out" in section
    assert "linear probe" not in report([run("arabic")[0]], "2026-12-02")  # no file, no section


def test_a_new_report_keeps_the_probe_section_written_into_the_same_file(tmp_path) -> None:
    from bench.abstraction_report import write_keeping_probe_section

    doc = tmp_path / "abstraction.md"
    doc.write_text("# old\n\n## Old numbers\n\nold\n\n## The probe\n\nhow it was run\n\n### Variants\n\nv\n")
    write_keeping_probe_section(doc, "# new\n\n## New numbers\n\nnew\n")
    assert doc.read_text() == "# new\n\n## New numbers\n\nnew\n\n## The probe\n\nhow it was run\n\n### Variants\n\nv\n"
