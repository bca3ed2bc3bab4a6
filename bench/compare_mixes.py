"""Which mix of classical and modern text to train on: short runs of the shipped recipe side by side.

    python -m bench.compare_mixes /work/probes/quranx4-hadith /work/probes/quranx4-hadith-modern ...

For each run's checkpoint folder: its mix, steps and minutes; the held-out top-1 of each classical part at the
run's end against the left+right bigram (from its metrics.jsonl, on --eval-lines held-out lines of each part, as
training scored them); and the modern test set (never trained on): a hidden common word's top-1 and top-5, for the
model and for the bigram counted on that run's own training lines. Prints one markdown table, then the same numbers
as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from attention_core.models.checkpoint import load_checkpoint
from attention_core.training.batches import Lexicon
from attention_core.training.corpora import load_corpus
from attention_core.training.evaluate import evaluate
from attention_core.training.test_set import COMMON, modern_test_corpus

CLASSICAL = ("quran", "hadith")


def measure(run: Path) -> dict:
    """One run's mix, length, classical held-out scores at its end and modern test set scores."""
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]
    start = next(r for r in records if r.get("event") == "start")
    end = [r for r in records if r.get("event") == "end"][-1]
    model, vocabulary, _ = load_checkpoint(run)
    common = evaluate(model, Lexicon(vocabulary), modern_test_corpus(load_corpus(start["corpus"])), targets=COMMON)
    return {
        "run": str(run),
        "corpus": start["corpus"],
        "steps": end["step"],
        "minutes": round(end["elapsed_s"] / 60, 1),
        "classical": {
            name: {"top1": end["parts"][name]["top1"], "bigram_top1": end["parts"][name]["bigram_top1"]}
            for name in CLASSICAL
            if name in end["parts"]
        },
        "modern_test_common": {k: common[k] for k in ("top1", "top5", "bigram_top1", "bigram_top5", "n_masked")},
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| mix | steps | minutes | Qurʾān top-1 (bigram) | hadith top-1 (bigram) | modern test, common words: "
        "top-1 / top-5 (bigram) |",
        "|---" * 6 + "|",
    ]
    for r in rows:
        parts = [
            f"{r['classical'][n]['top1']:.1%} ({r['classical'][n]['bigram_top1']:.1%})" if n in r["classical"] else "–"
            for n in CLASSICAL
        ]
        m = r["modern_test_common"]
        lines.append(
            f"| `{r['corpus']}` | {r['steps']:,} | {r['minutes']} | {parts[0]} | {parts[1]} | "
            f"**{m['top1']:.1%}** / **{m['top5']:.1%}** ({m['bigram_top1']:.1%} / {m['bigram_top5']:.1%}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="checkpoint folders written by the trainer")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    rows = [measure(run) for run in args.runs]
    print(table(rows))
    print(json.dumps(rows, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
