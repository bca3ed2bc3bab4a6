"""The shipped Arabic model on the modern test set's nouns (issue 34): every noun or adjective recognised by its form
(the article ال, or the ending ة: attention_core/training/test_set.NOUN_FORM) masked in turn, against the left+right
bigram on the same masks; and how many of those hidden words the model could never guess (not among its output
words), which bounds what letting it spell a new word from its pieces could add.

    python -m bench.arabic_nouns [--checkpoint attention_core/shipped/arabic] [--write-scores]

--write-scores adds the reading to the checkpoint's scores.json ("modern_test" → "nouns"), which the Fill the blank
page reads; bench/arabic_model_report.py measures the same reading when it is run whole.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import torch

from attention_core.models.checkpoint import load_checkpoint
from attention_core.models.trained import SHIPPED
from attention_core.story.text import tokenize
from attention_core.training.batches import Lexicon
from attention_core.training.corpora import SHIPPED_MIX, load_corpus, modern_test_lines
from attention_core.training.evaluate import evaluate, train_counts
from attention_core.training.test_set import is_noun_form, modern_test_corpus
from bench.arabic_model_report import MODERN_KEPT, MODERN_READINGS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=SHIPPED)
    parser.add_argument("--corpus", default=SHIPPED_MIX, help="the checkpoint's training mix (the bigram counts it)")
    parser.add_argument("--write-scores", action="store_true", help="add the reading to the checkpoint's scores.json")
    args = parser.parse_args()
    torch.manual_seed(0)
    model, vocabulary, _ = load_checkpoint(args.checkpoint)
    lexicon = Lexicon(vocabulary)
    corpus = load_corpus(args.corpus)
    counts = train_counts(lexicon, corpus, model.config.max_len)
    test = modern_test_corpus(corpus)
    lines = modern_test_lines()
    readings = {  # the report's readings of the test set, nouns first
        name: evaluate(model, lexicon, test, counts=counts, **MODERN_READINGS[name])
        for name in ("nouns", "common words", "every word")
    }
    words = [t.norm for line in lines for t in tokenize(line) if t.is_word]
    nouns = Counter(w for w in words if is_noun_form(w))
    unknown = sum(n for w, n in nouns.items() if w not in vocabulary.index)
    print(f"modern test set: {len(lines)} sentences, {len(words)} words, {sum(nouns.values())} nouns by form")
    print(f"{'reading':13} {'masks':>6} {'top-1':>7} {'top-5':>7} {'bigram top-1':>13} {'bigram top-5':>13}")
    for name, r in readings.items():
        print(
            f"{name:13} {r['n_masked']:6} {r['top1']:7.1%} {r['top5']:7.1%} {r['bigram_top1']:13.1%} "
            f"{r['bigram_top5']:13.1%}"
        )
    total = sum(nouns.values())
    print(
        f"hidden nouns the model can never guess (not among its {len(vocabulary):,} words): {unknown} of {total} "
        f"({unknown / total:.1%}); the most frequent: "
        + ", ".join(w for w, _ in Counter({w: n for w, n in nouns.items() if w not in vocabulary.index}).most_common(8))
    )
    if args.write_scores:
        path = args.checkpoint / "scores.json"
        scores = json.loads(path.read_text(encoding="utf-8"))
        scores.setdefault("modern_test", {})["nouns"] = {k: readings["nouns"][k] for k in MODERN_KEPT} | {
            "never_guessable": unknown / total
        }
        path.write_text(json.dumps(scores, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
