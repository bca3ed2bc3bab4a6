"""The roles of every head of the shipped models on a few sentences (attention_core.models.head_roles): what
docs/heads-apart.md quotes. Usage: python -m bench.head_roles_report [--sentence TEXT …]"""

from __future__ import annotations

import argparse

from attention_core.models.head_roles import head_roles
from attention_core.models.interface import AttentionModel
from attention_core.models.pretrained import ModelNotInstalledError, load_minilm
from attention_core.models.trained import load_model
from attention_core.story.text import is_right_to_left, tokenize

SENTENCES = [
    "the quick brown fox jumps over the lazy dog",
    "The animal didn't cross the street because it was too tired",
    "قل هو الله احد",
    "ذهب الطالب إلى المدرسة في الصباح ثم عاد إلى البيت مع أبيه",
]


def report(model: AttentionModel, sentence: str) -> None:
    analysis = model.analyze(tokenize(sentence))
    roles = head_roles(analysis.weights, analysis.special)
    counts = ", ".join(f"{role} {n}" for role, n in roles.counts().items() if n)
    print(f"\n{model.name} · {sentence}\n  heads per role: {counts}")
    for layer, names in enumerate(roles.roles):
        cells = [f"{name} {roles.score_of(layer, head):.2f}" for head, name in enumerate(names)]
        print(f"  L{layer + 1}: " + " | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentence", action="append", help="a sentence to report (repeatable); default: four")
    args = parser.parse_args()
    arabic = load_model()
    try:
        english: AttentionModel | None = load_minilm()
    except ModelNotInstalledError:
        english = None
    for sentence in args.sentence or SENTENCES:
        model = arabic if is_right_to_left(sentence) or english is None else english
        report(model, sentence)


if __name__ == "__main__":
    main()
