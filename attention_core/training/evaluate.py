"""Score a trained model on held-out text against counting baselines, on the very same masks.

    python -m attention_core.training.evaluate --checkpoint checkpoints/quran --corpus quran

prints one JSON object: top1, top5, n_masked for the model, and unigram_top1/top5 and bigram_top1/top5 for the
counting baselines. The default masks every held-out word in turn, one at a time (no sampling noise); with
--mode random, a share of the words (--rate) is masked at once, over --seeds draws. --test-set modern scores the
modern test set (never trained on) instead of the corpus's held-out lines; --targets common masks only the common
words a class's blanks hide (في، إلى، على، من، مع، أن، عن). --window 12 reads each held-out
line in consecutive pieces of 12 words, each alone (short text, as a class types it), instead of whole.
Only words are masked (punctuation and lone marks are read, never masked or guessed). A masked word outside the
model's output words counts as a miss for every method. A mixed corpus (quran,hadith) is scored on each part's
held-out lines separately.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass

import torch

from attention_core.models.checkpoint import CheckpointError, load_checkpoint
from attention_core.models.encoder import MaskedLanguageModel
from attention_core.training.baselines import BigramCounts
from attention_core.training.batches import Lexicon, encode_lines, pad
from attention_core.training.corpora import Corpus, CorpusError, load_corpus
from attention_core.training.test_set import COMMON, modern_test_corpus


class StopRequested(Exception):  # noqa: N818 (control flow: Stop was pressed, nothing went wrong)
    """Raised inside a long loop (an evaluation, reading a corpus) when the caller's should_stop() says so."""


@dataclass(frozen=True)
class MaskSet:
    """Masked copies of held-out sequences: inputs (with [MASK]), where, and the original ids."""

    inputs: list[list[int]]
    positions: list[list[int]]
    targets: list[list[int]]


def maskable(lexicon: Lexicon, targets: frozenset[str] | None = None) -> list[bool]:
    """Per token id, True for a word a [MASK] may hide: not punctuation, not a lone mark, not a special (a
    vocabulary built before lone tatweels were marks lists their empty form among its words: never a target);
    with `targets` (normalised words), only those."""
    never = set(lexicon.vocabulary.never_guessed)
    wanted = None if targets is None else {lexicon.index[word] for word in targets if word in lexicon.index}
    return [is_word and i not in never and (wanted is None or i in wanted) for i, is_word in enumerate(lexicon.is_word)]


def word_windows(sequences: list[list[int]], is_word: list[bool], words: int) -> list[list[int]]:
    """Each [CLS]-led sequence cut into consecutive windows of `words` words (the marks between them ride along),
    each with its own [CLS]; a sequence of fewer words is one window."""
    windows = []
    for cls, *tokens in sequences:
        window: list[int] = []
        n_words = 0
        for token in tokens:
            if is_word[token] and n_words == words:
                windows.append([cls, *window])
                window, n_words = [], 0
            window.append(token)
            n_words += is_word[token]
        if window:
            windows.append([cls, *window])
    return windows


def every_word_masks(sequences: list[list[int]], mask_id: int, is_word: list[bool]) -> MaskSet:
    inputs, positions, targets = [], [], []
    for sequence in sequences:
        for p in range(1, len(sequence)):  # position 0 is [CLS]
            if not is_word[sequence[p]]:
                continue
            inputs.append([*sequence[:p], mask_id, *sequence[p + 1 :]])
            positions.append([p])
            targets.append([sequence[p]])
    return MaskSet(inputs, positions, targets)


def random_masks(sequences: list[list[int]], mask_id: int, is_word: list[bool], rate: float, seed: int) -> MaskSet:
    generator = torch.Generator().manual_seed(seed)
    inputs, positions, targets = [], [], []
    for sequence in sequences:
        draws = torch.rand(len(sequence), generator=generator).tolist()
        chosen = [p for p in range(1, len(sequence)) if draws[p] < rate and is_word[sequence[p]]]
        if chosen:
            inputs.append([mask_id if p in chosen else t for p, t in enumerate(sequence)])
            positions.append(chosen)
            targets.append([sequence[p] for p in chosen])
    return MaskSet(inputs, positions, targets)


def _hits(top5: list[int], target: int, n_output: int) -> tuple[int, int]:
    if target >= n_output:  # not a word the model can guess: a miss for every method
        return 0, 0
    return int(top5[0] == target), int(target in top5)


