"""Train MiniLM's word-guessing head (attention_core/models/english_guesser.py) on English text, MiniLM frozen.

    python -m attention_core.training.english_head --out attention_core/shipped/english

Each training sentence hides about one word in seven (at least one), each a whole word MiniLM reads as one piece
(the guess is one piece), always as [MASK], as a user types it. MiniLM is frozen, so its final vector at each blank
is computed once (sentences of equal length in one batch: no padding, which BertEncoder does not mask); the head
then trains on those vectors for a few epochs (AdamW, cross-entropy over the whole words only). Seeded: the same
command gives the same head on the same machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch.nn import functional as F

from attention_core.models.english_guesser import HEAD_FOLDER, GuessHead, guessable_ids, piece_vocabulary, save_head
from attention_core.models.pretrained import PretrainedModel, load_minilm
from attention_core.story.text import tokenize
from attention_core.training.english_text import SOURCES, english_source

MASK_ID = 103  # BERT's [MASK] piece
HIDE_RATE = 1 / 7  # of a sentence's whole one-piece words, at least one


@dataclass(frozen=True)
class Blanks:
    """Sentences as MiniLM's piece ids with some whole words hidden: ids (one list a sentence), the hidden places,
    and the pieces that were there."""

    ids: list[list[int]]
    places: list[list[int]]
    answers: list[list[int]]


def whole_words(model: PretrainedModel, text: str, guessable: torch.Tensor) -> tuple[list[int], list[int]]:
    """(the sentence's piece ids with [CLS] and [SEP], the places of the words read as one guessable piece)."""
    reading = model._read(tokenize(text))
    return reading.ids, whole_word_places(reading.ids, reading.words, guessable)


def whole_word_places(ids: list[int], words: list[int | None], guessable: torch.Tensor) -> list[int]:
    """The places of a reading's pieces that are a whole typed word alone and a guessable piece (`words`: the typed
    word of each piece, None for [CLS] and [SEP])."""
    return [
        p
        for p in range(1, len(ids) - 1)
        if words[p] is not None and words[p - 1] != words[p] != words[p + 1] and bool(guessable[ids[p]])
    ]


def hide_words(model: PretrainedModel, lines: Sequence[str], guessable: torch.Tensor, seed: int) -> Blanks:
    """Each line with about HIDE_RATE of its one-piece words hidden (lines without one are left out)."""
    rng = random.Random(seed)
    blanks = Blanks([], [], [])
    for line in lines:
        ids, places = whole_words(model, line, guessable)
        if not places or len(ids) > model.model.config.max_len:
            continue
        hidden = sorted(rng.sample(places, max(1, round(len(places) * HIDE_RATE))))
        blanks.ids.append([MASK_ID if p in hidden else i for p, i in enumerate(ids)])
        blanks.places.append(hidden)
        blanks.answers.append([ids[p] for p in hidden])
    return blanks


@torch.no_grad()
def states_at(
    model: PretrainedModel, ids: Sequence[Sequence[int]], places: Sequence[Sequence[int]], batch: int = 64
) -> torch.Tensor:
    """(N, d) MiniLM's final vectors at `places` of each sentence of piece `ids`, in the order given. Sentences of one
    length run together, so no padding is needed (BertEncoder masks none)."""
    by_length: dict[int, list[int]] = defaultdict(list)
    for k, sentence in enumerate(ids):
        by_length[len(sentence)].append(k)
    found: list[torch.Tensor] = [torch.empty(0)] * len(ids)
    for indices in by_length.values():
        for start in range(0, len(indices), batch):
            chunk = indices[start : start + batch]
            final = model.model(torch.tensor([list(ids[k]) for k in chunk])).hidden_states[-1]
            for row, k in enumerate(chunk):
                found[k] = final[row, list(places[k])]
    return torch.cat(found)


def blank_vectors(model: PretrainedModel, blanks: Blanks, batch: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    """(N, d) MiniLM's final vector at every hidden word and (N,) the word's piece id."""
    answers = torch.tensor([answer for line in blanks.answers for answer in line])
    return states_at(model, blanks.ids, blanks.places, batch), answers


def top_k_hits(logits: torch.Tensor, answers: torch.Tensor, k: int) -> int:
    return int((logits.topk(k, dim=-1).indices == answers[:, None]).any(dim=-1).sum())


def train_head(
    head: GuessHead,
    word_vectors: torch.Tensor,
    guessable: torch.Tensor,
    train: tuple[torch.Tensor, torch.Tensor],
    *,
    epochs: int,
    batch: int = 256,
    lr: float = 2e-3,
    seed: int = 0,
    log: bool = True,
) -> list[float]:
    """The head trained on (vectors, answers) for `epochs`; returns each epoch's mean loss. Non-words are never a
    guess (their scores are −∞), so the softmax is over the whole words only."""
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=0.01)
    steps = epochs * -(-len(train[1]) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.1)
    never = ~guessable
    losses = []
    head.train()
    for epoch in range(epochs):
        order = torch.randperm(len(train[1]), generator=generator)
        total = 0.0
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            logits = head(train[0][chosen], word_vectors).masked_fill(never, float("-inf"))
            loss = F.cross_entropy(logits, train[1][chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(chosen)
        losses.append(total / len(order))
        if log:
            print(f"epoch {epoch + 1}/{epochs}: loss {losses[-1]:.3f}", flush=True)
    head.eval()
    return losses


@torch.no_grad()
def scores(
    head: GuessHead, word_vectors: torch.Tensor, guessable: torch.Tensor, data: tuple[torch.Tensor, torch.Tensor]
) -> dict[str, float]:
    logits = head(data[0], word_vectors).masked_fill(~guessable, float("-inf"))
    n = max(1, len(data[1]))
    return {"top1": top_k_hits(logits, data[1], 1) / n, "top5": top_k_hits(logits, data[1], 5) / n, "n": len(data[1])}


def training_lines(sources: Sequence[str], max_lines: int, seed: int) -> tuple[list[str], list[str]]:
    """(the training lines: every everyday line, the kind a student types, then the other sources' lines drawn
    (seeded) up to max_lines; held-out lines: the first 2,000 of each source's held-out lines)."""
    texts = [english_source(name) for name in sources]
    everyday = [line for text in texts if text.name == "everyday" for line in text.train]
    rest = [line for text in texts if text.name != "everyday" for line in text.train]
    random.Random(seed).shuffle(rest)
    held_out = [line for text in texts for line in text.held_out[:2000]]
    return everyday + rest[: max(0, max_lines - len(everyday))], held_out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HEAD_FOLDER, help="the folder for the head's weights and card")
    parser.add_argument("--sources", default=",".join(SOURCES), help="comma-separated: " + ", ".join(SOURCES))
    parser.add_argument("--max-lines", type=int, default=60_000, help="training lines drawn (seeded) from all sources")
    parser.add_argument("--repeats", type=int, default=2, help="times each line is hidden anew (other words)")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=2e-3, help="the head's peak learning rate")
    parser.add_argument(
        "--cache", type=Path, help="keep MiniLM's vectors at the blanks in this file, and read them from it next time"
    )
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    started = time.time()
    minilm = load_minilm()
    for parameter in minilm.model.parameters():
        parameter.requires_grad_(False)
    guessable = guessable_ids(piece_vocabulary(minilm))
    lines, held_out = training_lines(args.sources.split(","), args.max_lines, args.seed)
    print(f"{len(lines):,} training lines, {len(held_out):,} held-out lines; hiding words…", flush=True)
    if args.cache is not None and args.cache.is_file():  # MiniLM is frozen: its vectors at the blanks, kept
        cached = load_file(args.cache)
        train, test = (cached["train"], cached["train_answers"]), (cached["test"], cached["test_answers"])
    else:
        train_parts = [
            blank_vectors(minilm, hide_words(minilm, lines, guessable, args.seed + r)) for r in range(args.repeats)
        ]
        train = (torch.cat([p[0] for p in train_parts]), torch.cat([p[1] for p in train_parts]))
        test = blank_vectors(minilm, hide_words(minilm, held_out, guessable, args.seed + 100))
        if args.cache is not None:
            kept = {"train": train[0], "train_answers": train[1], "test": test[0], "test_answers": test[1]}
            save_file(kept, args.cache)  # safetensors: numbers only, nothing run when read back
    print(f"{len(train[1]):,} hidden words to learn from, {len(test[1]):,} held out ({time.time() - started:.0f} s)")
    config = minilm.model.config
    head = GuessHead(config.d_model, config.vocab_size, eps=config.eps)
    word_vectors = minilm.model.word_embeddings.weight.detach()
    losses = train_head(head, word_vectors, guessable, train, epochs=args.epochs, lr=args.lr, seed=args.seed)
    held = scores(head, word_vectors, guessable, test)
    seconds = time.time() - started
    print(f"held-out hidden words: top-1 {held['top1']:.1%}, top-5 {held['top5']:.1%} ({seconds:.0f} s in all)")
    card = {
        "made_by": " ".join(["python -m attention_core.training.english_head", *argv]),
        "sources": args.sources.split(","),
        "training_lines": len(lines),
        "hidden_words": len(train[1]),
        "epochs": args.epochs,
        "lr": args.lr,
        "seed": args.seed,
        "losses": [round(x, 4) for x in losses],
        "held_out": held,
        "seconds": round(seconds),
        "torch": torch.__version__,
    }
    save_head(head, args.out, card)
    print(f"saved to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
