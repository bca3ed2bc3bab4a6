"""Does a checkpoint memorise or generalise? Masked-word top-1 on training lines beside held-out lines.

    python -m bench.generalisation_gap --checkpoint attention_core/shipped/arabic --lines 100

For each built-in corpus, the first --lines held-out lines and the first --lines training lines are scored the
same way (every word masked in turn), with the left+right bigram counted on that corpus's training lines. A
model far better on lines it trained on than on held-out ones is memorising them (more regularisation, or fewer
repetitions of that text, would help it); equal scores mean it is still under-fitting (more steps would help).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from attention_core.models.checkpoint import load_checkpoint
from attention_core.models.trained import SHIPPED
from attention_core.training.batches import Lexicon
from attention_core.training.corpora import BUILT_IN, load_corpus
from attention_core.training.evaluate import evaluate, train_counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=SHIPPED)
    parser.add_argument("--lines", type=int, default=100, help="lines of each split scored")
    args = parser.parse_args(argv)
    model, vocabulary, step = load_checkpoint(args.checkpoint)
    lexicon = Lexicon(vocabulary)
    results = {}
    print(f"| corpus (step {step:,}) | held-out top-1 | training-lines top-1 | gap | held-out bigram |")
    print("|---|---|---|---|---|")
    for name in BUILT_IN:
        corpus = load_corpus(name)
        counts = train_counts(lexicon, corpus, model.config.max_len)
        held_out = evaluate(model, lexicon, corpus, max_lines=args.lines, counts=counts)
        seen = evaluate(model, lexicon, replace(corpus, held_out=corpus.train), max_lines=args.lines, counts=counts)
        results[name] = {"held_out": held_out["top1"], "train": seen["top1"], "bigram": held_out["bigram_top1"]}
        gap = 100 * (seen["top1"] - held_out["top1"])
        print(
            f"| {name} | {held_out['top1']:.1%} | {seen['top1']:.1%} | {gap:+.1f} points | "
            f"{held_out['bigram_top1']:.1%} |"
        )
    print(json.dumps({"checkpoint": str(args.checkpoint), "step": step, "lines": args.lines, **results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
