"""What bench/class_load.py prints: latency per kind of action (median, p90, max), errors, the server's CPU and RSS."""

from __future__ import annotations

import math
from collections import defaultdict


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def summarise(actions: list) -> dict[str, dict[str, float]]:
    """Per kind of action, and "all": count, errors, latency of those without error, median kB received.
    `actions` are class_load.Action records (kind, seconds, received_bytes, error)."""
    by_kind: dict[str, list] = defaultdict(list)
    for action in actions:
        by_kind[action.kind].append(action)
    by_kind["all"] = list(actions)
    table = {}
    for kind, group in by_kind.items():
        ms = [1000 * a.seconds for a in group if not a.error]
        table[kind] = {
            "count": len(group),
            "errors": sum(bool(a.error) for a in group),
            "median_ms": percentile(ms, 0.5) if ms else None,
            "p90_ms": percentile(ms, 0.9) if ms else None,
            "max_ms": max(ms) if ms else None,
            "kB_median": percentile([a.received_bytes / 1e3 for a in group], 0.5),
        }
    return table


HEADER = f"{'action':20} {'count':>6} {'errors':>6} {'median ms':>10} {'p90 ms':>8} {'max ms':>8} {'kB/run':>7}"


def report(result: dict) -> str:
    trainers = f" ({result['trainers']} of them trainers)" if result["trainers"] else ""
    lines = [
        f"class load: {result['clients']} clients{trainers}, {result['duration_s']:g} s measured after a "
        f"{result['warmup_s']:g} s warm-up, seed {result['seed']}, {result['url']}",
        HEADER,
    ]
    fmt = lambda v: f"{v:.0f}" if v is not None else "–"  # noqa: E731
    for kind, row in sorted(result["actions"].items(), key=lambda kv: (kv[0] == "all", kv[0])):
        lines.append(
            f"{kind:20} {row['count']:6} {row['errors']:6} {fmt(row['median_ms']):>10} "
            f"{fmt(row['p90_ms']):>8} {fmt(row['max_ms']):>8} {row['kB_median']:7.1f}"
        )
    if opens := result["warmup_actions"].get("open"):
        lines.append(
            f"during the warm-up (not above): {opens['count']} first opens, median {fmt(opens['median_ms'])} ms, "
            f"max {fmt(opens['max_ms'])} ms, {opens['errors']} errors"
        )
    if runs := result.get("training_runs"):
        walls = ", ".join(f"{r['seconds']:.1f} s" + ("" if r["ended"] else " (unfinished)") for r in runs)
        budget = runs[0]["budget_s"]
        within = sum(r["ended"] and r["seconds"] <= 1.5 * budget for r in runs)
        lines.append(
            f"training runs, Start to the end of the live view: {walls}; budget {budget:g} s, "
            f"{within} of {len(runs)} within 1.5 × budget ({1.5 * budget:g} s)"
        )
    kinds = defaultdict(int)
    for error in result["errors"]:
        kinds[error["error"].split(":")[0]] += 1
    lines.append("errors: " + (", ".join(f"{n} {kind}" for kind, n in kinds.items()) or "none"))
    lines += [f"  client {e['client']} {e['kind']} on {e['page']}: {e['error'][:160]}" for e in result["errors"][:10]]
    if result["server"]:
        s = result["server"]
        lines.append(
            f"server: {s['cores_mean']:.2f} cores mean, {s['cores_peak_1s']:.2f} peak (1 s), peak RSS "
            f"{s['rss_peak_mb']:.0f} MB (at start of measuring {s['rss_start_mb']:.0f} MB), "
            f"{s['processes_max']} process(es), {s['threads_max']} threads at most"
        )
        lines.append(
            f"load generator (this process, same cores): {s['load_generator_cores']:.2f} cores, its event loop "
            f"late by {s['load_generator_loop_lag_max_ms']:.0f} ms at most; the rest of the machine "
            f"{s['rest_of_machine_cores']:.2f} cores"
        )
    return "\n".join(lines)


TABLE_HEADER = (
    "| run | clients (trainers) | actions | median | p90 | max | errors | told full "
    "| server CPU, cores: mean (busiest s) | peak RSS | rest of machine | training runs: Start → end (budget 15 s) |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"
)


def table_row(name: str, result: dict) -> str:
    """One saved run as a row of the docs' table (docs/class-load.md), so the table is the runs', not retyped."""
    answered = {kind: row for kind, row in result["actions"].items() if kind != "told: server full"}
    every = [r for r in result["records"] if r["kind"] != "told: server full" and not r["error"]]
    ms = [1000 * r["seconds"] for r in every]
    full = result["actions"].get("told: server full", {}).get("count", 0)
    s = result["server"] or {}
    runs = result.get("training_runs", [])
    walls = ", ".join(f"{r['seconds']:.1f} s" for r in runs if r["ended"]) or "–"
    return (
        f"| {name} | {result['clients']} ({result['trainers']}) | {answered['all']['count'] - full} "
        f"| {percentile(ms, 0.5):,.0f} ms | {percentile(ms, 0.9):,.0f} ms | {max(ms):,.0f} ms "
        f"| {len(result['errors'])} | {full} | {s.get('cores_mean', 0):.2f} ({s.get('cores_peak_1s', 0):.2f}) "
        f"| {s.get('rss_peak_mb', 0):,.0f} MB | {s.get('rest_of_machine_cores', 0):.2f} | {walls} |"
    )


def main() -> None:
    """python -m bench.class_report run.json [...]: each run's printed report; --table: the docs' table rows."""
    import argparse
    import json
    from pathlib import Path

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("runs", nargs="+", type=Path, help="JSON files written by class_load.py --out")
    parser.add_argument("--table", action="store_true", help="one markdown table row per run instead")
    args = parser.parse_args()
    results = [(path.stem, json.loads(path.read_text(encoding="utf-8"))) for path in args.runs]
    if args.table:
        print(TABLE_HEADER)
        print("\n".join(table_row(name, result) for name, result in results))
    else:
        print("\n\n".join(report(result) for _, result in results))


if __name__ == "__main__":
    main()
