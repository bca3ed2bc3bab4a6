"""Which word-piece algorithm the Arabic model reads by: WordPiece, BPE and Unigram measured side by side.

    python -m bench.word_pieces_choice            # prints a markdown table and one JSON object

Each algorithm (Hugging Face `tokenizers`) learns 16,000 pieces from the normalised words of the shipped model's
training text (Qurʾān + hadith, training lines only; each word shown min(count, 50) times, as
attention_core.models.piece_tokenizer does). Measured on the held-out lines of each corpus and on the everyday
sentences of bench/everyday_arabic.txt: pieces per word, the share of words kept whole (one piece), the share with an
[UNK] piece, and how a few everyday words split. Fewer pieces per word and more whole words mean the model's word
vectors rest on larger, more meaningful parts; [UNK] must stay near zero.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Iterable

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from attention_core.models.piece_tokenizer import SPECIALS, UNK
from attention_core.story.text import tokenize
from attention_core.training.corpora import load_corpus
from bench.everyday_arabic import read_sentences

SIZE = 16_000
SHOWN = ("المدرسة", "الطالبة", "مجتهدون", "السيارة", "الحاسوب", "يدرسون")


def word_counts(lines: Iterable[str]) -> Counter[str]:
    return Counter(t.norm for line in lines for t in tokenize(line) if t.is_word)


def trained(kind: str, counts: Counter[str]) -> Tokenizer:
    if kind == "WordPiece":
        tokenizer = Tokenizer(models.WordPiece(unk_token=UNK, max_input_chars_per_word=100))
        trainer = trainers.WordPieceTrainer(vocab_size=SIZE, special_tokens=list(SPECIALS), min_frequency=2)
    elif kind == "BPE":
        tokenizer = Tokenizer(models.BPE(unk_token=UNK))
        trainer = trainers.BpeTrainer(vocab_size=SIZE, special_tokens=list(SPECIALS), min_frequency=2)
    else:
        tokenizer = Tokenizer(models.Unigram())
        trainer = trainers.UnigramTrainer(vocab_size=SIZE, special_tokens=list(SPECIALS), unk_token=UNK)
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    occurrences = (w for word, c in counts.items() for w in (word,) * min(c, 50))
    tokenizer.train_from_iterator(occurrences, trainer)
    return tokenizer


def measure(tokenizer: Tokenizer, counts: Counter[str]) -> dict[str, float]:
    """Over every word occurrence: pieces per word, share kept whole, share with an [UNK] piece."""
    unk = tokenizer.token_to_id(UNK)
    pieces = whole = unknown = total = 0
    for word, count in counts.items():
        ids = tokenizer.encode(word).ids
        pieces += len(ids) * count
        whole += (len(ids) == 1) * count
        unknown += (unk in ids) * count
        total += count
    return {"pieces_per_word": pieces / total, "whole": whole / total, "unknown": unknown / total}


def main() -> int:
    corpus = load_corpus("quran,hadith")
    train = word_counts(corpus.train)
    tests = {part.name + " held-out": word_counts(part.held_out) for part in corpus.parts}
    tests["everyday"] = word_counts(read_sentences())
    results: dict[str, dict] = {}
    for kind in ("WordPiece", "BPE", "Unigram"):
        started = time.monotonic()
        tokenizer = trained(kind, train)
        seconds = time.monotonic() - started
        results[kind] = {
            "train_s": round(seconds, 1),
            **{name: measure(tokenizer, c) for name, c in tests.items()},
            "splits": {w: tokenizer.encode(w).tokens for w in SHOWN},
        }
    header = "| algorithm | learned in | " + " | ".join(f"{name}: pieces/word, whole, [UNK]" for name in tests) + " |"
    print(header + "\n|---|---|" + "---|" * len(tests))
    for kind, r in results.items():
        cells = " | ".join(f"{r[n]['pieces_per_word']:.2f}, {r[n]['whole']:.0%}, {r[n]['unknown']:.1%}" for n in tests)
        print(f"| {kind} | {r['train_s']} s | {cells} |")
    print("\n| word | " + " | ".join(results) + " |\n|---|" + "---|" * len(results))
    for word in SHOWN:
        print(f"| {word} | " + " | ".join(" ".join(r["splits"][word]) for r in results.values()) + " |")
    print(json.dumps(results, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
