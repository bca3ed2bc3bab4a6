"""How well English guesses a hidden word: MiniLM with the word-guessing head trained here (and its layers retrained,
when the folder holds them: attention_core/training/english_tune.py), against the left+right
bigram counted on the same training lines (and, given --small, a small English model trained here the way the Arabic
one is), on the everyday test set written apart (never trained on) and on held-out lines of the training sources;
by kind of word (attention_core/training/english_eval.py). Also the issue's two sentences and a guess's time.

    python -m bench.english_guess_report [--small CHECKPOINT] [--out docs/runs/english_guess.json]

Needs Debian's wordnet-base (its index tells nouns, verbs and adjectives apart).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from attention_core.models.english_guesser import HEAD_CARD, HEAD_FOLDER, load_guessing_minilm
from attention_core.models.trained import load_model
from attention_core.story.text import tokenize
from attention_core.training.english_eval import (
    bigram_guesses,
    blanks,
    content_lexicon,
    head_guesses,
    piece_bigram,
    tally,
    text_guesses,
)
from attention_core.training.english_head import training_lines
from attention_core.training.english_text import everyday_test_lines

SENTENCES = ("The cat sat on the [MASK].", "I drink a cup of [MASK] every morning.")
LONG = (  # 32 words (the speed target: a guess within 50 ms at 32 words)
    "After school on Friday my little brother and I walked with two friends to the park near the old river, where "
    "we played football and talked until the [MASK] went slowly down."
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head", type=Path, default=HEAD_FOLDER, help="the head's folder (default: the shipped one)")
    parser.add_argument("--small", type=Path, help="a checkpoint of a small English model trained here, to compare")
    parser.add_argument("--held-out-lines", type=int, default=1500, help="held-out lines of the training sources")
    parser.add_argument("--out", type=Path, help="write the numbers as JSON here")
    parser.add_argument(
        "--save-scores",
        action="store_true",
        help="write the everyday-set scores into the head's card",
    )
    args = parser.parse_args()
    model = load_guessing_minilm(args.head)
    guesser_name = "MiniLM retrained" if model.retrained else "MiniLM + head"
    card = model.card
    # The bigram counts the lines the guesser learned from: a head's drawn lines, or every line a retraining read from
    # (english_tune: every everyday line, WordNet's in turn).
    max_lines = int(card.get("training_lines", 10**9))
    lines, held_out = training_lines(card["sources"], max_lines, int(card["seed"]))
    lexicon = content_lexicon()
    bigram = piece_bigram(model, lines)
    small = load_model(args.small) if args.small else None
    results: dict[str, object] = {"head": card, "sets": {}}
    sets = {
        "everyday test set (written apart)": everyday_test_lines(),
        "held-out lines": held_out[: args.held_out_lines],
    }
    print(f"{'set':36} {'guesser':16} {'kind':9} {'blanks':>6} {'top-1':>7} {'top-5':>7}")
    for name, test_lines in sets.items():
        test = blanks(model, test_lines, lexicon)
        guessers = {
            guesser_name: head_guesses(model, test),
            "left+right bigram": bigram_guesses(model, bigram, test),
        }
        if small is not None:
            guessers["small model"] = text_guesses(lambda text: [w for w, _ in small.fill_mask(text, 5)], test)
        measured = {}
        for guesser, guesses in guessers.items():
            rates = tally(test, guesses).rates()
            measured[guesser] = rates
            for kind, rate in rates.items():
                print(f"{name:36} {guesser:16} {kind:9} {rate['n']:6} {rate['top1']:7.1%} {rate['top5']:7.1%}")
        results["sets"][name] = {"lines": len(test_lines), "blanks": len(test), "scores": measured}  # type: ignore[index]
    examples = {sentence: model.fill_mask(sentence, 3) for sentence in SENTENCES}
    for sentence, guesses in examples.items():
        print(f"{sentence}  →  " + ", ".join(f"{word} ({p:.2f})" for word, p in guesses))
    tokens = tokenize(LONG)
    pieces = len(model.encode(tokens)[0])
    times = []
    for _ in range(30):
        started = time.perf_counter()
        model.predict(tokens)
        times.append(time.perf_counter() - started)
    median_ms = 1000 * statistics.median(times[5:])
    words = sum(t.is_word or t.surface == "[MASK]" for t in tokens)
    print(f"a guess at {words} words ({len(tokens)} with the marks, {pieces} pieces): median {median_ms:.1f} ms of 25")
    results |= {"examples": examples, "guess_ms": {"words": words, "pieces": pieces, "median": median_ms}}
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.save_scores:
        everyday = results["sets"]["everyday test set (written apart)"]["scores"]  # type: ignore[index]
        card["scores"] = {"everyday": everyday[guesser_name], "bigram_everyday": everyday["left+right bigram"]}
        (args.head / HEAD_CARD).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
