"""What the layers make of the words, measured (issue 24, point 4): written to docs/abstraction.md from this
script's own numbers.

    python -m bench.abstraction_report > docs/runs/abstraction_report.txt   # both models, every text of the sets
    python -m bench.abstraction_report --pairs 3 --out /tmp/abstraction.md   # a quick look (3 of each kind)

For MiniLM (English) and the shipped Arabic model, on their own sentence sets (attention_core.readings.sets), at
every depth (0 = the input V, ℓ = the output of layer ℓ), with the full model and with every head knocked out (the
words then pass through the feed-forward layers alone):

- the mean cosine of the pooled vectors (the mean of the typed words' vectors) of the paraphrase pairs (other
  words, same meaning) and of the same-words-other-meaning pairs (roles swapped, a negation), and their difference;
- for each topic paragraph (a paragraph that never names its topic), against every topic word read as a text of
  its own: whether its own topic is the nearest, and its rank (1 = nearest);
- the two *bank*s of "I sat on the bank of the river then went to the bank to get money" (MiniLM) and the two ذهب
  ("went", "gold") of «ذهب الله بنورهم ولهم اساور من ذهب» (the Arabic model): layer_similarity per depth.

Every cosine is given raw and centred. Centred, for the texts: each pooled vector less the mean pooled vector of
every text of that language's sets (the paraphrases, the same-words pairs, the paragraphs and the topic words), at
that depth and for that model (full, or without attention). Centred, for the two words: layer_similarity's own
centring on the sentence's mean word vector. Besides the markdown and the printed report: every number of the
markdown as JSON (--results; --render-only writes the markdown again from it). The markdown ends with the Arabic model's
linear probe per depth, read from attention_core/shipped/arabic/probe.json when bench/abstraction_probe.py has
written it (rerun with --render-only after a new probe).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch
import torch.nn.functional as F

from attention_core.models.interface import AttentionModel
from attention_core.readings.layers import layer_similarity, layer_states
from attention_core.readings.sets import Language, SentenceSets, sentence_sets
from bench.probe_section import HEADING, depth_name, write_section

COMMAND = "python -m bench.abstraction_report > docs/runs/abstraction_report.txt"
CONDITIONS = ("full model", "no attention")  # every head kept; every head knocked out
VARIANTS = ("raw", "centred")
MEASURES = ("paraphrases", "same words", "difference", "any two", "topic nearest", "topic rank")
TWO_WORDS = {  # language → (sentence, the word read twice with two meanings)
    "english": ("I sat on the bank of the river then went to the bank to get money", "bank"),
    "arabic": ("ذهب الله بنورهم ولهم اساور من ذهب", "ذهب"),
}
PAGE = "../pages/abstraction.py"
ROOT = Path(__file__).resolve().parents[1]
PROBE_FILE = "attention_core/shipped/arabic/probe.json"
MODEL_NAMES = {"english": "MiniLM-L6 (English)", "arabic": "Arabic model (shipped)"}
Pooled = dict[str, torch.Tensor]  # text → (n_layers + 1, d) its mean word vector at every depth


# ---------------------------------------------------------------------------------------------------------------
# 1. Measuring


def every_head(model: AttentionModel) -> tuple[tuple[int, int], ...]:
    return tuple((layer, head) for layer in range(model.n_layers) for head in range(model.n_heads))


def texts_of(sets: SentenceSets) -> list[str]:
    """Every text the report reads, each once: both pair sets, the topic words, the paragraphs."""
    pairs = [text for pair in (*sets.paraphrases, *sets.same_words_other_meaning) for text in pair]
    return list(dict.fromkeys([*pairs, *sets.topics, *(paragraph for _, paragraph in sets.topic_paragraphs)]))


def pooled_vectors(model: AttentionModel, texts: Sequence[str], knock_out: Sequence[tuple[int, int]] = ()) -> Pooled:
    """Each text's pooled vector at every depth (what sentence_similarity compares), the model run once a text."""
    return {text: layer_states(model, text, knock_out=tuple(knock_out)).pooled for text in texts}


