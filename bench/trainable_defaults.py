"""How sharp Trainable attention's default heads are: the numbers docs/pages.md quotes.

    python -m bench.trainable_defaults [--seeds 3]

For the page's default English sentence (MiniLM's vectors) and an Arabic one (the shipped model's): the spread of
the scores and each row's largest weight (averaged over rows and heads; 1/n is flat), at temperature 1 and 0.1,
with V normalised as a layer reads it (the default) and raw.
"""

from __future__ import annotations

import argparse

from attention_core.models.pretrained import load_minilm
from attention_core.models.trained import load_model
from attention_core.story.text import MAX_TOKENS, read_sentence
from attention_core.story.trainable import TrainableSettings, sharpness, trainable_heads

SENTENCES = [("MiniLM", "The cat is on the mat"), ("Arabic model", "ذهب الطالب إلى المدرسة")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="weight seeds 0 … seeds − 1, one line each")
    args = parser.parse_args()
    models = {"MiniLM": load_minilm(), "Arabic model": load_model()}
    print("| vectors | V | seed | heads | score std | row max weight, T = 1 | T = 0.1 | 1/n |")
    print("|---|---|---|---|---|---|---|---|")
    for name, text in SENTENCES:
        V = models[name].sentence(list(read_sentence(text, MAX_TOKENS).tokens)).V
        for normalised in (True, False):
            for seed in range(args.seeds):
                for n_heads in (1, 8):
                    settings = TrainableSettings(normalise=normalised, n_heads=n_heads, seed=seed)
                    warm = sharpness(trainable_heads(V, settings))
                    cold = sharpness(trainable_heads(V, TrainableSettings(**{**vars(settings), "temperature": 0.1})))
                    print(
                        f"| {name} | {'normalised' if normalised else 'raw'} | {seed} | {n_heads} | "
                        f"{warm.score_std:.3f} | {warm.mean_max_weight:.2f} | {cold.mean_max_weight:.2f} | "
                        f"{1 / V.shape[0]:.2f} |"
                    )


if __name__ == "__main__":
    main()
