"""When did the model decide, and what mattered? (issue 24, point 5): measured on the shipped Arabic model.

    .venv/bin/python -m bench.decision_report                                   # print the report (about 1 minute)
    .venv/bin/python -m bench.decision_report --out docs/runs/decision_report.txt

Three parts:
1. The lessons of Fill the blank (ui/lessons/catalogue.py LESSONS: agreement, negation, knocking heads out): for
   each, the logit lens (the first guesses and the expected word's rank at every depth) and the occlusion beside the
   blank's attention (mean of every head and layer, and rollout), as the page shows them.
2. Held-out text: a blank in each of N 12-word windows of held-out Qurʾān and hadith lines (the word in the middle
   of the window, when it is a word the model can guess): the depth at which the guess settles, how often the word
   the blank looks at most is the word whose hiding drops the guess most, and Spearman's ρ of attention and drop.
3. Speed: the section's compute (logit lens, occlusion, the two figures) at 32 words and beyond, one torch thread
   as the app's server runs it (ui/server.py), the median of --reps runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch

from attention_core.figures.decision import lens_figure, looked_at_and_mattered
from attention_core.models.trained import TrainedModel, load_model
from attention_core.readings.logit_lens import logit_lens, word_index
from attention_core.readings.occlusion import compare, occlusion
from attention_core.story.text import MASK, Token, tokenize
from attention_core.training.corpora import load_corpus

TOPICS = ("agreement", "negation", "knocking heads out")


def depth_name(depth: int) -> str:
    return "input" if depth == 0 else f"layer {depth}"


def lesson_report(model: TrainedModel, say: list[str]) -> None:
    from ui.knock_out_view import parse_head
    from ui.lessons.catalogue import LESSONS  # the lessons' own sentences (importing ui needs streamlit, not a server)

    for lesson in [lesson for lesson in LESSONS if lesson.page == "fill_blank" and lesson.topic in TOPICS]:
        knock_out = [parse_head(h) for h in lesson.settings.get("fill_blank_knock_out", [])]  # type: ignore[union-attr]
        gold = lesson.expected_after if knock_out else lesson.expected_guess
        say.append(f"## {lesson.title} ({lesson.topic})")
        say.append(f"{lesson.sentence}" + (f"   heads knocked out: {knock_out}" if knock_out else ""))
        lens = logit_lens(model, lesson.sentence, k=3, gold=gold, knock_out=knock_out)
        for depth in range(lens.n_depths):
            words = ", ".join(
                f"{w} {float(p):.3g}" for w, p in zip(lens.top_words[depth], lens.top_probabilities[depth], strict=True)
            )
            rank = ""
            if lens.gold_rank is not None and lens.gold_probability is not None:
                rank = f"   {gold}: #{lens.gold_rank[depth]:,} ({float(lens.gold_probability[depth]):.3g})"
            say.append(f"  {depth_name(depth):8} {words}{rank}")
        first = depth_name(lens.gold_first_at) if lens.gold_first_at is not None else "not first at the end"
        say.append(f"  settles at {depth_name(lens.settles_at)}; {gold} first from {first}")
        tokens = tokenize(lesson.sentence)
        found = occlusion(model, tokens, knock_out=knock_out)
        analysis = model.analyze(tokens, knock_out=knock_out)
        mean, rollout = compare(analysis, found, "mean"), compare(analysis, found, "rollout")
        say.append(
            f"  first guess {found.guess} {found.probability:.3f}; per word: attention (mean | rollout), "
            "drop → first guess with it hidden"
        )
        for i, word in enumerate(found.words):
            hidden = f"{float(found.drop[i]):+.3f} → {found.guess_when_hidden[i]}"
            drop = "   (the blank)" if i == found.blank else hidden
            say.append(f"    {word:10} {float(mean.attention[i]):.2f} | {float(rollout.attention[i]):.2f}   {drop}")
        most, looked = found.most_mattered, mean.most_looked_at
        agree = "the same word" if most == looked else "different words"
        rho = f"{mean.agreement:.2f}" if mean.agreement is not None else "n/a (fewer than 3 other words)"
        say.append(
            f"  looked at most (mean): {found.words[looked or 0]}; mattered most: {found.words[most or 0]} ({agree});"
            f" [CLS] share {mean.special_share:.2f}; Spearman ρ {rho}"
        )
        say.append("")


def held_out_blanks(model: TrainedModel, corpus: str, n: int) -> list[tuple[list[Token], str]]:
    """(12-word window of a held-out line with its middle word hidden, that word), when the model can guess it."""
    blanks = []
    for line in load_corpus(corpus).held_out:
        words = tokenize(line)
        for start in range(0, len(words) - 12, 12):
            window, middle = words[start : start + 12], 6
            if window[middle].is_word and word_index(model, window[middle].surface) is not None:
                hidden = [*window[:middle], Token(MASK, MASK, is_word=False), *window[middle + 1 :]]
                blanks.append((hidden, window[middle].surface))
            if len(blanks) >= n:
                return blanks
    return blanks


def held_out_report(model: TrainedModel, n: int, say: list[str]) -> None:
    for corpus in ("quran", "hadith"):
        settles, gold_first, same, rhos, right, cls = [], [], 0, [], 0, []
        blanks = held_out_blanks(model, corpus, n)
        for tokens, gold in blanks:
            lens = logit_lens(model, tokens, k=1, gold=gold)
            settles.append(lens.settles_at)
            right += lens.guess == model.word_shown(word_index(model, gold) or 0)
            if lens.gold_first_at is not None:
                gold_first.append(lens.gold_first_at)
            found = occlusion(model, tokens)
            seen = compare(model.analyze(tokens), found, "mean")
            same += found.most_mattered == seen.most_looked_at
            cls.append(seen.special_share)
            if seen.agreement is not None:
                rhos.append(seen.agreement)
        count = len(blanks)
        say.append(f"## {corpus}: {count} blanks (12-word windows of held-out lines, the middle word hidden)")
        say.append(f"  first guess right: {right} ({right / count:.0%})")
        spread = ", ".join(f"{depth_name(d)} {settles.count(d)}" for d in range(model.n_layers + 1))
        say.append(f"  the guess settles at: {spread}")
        if gold_first:
            spread = ", ".join(f"{depth_name(d)} {gold_first.count(d)}" for d in range(model.n_layers + 1))
            say.append(f"  where the guess is right, the right word is first from: {spread}")
        say.append(
            f"  the most-looked-at word (mean of heads and layers) is the word that mattered most: {same} of {count}"
            f" ({same / count:.0%}); chance would be 1 in 11"
        )
        say.append(
            f"  Spearman ρ of attention and drop over the 11 other words: mean {statistics.mean(rhos):.2f}, "
            f"median {statistics.median(rhos):.2f}, below 0.3 in {sum(r < 0.3 for r in rhos)} of {len(rhos)}"
        )
        say.append(f"  the blank's attention on [CLS]: mean {statistics.mean(cls):.2f}")
        say.append("")


def section(model: TrainedModel, tokens: list[Token]) -> None:
    """What the page computes for the section besides its own analysis: the lens, the occlusion, both figures."""
    analysis = model.analyze(tokens)
    found = occlusion(model, tokens)
    looked_at_and_mattered(compare(analysis, found, "mean"), [t.surface for t in tokens]).to_json()
    lens_figure(logit_lens(model, tokens, k=3)).to_json()


def median_ms(run: Callable[[], object], reps: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def speed_report(model: TrainedModel, reps: int, say: list[str]) -> None:
    torch.set_num_threads(1)  # as the server's pages run compute (ui.server)
    lines = [t for line in load_corpus("quran").held_out for t in tokenize(line)]
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start"
    say.append(f"## speed: one torch thread, median of {reps} runs, a quarter of them past 64 words ({load})")
    say.append(f"  {'words':>5} {'logit lens':>11} {'occlusion':>10} {'whole section':>14}")
    for n in (12, 32, 64, 128, 255):
        tokens = [*lines[: n // 2], Token(MASK, MASK, is_word=False), *lines[n // 2 + 1 : n]]
        runs = reps if n <= 64 else max(3, reps // 4)
        lens = median_ms(partial(logit_lens, model, tokens, k=3), runs)
        hidden = median_ms(partial(occlusion, model, tokens), runs)
        whole = median_ms(partial(section, model, tokens), runs)
        say.append(f"  {n:>5} {lens:>8.1f} ms {hidden:>7.1f} ms {whole:>11.1f} ms")
    say.append("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blanks", type=int, default=200, help="held-out blanks per corpus")
    parser.add_argument("--reps", type=int, default=20, help="timed runs per size (a quarter of them past 64 words)")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    model = load_model()
    shape = f"{model.n_layers} layers × {model.n_heads} heads"
    say: list[str] = [f"Logit lens and occlusion on the shipped Arabic model ({shape})", ""]
    speed_report(model, args.reps, say)
    lesson_report(model, say)
    held_out_report(model, args.blanks, say)
    text = "\n".join(say)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