def reference(pooled: Pooled) -> torch.Tensor:
    """(n_layers + 1, d) the mean pooled vector of all the texts at every depth: the centre of the centred cosines."""
    return torch.stack(list(pooled.values())).mean(dim=0)


def pair_similarities(
    pooled: Pooled, pairs: Sequence[tuple[str, str]], centre: torch.Tensor | None = None
) -> torch.Tensor:
    """(n_pairs, n_layers + 1) the cosine of each pair's pooled vectors at every depth (less `centre` if given)."""
    shift = 0.0 if centre is None else centre
    a = torch.stack([pooled[text] for text, _ in pairs]) - shift
    b = torch.stack([pooled[text] for _, text in pairs]) - shift
    return F.cosine_similarity(a, b, dim=-1)


def topic_ranks(
    pooled: Pooled, topics: Sequence[str], paragraphs: Sequence[tuple[str, str]], centre: torch.Tensor | None = None
) -> torch.Tensor:
    """(n_paragraphs, n_layers + 1) the rank of each paragraph's own topic among all topics by cosine at every depth
    (1 = the nearest; a tie counts against it)."""
    shift = 0.0 if centre is None else centre
    candidates = F.normalize(torch.stack([pooled[t] for t in topics]) - shift, dim=-1)  # (n_topics, depths, d)
    texts = F.normalize(torch.stack([pooled[p] for _, p in paragraphs]) - shift, dim=-1)  # (n_paragraphs, depths, d)
    cosines = torch.einsum("pzd,tzd->pzt", texts, candidates)  # (n_paragraphs, depths, n_topics)
    own = torch.tensor([topics.index(topic) for topic, _ in paragraphs])
    own_cosine = cosines.gather(2, own[:, None, None].expand(-1, cosines.shape[1], 1))  # (n_paragraphs, depths, 1)
    return (cosines >= own_cosine).sum(dim=2)  # the own topic counts itself: rank 1 when no other is as near


