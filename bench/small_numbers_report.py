"""The numbers behind issue 23's points 3–5, as docs/heads-apart.md, docs/english-model.md and
docs/minimal-pairs.md quote them: what Rank every head measures on MiniLM (1 − cosine against the angle), Word
order's difference on *the dog bit the man*, the emoji's [UNK] similarities before and after the zero rule, and the
head each minimal pair follows.

    python -m bench.small_numbers_report > docs/runs/small_numbers.txt
"""

from __future__ import annotations

import argparse

import torch

from attention_core.figures.numbers import number_format, written
from attention_core.models.head_importance import final_states_one_head_out, head_importance
from attention_core.models.pretrained import load_minilm
from attention_core.models.word_pieces import shown_attention
from attention_core.readings.minimal_pairs import compare
from attention_core.story.attention import attend, similarity
from attention_core.story.text import tokenize
from attention_core.story.word_order import shuffle_effect, swapped_order

RANKED = "The cat is on the mat"
SWAPPED = "the dog bit the man"
EMOJI = "I love 🍕 and 🐱 so much 😊👍🏽"
PAIRS = [
    (
        "The animal didn't cross the street because it was too tired",
        "The animal didn't cross the street because it was too wide",
    ),
    (
        "The trophy didn't fit in the suitcase because it was too big",
        "The trophy didn't fit in the suitcase because it was too small",
    ),
    ("The dog chased the cat", "The cat chased the dog"),
]


def rank(model: object) -> None:
    tokens = tokenize(RANKED)
    whole, knocked = final_states_one_head_out(model, tokens)  # type: ignore[arg-type]
    cosine = torch.nn.functional.cosine_similarity(knocked.double().mean(2), whole.double().mean(0), dim=-1)
    degrees = head_importance(model, tokens).scores  # type: ignore[arg-type]
    print(f"## Rank every head on MiniLM, {RANKED!r}")
    for name, values in (("1 − cosine", 1 - cosine), ("angle (degrees)", degrees.double())):
        low, top = values[:5], values[5]
        print(
            f"{name}: layers 1–5 {float(low.min()):.5f} to {float(low.max()):.5f}; layer 6 up to {float(top.max()):.5f}"
        )
    same = torch.equal(torch.argsort((1 - cosine).flatten()), torch.argsort(degrees.flatten()))
    print(f"same ranking: {same}")


def word_order(model: object) -> None:
    tokens = tokenize(SWAPPED)
    order = swapped_order(len(tokens), 1, 4)
    print(f"\n## Word order on MiniLM, {SWAPPED!r}, dog ↔ man")
    for use_position in (True, False):
        typed = model.sentence(tokens, use_position)  # type: ignore[attr-defined]
        moved = model.sentence([tokens[i] for i in order], use_position)  # type: ignore[attr-defined]
        effect = shuffle_effect(attend(typed.V).scores, attend(moved.V).scores, order)
        spec = number_format(effect.difference)
        top = float(effect.original.abs().max())
        print(
            f"positions {use_position}: largest change {effect.largest_change:.6f} (written {spec}: "
            f"{written(effect.largest_change, spec)}), largest score as typed {top:.4f}, "
            f"share {100 * effect.largest_change / top:.2f} %"
        )


def emoji(model: object) -> None:
    tokens = tokenize(EMOJI)
    sentence = model.sentence(tokens)  # type: ignore[attr-defined]
    unknown = [i for i, ok in enumerate(sentence.known) if not ok]
    known = [i for i, ok in enumerate(sentence.known) if ok]
    # Every word of this sentence is one piece, so its position vector is the table's row for its place.
    positions = model.model.position_embeddings.weight[1 : len(tokens) + 1].detach()  # type: ignore[attr-defined]
    trained_unk = model.model.word_embeddings.weight[model.unk_id].detach()  # type: ignore[attr-defined]
    words = model.sentence(tokens, use_position=False).words  # type: ignore[attr-defined]
    rules = {
        "[UNK] as the model's trained vector": words + positions,
        "[UNK]'s word vector zero, its position kept": words + positions,
        "the unread word's whole row zero (the rule)": sentence.V,
    }
    rules["[UNK] as the model's trained vector"][unknown] += trained_unk
    print(f"\n## V·Vᵀ on MiniLM (with positions), {EMOJI!r}; unknown: {[sentence.labels[i] for i in unknown]}")
    for name, V in rules.items():
        for metric in ("dot", "cosine"):
            S = similarity(V, metric)
            off = S[unknown][:, unknown][~torch.eye(len(unknown), dtype=torch.bool)]
            real = S[known][:, known][~torch.eye(len(known), dtype=torch.bool)]
            row, column = divmod(int(S.argmax()), S.shape[1])
            print(
                f"{name}, {metric}: unknown pairs {float(off.min()):.2f}–{float(off.max()):.2f}; pairs of real "
                f"words {float(real.min()):.2f}–{float(real.max()):.2f}; largest value {float(S.max()):.2f} at "
                f"{sentence.labels[row]}·{sentence.labels[column]}"
            )


def pairs(model: object) -> None:
    print("\n## The head each minimal pair follows on MiniLM (largest |B − A| on the shared words' rows)")
    for a_text, b_text in PAIRS:
        a, b = model.analyze(tokenize(a_text)), model.analyze(tokenize(b_text))  # type: ignore[attr-defined]
        shown = [shown_attention(x.weights, x.labels, x.known, x.pieces, show_special=True) for x in (a, b)]
        change = compare(shown[0].weights, list(shown[0].labels), shown[1].weights, list(shown[1].labels)).head_change
        flat = int(change.argmax())
        print(f"{a_text} / …{b_text.split()[-1]}: L{flat // 12 + 1} H{flat % 12 + 1} ({float(change.max()):.2f})")


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    model = load_minilm()
    rank(model)
    word_order(model)
    emoji(model)
    pairs(model)


if __name__ == "__main__":
    main()