def _top5(scores: torch.Tensor) -> list[int]:
    return torch.topk(scores, 5).indices.tolist()


@torch.no_grad()
def model_top5(
    model: MaskedLanguageModel,
    masks: MaskSet,
    lexicon: Lexicon,
    batch_size: int = 256,
    should_stop: Callable[[], bool] | None = None,
) -> list[torch.Tensor]:
    """Per masked sequence, (its masked positions, 5) the model's five best words, in the order of masks'
    positions. Only the top five are kept: every score of 100,000 hadith masks would be 10 GB.
    Raises StopRequested between batches once should_stop() is true."""
    model.eval()
    order = sorted(range(len(masks.inputs)), key=lambda i: len(masks.inputs[i]))
    out: dict[int, torch.Tensor] = {}
    for start in range(0, len(order), batch_size):
        if should_stop is not None and should_stop():
            raise StopRequested
        rows = order[start : start + batch_size]
        ids = pad([masks.inputs[i] for i in rows])
        where = torch.zeros_like(ids, dtype=torch.bool)
        for r, i in enumerate(rows):
            where[r, masks.positions[i]] = True
        logits = model(lexicon.pieces_of(ids), predict_at=where).logits
        logits[:, list(lexicon.vocabulary.never_guessed)] = float("-inf")  # specials, lone marks: never an answer
        chunks = torch.topk(logits, 5).indices.split([len(masks.positions[i]) for i in rows])
        out.update(zip(rows, chunks, strict=True))
    return [out[i] for i in range(len(masks.inputs))]


def score_masks(
    model: MaskedLanguageModel,
    lexicon: Lexicon,
    counts: BigramCounts,
    masks: MaskSet,
    should_stop: Callable[[], bool] | None = None,
) -> dict:
    totals = dict.fromkeys(["top1", "top5", "unigram_top1", "unigram_top5", "bigram_top1", "bigram_top5"], 0)
    n_masked = 0
    never = torch.tensor(lexicon.vocabulary.never_guessed)  # no method answers with a special or a lone mark's ''
    unigram_top5 = _top5(counts.unigram_scores().index_fill_(0, never, 0.0))
    # A stoppable evaluation checks between batches of 32 masked windows: a batch of 256-token hadith windows
    # is then well under a second (256 of them took several).
    batch_size = 256 if should_stop is None else 32
    for i, best in enumerate(model_top5(model, masks, lexicon, batch_size, should_stop)):
        sequence, chosen = masks.inputs[i], set(masks.positions[i])
        for j, (p, target) in enumerate(zip(masks.positions[i], masks.targets[i], strict=True)):
            n_masked += 1
            left = None if p - 1 in chosen else counts.context(sequence[p - 1])
            right = (
                counts.end if p + 1 == len(sequence) else (None if p + 1 in chosen else counts.context(sequence[p + 1]))
            )
            for name, five in (
                ("", best[j].tolist()),
                ("unigram_", unigram_top5),
                ("bigram_", _top5(counts.bigram_scores(left, right).index_fill_(0, never, 0.0))),
            ):
                top1, top5 = _hits(five, target, lexicon.n_output)
                totals[name + "top1"] += top1
                totals[name + "top5"] += top5
    return {**{k: v / max(n_masked, 1) for k, v in totals.items()}, "n_masked": n_masked}