def standard_error(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(depths,) the standard error of mean(a) − mean(b) for two independent samples (n, depths) (0 for one pair)."""
    variance = [x.var(dim=0) / len(x) if len(x) > 1 else torch.zeros(x.shape[1]) for x in (a, b)]
    return (variance[0] + variance[1]).sqrt()


def any_two(pooled: Pooled, centre: torch.Tensor | None = None) -> torch.Tensor:
    """(n_layers + 1,) the mean cosine of every two different texts, related or not: what a depth gives any pair."""
    unit = F.normalize(torch.stack(list(pooled.values())) - (0.0 if centre is None else centre), dim=-1)
    cosines = torch.einsum("azd,bzd->zab", unit, unit)  # (depths, n_texts, n_texts)
    n = unit.shape[0]
    return (cosines.sum(dim=(1, 2)) - cosines.diagonal(dim1=1, dim2=2).sum(dim=1)) / (n * (n - 1))


def summary(
    paraphrases: torch.Tensor, same_words: torch.Tensor, baseline: torch.Tensor, ranks: torch.Tensor
) -> dict[str, list[float]]:
    """The report's numbers per depth from the per-pair cosines, the cosine of any two texts and the ranks."""
    return {
        "paraphrases": paraphrases.mean(0).tolist(),
        "same words": same_words.mean(0).tolist(),
        "difference": (paraphrases.mean(0) - same_words.mean(0)).tolist(),
        "difference SE": standard_error(paraphrases, same_words).tolist(),
        "any two": baseline.tolist(),
        "topic nearest": (ranks == 1).sum(0).tolist(),
        "topic rank": ranks.float().mean(0).tolist(),
    }


def measure(model: AttentionModel, sets: SentenceSets, language: Language) -> tuple[dict, list[str]]:
    """The record of one model (every number of the markdown) and the per-text detail lines of the printed report."""
    counts = {
        "paraphrases": len(sets.paraphrases),
        "same words": len(sets.same_words_other_meaning),
        "topics": len(sets.topics),
        "topic paragraphs": len(sets.topic_paragraphs),
    }
    record: dict = {"model": MODEL_NAMES[language], "language": language, "depths": model.n_layers + 1}
    record["counts"] = counts
    detail: list[str] = []
    texts = texts_of(sets)
    for condition, knock_out in zip(CONDITIONS, ((), every_head(model)), strict=True):
        pooled = pooled_vectors(model, texts, knock_out)
        for variant in VARIANTS:
            centre = reference(pooled) if variant == "centred" else None
            paraphrases = pair_similarities(pooled, sets.paraphrases, centre)
            same_words = pair_similarities(pooled, sets.same_words_other_meaning, centre)
            ranks = topic_ranks(pooled, sets.topics, sets.topic_paragraphs, centre)
            baseline = any_two(pooled, centre)
            record.setdefault(condition, {})[variant] = summary(paraphrases, same_words, baseline, ranks)
            detail += detail_lines(f"{record['model']}, {condition}, {variant}", sets, paraphrases, same_words, ranks)
    record["two words"] = two_words(model, language)
    return record, detail


def two_words(model: AttentionModel, language: Language) -> dict:
    """The cosine of the two readings of one word (bank, ذهب) at every depth, raw and centred, full and without
    attention."""
    sentence, word = TWO_WORDS[language]
    states = layer_states(model, sentence)
    first, second = (i for i, w in enumerate(states.words) if w == word)
    result: dict = {"sentence": sentence, "word": word, "positions": [first + 1, second + 1]}
    for condition, knock_out in zip(CONDITIONS, ((), every_head(model)), strict=True):
        for variant in VARIANTS:
            similarity = layer_similarity(model, sentence, variant == "centred", knock_out=knock_out)
            result.setdefault(condition, {})[variant] = similarity[:, first, second].tolist()
    return result


def detail_lines(
    title: str, sets: SentenceSets, paraphrases: torch.Tensor, same_words: torch.Tensor, ranks: torch.Tensor
) -> list[str]:
    """Every pair's cosine and every paragraph's rank at every depth (the printed report only)."""
    lines = [f"\n### {title}: every pair's cosine at every depth (V, layer 1, …), every paragraph's rank"]
    for name, pairs, cosines in (
        ("paraphrase", sets.paraphrases, paraphrases),
        ("same words", sets.same_words_other_meaning, same_words),
    ):
        for (a, b), row in zip(pairs, cosines, strict=True):
            lines.append(f"{name:<10} {' '.join(f'{c:6.3f}' for c in row.tolist())}  {a} | {b}")
    for (topic, paragraph), row in zip(sets.topic_paragraphs, ranks, strict=True):
        lines.append(f"rank       {' '.join(f'{r:6d}' for r in row.tolist())}  {topic}: {paragraph}")
    return lines


# ---------------------------------------------------------------------------------------------------------------
# 2. Writing: every number through one of these, so that the markdown and the test format them alike


def cosine(x: float) -> str:
    return f"{x:.3f}"


def signed(x: float) -> str:
    return f"{x:+.3f}"


def count(x: float, total: int) -> str:
    return f"{int(x)}/{total}"


def rank(x: float) -> str:
    return f"{x:.2f}"


def cell(measure: str, x: float, record: dict) -> str:
    """One number of a table, as the report writes that measure."""
    if measure == "difference":
        return signed(x)
    if measure == "topic nearest":
        return count(x, record["counts"]["topic paragraphs"])
    if measure == "topic rank":
        return rank(x)
    return cosine(x)


def with_error(numbers: dict, measure: str, depth: int, record: dict) -> str:
    """A cell of the tables per depth: the difference carries its standard error."""
    written = cell(measure, numbers[measure][depth], record)
    return f"{written} ± {cosine(numbers['difference SE'][depth])}" if measure == "difference" else written


def where(depth: int) -> str:
    """'at the input V', 'after layer 3': where a number was read, in a sentence."""
    return "at the input V" if depth == 0 else f"after layer {depth}"


def depth_table(record: dict, variant: str) -> str:
    """Rows: the depths; columns: the five measures; each cell full model / every head out."""
    rows = ["| depth | " + " | ".join(MEASURES) + " |", "|---" + "|---:" * len(MEASURES) + "|"]
    for depth in range(record["depths"]):
        cells = [" / ".join(with_error(record[c][variant], m, depth, record) for c in CONDITIONS) for m in MEASURES]
        rows.append(f"| {depth_name(depth)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def two_words_table(record: dict) -> str:
    two = record["two words"]
    columns = [(c, v) for c in CONDITIONS for v in VARIANTS]
    rows = [
        "| depth | " + " | ".join(f"{v}, {c}" for c, v in columns) + " |",
        "|---" + "|---:" * len(columns) + "|",
    ]
    for depth in range(record["depths"]):
        rows.append(f"| {depth_name(depth)} | " + " | ".join(cosine(two[c][v][depth]) for c, v in columns) + " |")
    return "\n".join(rows)


def summary_table(records: list[dict]) -> str:
    """Each model × heads × cosine: the input V → the last layer."""
    rows = [
        "| model | heads | cosine | " + " | ".join(MEASURES) + " |",
        "|---|---|---" + "|---:" * len(MEASURES) + "|",
    ]
    for record in records:
        for condition in CONDITIONS:
            for variant in VARIANTS:
                numbers = record[condition][variant]
                cells = [f"{cell(m, numbers[m][0], record)} → {cell(m, numbers[m][-1], record)}" for m in MEASURES]
                heads = "all" if condition == "full model" else "none"
                rows.append(f"| {record['model']} | {heads} | {variant} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def best_depth(values: list[float], highest: bool = True) -> int:
    return max(range(len(values)), key=lambda d: values[d] if highest else -values[d])


def what_it_shows(record: dict) -> str:
    """Sentences read off the record: where the difference and the topics peak, and what attention adds."""
    last, n = record["depths"] - 1, record["counts"]["topic paragraphs"]
    raw, bare = record["full model"]["raw"], record["no attention"]["raw"]

    def above(numbers: dict, kind: str, depth: int) -> str:
        return signed(numbers[kind][depth] - numbers["any two"][depth])

    lines = [
        f"- **Above any two texts** (raw): the paraphrase pairs' mean stands {above(raw, 'paraphrases', 0)} above "
        f"the mean of any two texts {where(0)} and {above(raw, 'paraphrases', last)} {where(last)} (every head out: "
        f"{above(bare, 'paraphrases', last)}); the same-words pairs' {above(raw, 'same words', 0)} and "
        f"{above(raw, 'same words', last)} (every head out: {above(bare, 'same words', last)})."
    ]
    for variant in VARIANTS:
        full, none = record["full model"][variant], record["no attention"][variant]
        d, top = full["difference"], full["topic nearest"]
        peak, best = best_depth(d), best_depth(top)
        lines.append(
            f"- **{variant.capitalize()}.** Paraphrases − same words: {signed(d[0])} {where(0)}, "
            f"{signed(d[last])} {where(last)}"
            + (f" (largest {where(peak)}: {signed(d[peak])})" if 0 < peak < last else "")
            + f"; with every head out {signed(none['difference'][last])} {where(last)}. Right topic nearest: "
            f"{count(top[0], n)} {where(0)}, {count(top[last], n)} {where(last)}"
            + (f" (most {where(best)}: {count(top[best], n)})" if 0 < best < last and top[best] > top[last] else "")
            + f"; with every head out {count(none['topic nearest'][last], n)} {where(last)}."
        )
    two = record["two words"]
    raw, centred = two["full model"]["raw"], two["full model"]["centred"]
    low = best_depth(raw, highest=False)
    between = f", {cosine(raw[low])} {where(low)}" if 0 < low < last else ""
    between_centred = f", {cosine(centred[low])}" if 0 < low < last else ""
    lines.append(
        f"- **The two {two['word']}s** (words {two['positions'][0]} and {two['positions'][1]}): raw "
        f"{cosine(raw[0])} {where(0)}{between}, {cosine(raw[last])} {where(last)}; centred on the sentence "
        f"{cosine(centred[0])}{between_centred} and {cosine(centred[last])}; with every head out, raw "
        f"{cosine(two['no attention']['raw'][last])} {where(last)}."
    )
    return "\n".join(lines)


EXPLAINED = """\
## What a pooled cosine can tell, and what it cannot

A text's *pooled vector* at a depth is the mean of its typed words' vectors there ([CLS], [SEP] and padding left
out), and the numbers here are cosines of two such means. A high cosine says that the two texts' words, taken
together, point the same way in the model's space at that depth. It does not say why, and it does not say that the
model "understood" either text:

- **Shared words pull the cosine up.** At the input V a text's vector is the mean of its word vectors plus
  positions, so two texts with the same words start near 1 whatever their meaning ({same_words_at_input}), and
  word order enters only through the positions. Whatever moves them apart later is the layers' work; with every
  head knocked out, a word's vector depends on the word and its place alone.
- **Related words are near before any layer.** The word table itself places words of one topic near each other,
  so a paragraph's pooled vector can be nearest its topic word at the input V, before any layer has read it
  ({topics_at_input}). A topic found nearest in a deep layer says that the pooled vector lies near the topic
  word's there; the input V's row says how much of that the layers added.
- **Every depth has its own floor.** The vectors of all words share a common direction, by a different amount at
  each depth, and it lifts the raw cosine of any two texts, related or not: the column *any two* is the mean
  cosine of every two different texts of the sets ({any_two}). A raw cosine of 0.9 at one depth and 0.8 at
  another do not compare. Compare within one depth (paraphrases against same words and against *any two*, the
  right topic against the other {others}), or take the centred cosine: each pooled vector less the mean pooled
  vector of all the texts of that language's sets at that depth, which removes the shared direction (for the two
  words: layer_similarity's centring on the sentence's own mean word).
- **MiniLM's last layer was trained for exactly this.** all-MiniLM-L6-v2 was fine-tuned so that the mean of its
  last layer's vectors places paraphrases close together (sentence-transformers' training on a billion sentence
  pairs; it pools [CLS] and [SEP] too, left out here). Its last layer doing well on paraphrases is its training,
  not an ability that emerged; its middle layers were never asked for it.
- **The Arabic model was trained only to fill blanks.** Nothing in its training asked that its pooled vectors mean
  anything: its layers keep what helps to guess a hidden word from its neighbours. What its pooled cosines show is
  a by-product of that, on texts in the register it read (the Qurʾān and the hadith).
- **{pairs} pairs of each kind are few.** The tables give each difference with its standard error (±, the two kinds
  of pairs taken as independent samples); a difference within two of those is within the noise of the sets. With
  {topics} topics, chance puts one paragraph in {topics} nearest its own, at a mean rank of {chance_rank:g}.
"""


def same_words_at_input(records: list[dict]) -> str:
    """'the same-words pairs: 0.989 at the input V for MiniLM, …' (their Arabic pairs change case endings)."""
    said = [f"{cosine(r['full model']['raw']['same words'][0])} for {r['model']}" for r in records]
    return "the same-words pairs' mean at the input V: " + ", ".join(said)


def topics_at_input(records: list[dict]) -> str:
    """'right topic nearest at the input V: 29/30 for MiniLM, …'."""
    said = [
        f"{count(r['full model']['raw']['topic nearest'][0], r['counts']['topic paragraphs'])} for {r['model']}"
        for r in records
    ]
    return "right topic nearest at the input V: " + ", ".join(said)


def any_two_range(records: list[dict]) -> str:
    """'raw, full model: 0.612–0.874 over the depths for MiniLM, …'."""
    said = []
    for r in records:
        values = r["full model"]["raw"]["any two"]
        said.append(f"{cosine(min(values))} to {cosine(max(values))} over the depths for {r['model']}")
    return "raw, full model: " + ", ".join(said)


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def probe_section(probe: dict) -> str:
    """The shipped Arabic model's probe (written by bench/abstraction_probe.py to probe.json): accuracy per depth."""
    parts = [
        "## The Arabic model: a linear probe per depth\n\n"
        f"From `{PROBE_FILE}`, written by `{probe['command']}` (its own run: "
        "[runs/abstraction_probe.txt](runs/abstraction_probe.txt)); this page only shows it. A logistic regression "
        "on each depth's pooled vector, trained on the model's training lines and scored on its held-out lines, "
        "with the topic's own words removed. Each cell: held-out accuracy ± its standard error (full model), then "
        "with every head knocked out; balanced accuracy (the mean over classes) in brackets."
    ]
    for task in probe["tasks"]:
        rows = [
            "| depth | full model | no attention |",
            "|---|---:|---:|",
        ]
        for depth, accuracy in enumerate(task["accuracy"]):
            rows.append(
                f"| {depth_name(depth)} | {percent(accuracy)} ± {percent(task['standard_error'][depth])} "
                f"({percent(task['balanced_accuracy'][depth])}) | "
                f"{percent(task['accuracy_without_attention'][depth])} "
                f"({percent(task['balanced_accuracy_without_attention'][depth])}) |"
            )
        bag = task["bag_of_words"]
        parts.append(
            f"**{task['name']}** ({len(task['classes'])} classes, {task['n_train']:,} training and {task['n_test']:,} "
            f"held-out texts of the {task['corpus']}): the commonest class alone scores {percent(task['majority'])}, "
            f"a bag of words on the same split {percent(bag['accuracy'])} ({percent(bag['balanced_accuracy'])}).\n\n"
            + "\n".join(rows)
        )
    return "\n\n".join(parts)


def report(records: list[dict], date: str, partial: str = "", probe: dict | None = None) -> str:
    """The markdown page: how it was made, the summary, what it shows, the tables per depth, the two words, and the
    Arabic model's probe when its file is given."""
    parts = [
        "# Abstraction, measured: what the layers make of the words\n\n"
        f"Written by `{COMMAND}` ({date}); do not edit by hand. The full output, every pair's cosine at every depth "
        "included, is [runs/abstraction_report.txt](runs/abstraction_report.txt). The page "
        f"[Abstraction]({PAGE}) shows the same readings for any sentence. {partial}".rstrip(),
        "For each model on its own sets (`attention_core/readings/sets/`), at every depth (the input V, then the "
        "output of each layer): the mean cosine of the pooled vectors of the paraphrase pairs (other words, same "
        "meaning) and of the same-words pairs (roles swapped, a negation), their difference, the mean cosine of "
        "any two different texts of the sets (*any two*, related or not: the floor of that depth), and for each topic "
        "paragraph (never naming its topic) whether its own topic word is the nearest of the ten and its rank (1 = "
        "nearest). *Full model* keeps every head; *no attention* knocks every head out, so that the words pass "
        "through the feed-forward layers alone. No target: these numbers describe the models.",
        "## Summary: the input V → the last layer\n\n" + summary_table(records),
        EXPLAINED.format(
            same_words_at_input=same_words_at_input(records),
            topics_at_input=topics_at_input(records),
            any_two=any_two_range(records),
            others=records[0]["counts"]["topics"] - 1,
            pairs=records[0]["counts"]["paraphrases"],
            topics=records[0]["counts"]["topics"],
            chance_rank=(records[0]["counts"]["topics"] + 1) / 2,
        ).rstrip(),
    ]
    for record in records:
        counts = record["counts"]
        parts += [
            f"## {record['model']}\n\n{counts['paraphrases']} paraphrase pairs, {counts['same words']} same-words "
            f"pairs, {counts['topic paragraphs']} paragraphs against {counts['topics']} topics.\n\n"
            + what_it_shows(record),
            "Raw cosines; each cell: full model / no attention.\n\n" + depth_table(record, "raw"),
            "Centred on the mean pooled vector of the language's sets at each depth; each cell: full model / no "
            "attention.\n\n" + depth_table(record, "centred"),
            f"The two *{record['two words']['word']}*s of «{record['two words']['sentence']}» (layer_similarity, "
            "raw and centred on the sentence's mean word):\n\n" + two_words_table(record),
        ]
    if probe is not None:
        parts.append(probe_section(probe))
    return "\n\n".join(parts) + "\n"


def write_keeping_probe_section(path: Path, text: str) -> None:
    """Write the report, keeping the section bench/probe_section.py wrote into the same file ("## The probe": how
    the probe was run, its variants), which this report's numbers per depth do not repeat."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    start = old.find(HEADING + "\n")
    path.write_text(text, encoding="utf-8")
    if start >= 0:
        end = old.find("\n## ", start + len(HEADING))
        write_section(path, old[start:] if end < 0 else old[start : end + 1])


def shipped_probe() -> dict | None:
    """The shipped Arabic model's probe.json, if bench/abstraction_probe.py has written it."""
    path = ROOT / PROBE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


# ---------------------------------------------------------------------------------------------------------------
# 3. The printed report and the command line


def printed_table(record: dict, condition: str, variant: str) -> list[str]:
    numbers = record[condition][variant]
    lines = [
        f"\n## {record['model']}, {condition}, {variant} cosine",
        f"{'depth':<9}" + "".join(f"{m:>15}" for m in MEASURES) + f"{'diff. SE':>10}",
    ]
    for depth in range(record["depths"]):
        lines.append(
            f"{depth_name(depth):<9}"
            + "".join(f"{cell(m, numbers[m][depth], record):>15}" for m in MEASURES)
            + f"{numbers['difference SE'][depth]:>10.3f}"
        )
    return lines


def load_models(which: Sequence[str]) -> list[tuple[AttentionModel, Language]]:
    from attention_core.models.pretrained import load_minilm
    from attention_core.models.trained import load_model

    loaders = {"english": load_minilm, "arabic": load_model}
    return [(loaders[language](), language) for language in which]  # type: ignore[misc]


def shortened(sets: SentenceSets, n: int | None) -> SentenceSets:
    """The first n pairs of each kind and the first paragraph of each of the first n topics (against every topic):
    a quick look."""
    if n is None:
        return sets
    firsts = [next(p for p in sets.topic_paragraphs if p[0] == topic) for topic in sets.topics[:n]]
    return SentenceSets(sets.paraphrases[:n], sets.same_words_other_meaning[:n], sets.topics, tuple(firsts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="english,arabic", help="english (MiniLM), arabic (shipped), or both")
    parser.add_argument("--pairs", type=int, default=None, help="read only the first N of each kind (a quick look)")
    parser.add_argument("--out", type=Path, default=Path("docs/abstraction.md"), help="the markdown written")
    parser.add_argument(
        "--results",
        type=Path,
        default=Path("docs/runs/abstraction_report.json"),
        help="every number of the markdown, as JSON (written with the markdown unless --pairs)",
    )
    parser.add_argument(
        "--render-only", action="store_true", help="write the markdown from --results, measuring nothing"
    )
    args = parser.parse_args(argv)
    if args.render_only:
        saved = json.loads(args.results.read_text(encoding="utf-8"))
        write_keeping_probe_section(args.out, report(saved["records"], saved["date"], probe=shipped_probe()))
        print(f"wrote {args.out}", file=sys.stderr)
        return 0
    torch.set_num_threads(1)  # deterministic sums; the work is many short texts, where threads gain nothing
    date = time.strftime("%Y-%m-%d")
    print(f"# abstraction_report — {date}, `{COMMAND}`" + (f", first {args.pairs} of each kind" if args.pairs else ""))
    records, details = [], []
    for model, language in load_models(args.models.split(",")):
        started = time.monotonic()
        record, detail = measure(model, shortened(sentence_sets(language), args.pairs), language)
        print(f"{model.name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
        records.append(record)
        details += detail
        for condition in CONDITIONS:
            for variant in VARIANTS:
                print("\n".join(printed_table(record, condition, variant)))
        print(f"\n## {record['model']}: the two {record['two words']['word']}s")
        print(two_words_table(record))
    print("\n# Every pair and paragraph (depths: input V, layer 1, …)")
    print("\n".join(details))
    partial = f"(A partial look: the first {args.pairs} of each kind.)" if args.pairs else ""
    write_keeping_probe_section(args.out, report(records, date, partial, shipped_probe()))
    print(f"wrote {args.out}", file=sys.stderr)
    if not args.pairs:
        saved_record = {"command": COMMAND, "date": date, "records": records}
        args.results.write_text(json.dumps(saved_record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
