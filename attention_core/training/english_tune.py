"""Retrain MiniLM to guess hidden English words: its six layers and the [MASK] piece's vector learn with BERT's
masked-word head (attention_core/models/english_guesser.py); every other word-piece vector stays MiniLM's own (the
head's tied output, and what the tokenizer's pieces mean).

    python -m attention_core.training.english_tune --minutes 60 --out attention_core/shipped/english

Why retrain, not only a head on the frozen MiniLM: MiniLM was distilled for sentence similarity and never read a
[MASK], so its frozen vectors at a blank say little about the word hidden there (docs/english-guessing.md: a head
alone reached 0.5 % on hidden content words). Each epoch reads the everyday sentences once and the next slice of
WordNet's glosses and examples (half as many lines), each line with about one whole one-piece word in seven hidden
anew; sentences of equal length share a batch (no padding, which BertEncoder does not mask). AdamW; the learning
rate warms up over the first 3 % of the time and falls linearly to zero at the end. Seeded: the same command on the
same machine reads the same batches (how many fit in the minutes depends on the machine; --steps fixes it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import torch
from torch.nn import functional as F

from attention_core.models.english_guesser import (
    HEAD_FOLDER,
    GuessHead,
    GuessingMiniLM,
    guessable_ids,
    piece_vocabulary,
    save_guesser,
)
from attention_core.models.pretrained import load_minilm
from attention_core.training.english_head import MASK_ID, Blanks, blank_vectors, hide_words, scores
from attention_core.training.english_text import english_source

BATCH = 32
WARMUP = 0.03  # of the run


def epoch_lines(everyday: Sequence[str], wordnet: Sequence[str], epoch: int) -> list[str]:
    """One epoch's lines: every everyday line, then the epoch's slice of WordNet's (half as many, in turn)."""
    size = len(everyday) // 2
    start = (epoch * size) % max(1, len(wordnet))
    return [*everyday, *wordnet[start : start + size]]


def length_batches(blanks: Blanks, seed: int, size: int = BATCH) -> list[list[int]]:
    """Indices of blanks.ids in batches of sentences of one length, the batches in a seeded order."""
    by_length: dict[int, list[int]] = defaultdict(list)
    for k, ids in enumerate(blanks.ids):
        by_length[len(ids)].append(k)
    batches = [group[i : i + size] for group in by_length.values() for i in range(0, len(group), size)]
    random.Random(seed).shuffle(batches)
    return batches


def rate_at(progress: float) -> float:
    """The learning rate's share of its peak at this point of the run (0 → 1)."""
    return min(1.0, progress / WARMUP) if progress < WARMUP else max(0.0, (1 - progress) / (1 - WARMUP))


def loss_on(guesser: GuessingMiniLM, blanks: Blanks, batch: list[int], guessable: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the head's guesses at every blank of the batch (whole words only)."""
    ids = torch.tensor([blanks.ids[k] for k in batch])
    where = torch.tensor([(row, p) for row, k in enumerate(batch) for p in blanks.places[k]])
    answers = torch.tensor([a for k in batch for a in blanks.answers[k]])
    final = guesser.model(ids).hidden_states[-1][where[:, 0], where[:, 1]]
    logits = guesser.head(final, guesser.model.word_embeddings.weight).masked_fill(~guessable, float("-inf"))
    return F.cross_entropy(logits, answers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HEAD_FOLDER, help="the folder for the retrained weights and card")
    parser.add_argument("--minutes", type=float, default=60.0, help="time budget (ignored with --steps)")
    parser.add_argument("--steps", type=int, help="step budget instead of minutes")
    parser.add_argument("--lr", type=float, default=1e-4, help="the layers' peak learning rate")
    parser.add_argument("--head-lr", type=float, default=2e-3, help="the head's peak learning rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, help="torch threads (default: all cores)")
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    minilm = load_minilm()
    config = minilm.model.config
    guesser = GuessingMiniLM(minilm, GuessHead(config.d_model, config.vocab_size, eps=config.eps))
    guessable = guessable_ids(piece_vocabulary(minilm))
    everyday, wordnet = english_source("everyday"), english_source("wordnet")
    shuffled_wordnet = list(wordnet.train)
    random.Random(args.seed).shuffle(shuffled_wordnet)
    held_out = hide_words(minilm, list(everyday.held_out), guessable, args.seed + 100)
    # Only the [MASK] row of the word-piece table learns: the others are the head's output and the pieces' meaning.
    words = minilm.model.word_embeddings.weight
    only_mask = torch.zeros(config.vocab_size, 1)
    only_mask[MASK_ID] = 1.0
    words.register_hook(lambda grad: grad * only_mask)
    layers = [p for name, p in minilm.model.named_parameters() if name != "word_embeddings.weight"]
    groups = [
        {"params": layers, "lr": args.lr, "weight_decay": 0.01},
        {"params": [words], "lr": args.lr, "weight_decay": 0.0},  # no decay: it would move every frozen row
        {"params": list(guesser.head.parameters()), "lr": args.head_lr, "weight_decay": 0.01},
    ]
    peaks = [group["lr"] for group in groups]
    optimizer = torch.optim.AdamW(groups)
    started, step, epoch, losses = time.time(), 0, 0, []
    budget = args.minutes * 60

    def progress() -> float:
        return step / args.steps if args.steps else (time.time() - started) / budget

    print(f"{len(everyday.train):,} everyday lines a pass, {len(shuffled_wordnet):,} WordNet lines in turn", flush=True)
    while progress() < 1:
        blanks = hide_words(minilm, epoch_lines(everyday.train, shuffled_wordnet, epoch), guessable, args.seed + epoch)
        minilm.model.train()
        guesser.head.train()
        total, count = 0.0, 0
        for batch in length_batches(blanks, args.seed + epoch):
            share = rate_at(progress())
            for group, peak in zip(optimizer.param_groups, peaks, strict=True):
                group["lr"] = peak * share
            loss = loss_on(guesser, blanks, batch, guessable)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step, total, count = step + 1, total + loss.item(), count + 1
            if step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {total / count:.3f} {time.time() - started:.0f} s", flush=True)
            if progress() >= 1:
                break
        losses.append(round(total / max(1, count), 4))
        epoch += 1
    minilm.model.eval()
    guesser.head.eval()
    with torch.no_grad():  # the held-out everyday lines, scored as the head alone is (english_head.scores)
        held = scores(guesser.head, words.detach(), guessable, blank_vectors(minilm, held_out))
    seconds = time.time() - started
    print(f"held-out everyday lines: top-1 {held['top1']:.1%}, top-5 {held['top5']:.1%}; {step} steps, {seconds:.0f} s")
    card = {
        "made_by": " ".join(["python -m attention_core.training.english_tune", *argv]),
        "retrained": "MiniLM's six layers and its [MASK] vector, with the head",
        "sources": ["everyday", "wordnet"],
        "everyday_lines": len(everyday.train),
        "steps": step,
        "epochs": epoch,
        "lr": args.lr,
        "head_lr": args.head_lr,
        "seed": args.seed,
        "losses": losses,
        "held_out": held,
        "seconds": round(seconds),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }
    save_guesser(guesser, args.out, card)
    print(f"saved to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