def evaluate(
    model: MaskedLanguageModel,
    lexicon: Lexicon,
    corpus: Corpus,
    *,
    mode: str = "every-word",
    rate: float = 0.15,
    seeds: int = 3,
    max_lines: int | None = None,
    window: int | None = None,
    targets: frozenset[str] | None = None,
    counts: BigramCounts | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> dict:
    """Held-out masked-word accuracy of the model and of both counting baselines, on the same masks. For a mixed
    corpus, the top-level numbers pool every part's masks and `parts` holds each part's own. With `window`, each
    held-out line is read in consecutive windows of that many words, each alone (word_windows). With `targets`
    (normalised words), only those are masked.
    Raises StopRequested as soon as should_stop() is true (the trainer's Stop must not wait for a long score)."""
    max_len = model.config.max_len
    if counts is None:
        counts = train_counts(lexicon, corpus, max_len)
    if corpus.parts:
        parts = {
            part.name: evaluate(
                model,
                lexicon,
                part,
                mode=mode,
                rate=rate,
                seeds=seeds,
                max_lines=max_lines,
                window=window,
                targets=targets,
                counts=counts,
                should_stop=should_stop,
            )
            for part in corpus.parts
        }
        n = sum(r["n_masked"] for r in parts.values())
        pooled = {k: sum(r[k] * r["n_masked"] for r in parts.values()) / max(n, 1) for k in _SCORES}
        return {"corpus": corpus.name, "mode": mode, **pooled, "n_masked": n, "parts": parts}
    lines = corpus.held_out[:max_lines]
    if window is None:
        held_out = encode_lines(lines, lexicon, max_len)
    else:  # whole lines first (a window never straddles the model's 256-token cut), then the windows
        whole = encode_lines(lines, lexicon, max_len=sys.maxsize)
        held_out = word_windows(whole, maskable(lexicon), window)
    is_word = maskable(lexicon, targets)  # after encoding: the held-out lines may have added ids
    if mode == "every-word":
        masks = every_word_masks(held_out, lexicon.vocabulary.mask_id, is_word)
        result = score_masks(model, lexicon, counts, masks, should_stop)
    elif mode == "random":
        runs = [
            score_masks(
                model,
                lexicon,
                counts,
                random_masks(held_out, lexicon.vocabulary.mask_id, is_word, rate, s),
                should_stop,
            )
            for s in range(seeds)
        ]
        result = {k: sum(r[k] for r in runs) / len(runs) for k in runs[0]}
        result["n_masked"] = sum(r["n_masked"] for r in runs)
    else:
        raise ValueError(f"mode must be 'every-word' or 'random', got {mode!r}")
    read = {"window": window, "n_read": len(held_out)} if window else {"n_read": len(held_out)}
    return {"corpus": corpus.name, "mode": mode, **read, **result}


_SCORES = ("top1", "top5", "unigram_top1", "unigram_top5", "bigram_top1", "bigram_top5")


def train_counts(lexicon: Lexicon, corpus: Corpus, max_len: int) -> BigramCounts:
    """The counting baselines, estimated on the training lines (each once, however a mix weights them)."""
    sequences = encode_lines(corpus.train, lexicon, max_len)
    return BigramCounts(sequences, len(lexicon), lexicon.vocabulary.n_special, lexicon.n_output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Held-out masked-word accuracy against counting baselines.")
    parser.add_argument(
        "--checkpoint", required=True, help="checkpoint folder written by attention_core.training.train"
    )
    parser.add_argument(
        "--corpus",
        default="quran,hadith",
        help="quran, hadith, a mix (quran,hadith: parts scored alone), or a text file",
    )
    parser.add_argument(
        "--mode",
        choices=["every-word", "random"],
        default="every-word",
        help="mask every held-out word in turn, or a random share at once",
    )
    parser.add_argument("--rate", type=float, default=0.15, help="share of words masked in random mode")
    parser.add_argument("--seeds", type=int, default=3, help="random draws in random mode")
    parser.add_argument("--max-lines", type=int, default=None, help="score only the first held-out lines")
    parser.add_argument(
        "--window", type=int, default=None, help="read each held-out line in windows of this many words, each alone"
    )
    parser.add_argument(
        "--test-set",
        choices=["modern"],
        default=None,
        help="score the modern test set (never trained on) instead of the corpus's held-out lines",
    )
    parser.add_argument(
        "--targets", choices=["every", "common"], default="every", help="mask every word, or only the common ones"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    try:
        model, vocabulary, _ = load_checkpoint(args.checkpoint)
        corpus = load_corpus(args.corpus)
    except (CheckpointError, CorpusError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.test_set == "modern":
        corpus = modern_test_corpus(corpus)
    result = evaluate(
        model,
        Lexicon(vocabulary),
        corpus,
        mode=args.mode,
        rate=args.rate,
        seeds=args.seeds,
        max_lines=args.max_lines,
        window=args.window,
        targets=COMMON if args.targets == "common" else None,
    )
    print(json.dumps(_rounded(result), ensure_ascii=False))
    return 0


def _rounded(result: dict) -> dict:
    return {
        k: _rounded(v) if isinstance(v, dict) else round(v, 4) if isinstance(v, float) else v for k, v in result.items()
    }


if __name__ == "__main__":
    sys.exit(main())
