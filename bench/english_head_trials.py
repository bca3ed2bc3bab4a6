"""Side trials of issue 34 (docs/english-guessing.md), on 6,000 training lines and the everyday test set (one word in
seven hidden, seeded): (1) a head on MiniLM's layers 3, 4, 5 and 6, frozen; (2) MiniLM's last layer unfrozen and
trained with the head, scored after each epoch. Whether a deeper reading or a trainable layer would lift the guesses.

    python -m bench.english_head_trials [--epochs 4]
"""

from __future__ import annotations

import argparse
import copy
from collections import defaultdict

import torch
from torch.nn import functional as F

from attention_core.models.english_guesser import GuessHead, guessable_ids, piece_vocabulary
from attention_core.models.pretrained import load_minilm
from attention_core.training.english_head import Blanks, hide_words, scores, train_head, training_lines
from attention_core.training.english_text import everyday_test_lines

LINES = 6000


def batches(model, blanks: Blanks, size: int = 32) -> list[tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]]:
    """Sentences of one length together: (every depth's states, (row, place) of each blank, the hidden pieces)."""
    by_length: dict[int, list[int]] = defaultdict(list)
    for k, ids in enumerate(blanks.ids):
        by_length[len(ids)].append(k)
    found = []
    with torch.no_grad():
        for indices in by_length.values():
            for start in range(0, len(indices), size):
                chunk = indices[start : start + size]
                states = list(model.model(torch.tensor([blanks.ids[k] for k in chunk])).hidden_states)
                where = torch.tensor([(row, p) for row, k in enumerate(chunk) for p in blanks.places[k]])
                answers = torch.tensor([a for k in chunk for a in blanks.answers[k]])
                found.append((states, where, answers))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4, help="epochs of the unfrozen-layer trial")
    args = parser.parse_args()
    torch.manual_seed(0)
    minilm = load_minilm()
    guessable = guessable_ids(piece_vocabulary(minilm))
    words = minilm.model.word_embeddings.weight.detach()
    lines, _ = training_lines(["everyday", "wordnet", "devil"], LINES, 0)
    train = batches(minilm, hide_words(minilm, lines, guessable, 0))
    test = batches(minilm, hide_words(minilm, everyday_test_lines(), guessable, 5))

    def at_depth(data: list, depth: int) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[type-arg]
        vectors = torch.cat([states[depth][where[:, 0], where[:, 1]] for states, where, _ in data])
        return vectors, torch.cat([answers for _, _, answers in data])

    for depth in (3, 4, 5, 6):
        head = GuessHead(384, len(guessable))
        train_head(head, words, guessable, at_depth(train, depth), epochs=15, lr=1e-2, log=False)
        result = scores(head, words, guessable, at_depth(test, depth))
        print(f"frozen, a head on layer {depth}: everyday top-1 {result['top1']:.1%}, top-5 {result['top5']:.1%}")
    layer, head = copy.deepcopy(minilm.model.blocks[5]), GuessHead(384, len(guessable))
    groups = [{"params": layer.parameters(), "lr": 5e-5}, {"params": head.parameters(), "lr": 1e-2}]
    optimizer = torch.optim.AdamW(groups, weight_decay=0.01)

    def logits(states: list[torch.Tensor], where: torch.Tensor) -> torch.Tensor:
        out = layer(states[5], False, None, "zero")[0]
        return head(out[where[:, 0], where[:, 1]], words).masked_fill(~guessable, float("-inf"))

    for epoch in range(args.epochs):
        layer.train()
        total = 0.0
        for k in torch.randperm(len(train)).tolist():
            states, where, answers = train[k]
            loss = F.cross_entropy(logits(states, where), answers)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        layer.eval()
        with torch.no_grad():
            hits = sum(int((logits(s, w).argmax(-1) == a).sum()) for s, w, a in test)
            n = sum(len(a) for _, _, a in test)
        loss_now = total / len(train)
        print(f"last layer unfrozen, epoch {epoch + 1}: training loss {loss_now:.3f}, everyday top-1 {hits / n:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
