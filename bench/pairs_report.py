"""The built-in minimal pairs measured on the models: each pair's alignment, the heads that changed most, the largest
change of each of those, and (masked-word model) the first guesses of both. docs/minimal-pairs.md quotes this.

    .venv/bin/python -m bench.pairs_report --out docs/runs/pairs_report.txt
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=3, help="heads listed per pair, most changed first")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    from attention_core import load_model
    from attention_core.models.pretrained import load_minilm
    from attention_core.models.word_pieces import shown_attention
    from attention_core.readings.minimal_pairs import compare, pair_guesses
    from attention_core.story.text import is_right_to_left, tokenize
    from ui.pairs.view import PAIRS

    arabic, english = load_model(), load_minilm()
    lines = ["Built-in minimal pairs (whole words, [CLS] and [SEP] shown, as the page opens)"]
    for name, (a_text, b_text) in PAIRS.items():
        model = arabic if is_right_to_left(a_text) else english
        a, b = model.analyze(tokenize(a_text)), model.analyze(tokenize(b_text))
        drawn = [shown_attention(x.weights, x.labels, x.known, x.pieces) for x in (a, b)]
        pair = compare(drawn[0].weights, drawn[0].labels, drawn[1].weights, drawn[1].labels)
        words = pair.alignment.labels
        lines += ["", f"## {name} — {model.name}", f"A: {a_text}", f"B: {b_text}"]
        lines.append(
            f"aligned: {' | '.join(words)}; only in A: {pair.alignment.only_a}; only in B: {pair.alignment.only_b}"
        )
        change = pair.head_change
        n_heads = change.shape[1]
        ranked = sorted(range(change.numel()), key=lambda i: -float(change.flatten()[i]))[: args.top]
        for i in ranked:
            layer, head = divmod(i, n_heads)
            row, column = pair.largest_change(layer, head)
            was, now = float(pair.a[layer, head, row, column]), float(pair.b[layer, head, row, column])
            lines.append(
                f"  L{layer + 1} H{head + 1}: largest |B − A| {float(change[layer, head]):.2f}, row {words[row]}, "
                f"column {words[column]}: {was:.2f} → {now:.2f}"
            )
        if model is arabic:
            changes = pair_guesses(arabic, a, b, 5)
            first_b = max(changes, key=lambda c: c.after)
            lines.append(
                f"  first guess in A: {changes[0].word} {changes[0].before:.2f} (in B {changes[0].after:.2f}); in B: "
                f"{first_b.word} {first_b.after:.2f} (in A {first_b.before:.2f})"
            )
        elif "it" in words and "animal" in words:
            it, animal = words.index("it"), words.index("animal")
            for layer, head in ((3, 1), (5, 11)):
                lines.append(
                    f"  it → animal in L{layer + 1} H{head + 1}: {float(pair.a[layer, head, it, animal]):.2f} → "
                    f"{float(pair.b[layer, head, it, animal]):.2f}"
                )
        if name.startswith("عائشة"):
            blank, name_column = words.index("[MASK]"), words.index("عائشة / أنس")
            lines.append(
                f"  [MASK] → عائشة / أنس in L2 H2: {float(pair.a[1, 1, blank, name_column]):.2f} → "
                f"{float(pair.b[1, 1, blank, name_column]):.2f}"
            )
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
