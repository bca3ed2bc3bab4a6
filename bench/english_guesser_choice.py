"""Which English guesser to ship, at equal compute (issue 34): (b) a small model trained here the way the Arabic one
is, and MiniLM retrained to guess (attention_core/training/english_tune.py), each trained for the same minutes on one
thread at the same time, on the same text; then both and the left+right bigram on the same blanks of the everyday
test set written apart (every word MiniLM reads as one whole-word piece, hidden alone; by kind of word).

    python -m bench.english_guesser_choice --minutes 10 --out /tmp/english_choice

or, to score two checkpoints already trained (the shipped one, say, against (b) trained as long):

    python -m bench.english_guesser_choice --small /tmp/english_small60 --tuned attention_core/shipped/english

(a), a head alone on the frozen MiniLM, is measured by bench/english_guess_report.py (docs/english-guessing.md).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from attention_core.models.english_guesser import load_guessing_minilm
from attention_core.models.trained import load_model
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

SMALL_MIX = "english_everyday*8,wordnet,devil"  # the everyday lines read 8 times an epoch beside WordNet's


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--out", type=Path, help="a folder for both checkpoints (trained here)")
    parser.add_argument("--small", type=Path, help="score this small model's checkpoint instead of training one")
    parser.add_argument("--tuned", type=Path, help="score this retrained MiniLM instead of training one")
    args = parser.parse_args()
    if args.small and args.tuned:
        return score(args.small, args.tuned, "as trained (see each checkpoint's card)")
    if args.out is None:
        parser.error("--out is needed to train (or give both --small and --tuned)")
    small, tuned = args.out / "small", args.out / "tuned"
    seed_and_thread = ["--minutes", str(args.minutes), "--seed", "0", "--threads", "1"]
    small_model = ["attention_core.training.train", "--corpus", SMALL_MIX, "--preset", "arabic"]
    commands = [
        [sys.executable, "-m", *small_model, "--out", str(small), *seed_and_thread],
        [sys.executable, "-m", "attention_core.training.english_tune", "--out", str(tuned), *seed_and_thread],
    ]
    for command in commands:
        print(" ".join(command[1:]))
    args.out.mkdir(parents=True, exist_ok=True)
    logs = [open(args.out / f"{name}.log", "w", encoding="utf-8") for name in ("small", "tuned")]  # noqa: SIM115
    running = [subprocess.Popen(c, stdout=log, stderr=subprocess.STDOUT) for c, log in zip(commands, logs)]  # noqa: B905
    if any(process.wait() for process in running):
        print(f"a training failed: see {args.out}/*.log")
        return 1
    return score(small, tuned, f"each trained {args.minutes:g} minutes on one thread")


def score(small: Path, tuned: Path, how: str) -> int:
    """Both checkpoints and the bigram on the same blanks of the everyday test set, by kind of word."""
    retrained = load_guessing_minilm(tuned)
    model = load_model(small)
    test = blanks(retrained, everyday_test_lines(), content_lexicon())
    lines, _ = training_lines(["everyday", "wordnet", "devil"], 10**9, 0)
    guessers = {
        "MiniLM retrained": head_guesses(retrained, test),
        "small model (b)": text_guesses(lambda text: [w for w, _ in model.fill_mask(text, 5)], test),
        "left+right bigram": bigram_guesses(retrained, piece_bigram(retrained, lines), test),
    }
    print(f"everyday test set, {len(test)} blanks; {how}")
    print(f"{'guesser':18} {'kind':9} {'blanks':>6} {'top-1':>7} {'top-5':>7}")
    for name, guesses in guessers.items():
        for kind, rate in tally(test, guesses).rates().items():
            print(f"{name:18} {kind:9} {rate['n']:6} {rate['top1']:7.1%} {rate['top5']:7.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
