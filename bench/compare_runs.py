"""Learning curves of training runs side by side, from their metrics.jsonl: held-out top-1 of each corpus part
against the left+right bigram at every evaluation.

    python -m bench.compare_runs docs/runs/quran4-hadith.metrics.jsonl attention_core/shipped/arabic/metrics.jsonl

Prints one markdown table per run (its corpus mix, preset and settings first), the rows being the run's
evaluations (during training on --eval-lines held-out lines of each part; the last row is the end of the run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def curve(path: Path) -> str:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    start = next(r for r in records if r.get("event") == "start")
    evaluations = [r for r in records if r.get("event") in ("eval", "end") and "parts" in r]
    settings = start["settings"]
    title = (
        f"**{path}** — corpus `{start['corpus']}`, {start['config']['n_layers']} layers × "
        f"{start['config']['n_heads']} heads, d = {start['config']['d_model']}, dropout "
        f"{start['config']['dropout']}, mask rate {settings['mask_rate']}, budget "
        f"{settings['minutes']} min / {settings['steps']} steps, {settings['eval_lines']} held-out lines per "
        "part at each evaluation"
    )
    if not evaluations:
        return title + "\n\n(no evaluations)"
    names = list(evaluations[0]["parts"])
    rows = [
        "| minutes | step | " + " | ".join(f"{n}: model / bigram / margin" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for r in evaluations:
        cells = []
        for n in names:
            part = r["parts"][n]
            margin = 100 * (part["top1"] - part["bigram_top1"])
            cells.append(f"{part['top1']:.1%} / {part['bigram_top1']:.1%} / {margin:+.1f}")
        end = " (end)" if r["event"] == "end" else ""
        rows.append(f"| {r['elapsed_s'] / 60:.1f} | {r['step']:,}{end} | " + " | ".join(cells) + " |")
    return title + "\n\n" + "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metrics", nargs="+", type=Path, help="metrics.jsonl files of training runs")
    args = parser.parse_args(argv)
    print("\n\n".join(curve(path) for path in args.metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
