"""The Train page's default live run, measured: which heads change role, at which step and second.

    python -m bench.live_emergence                     # the page's defaults: live demo, the Qurʾān, 2 minutes
    python -m bench.live_emergence --preset arabic     # the shipped recipe, for comparison
    python -m bench.live_emergence --position-bias-lr 1   # the live demo with its bias learning at the usual rate

Runs what the page runs when a user presses *Start a new run* without changing the form: a `TrainingRun` on the
first built-in corpus (the Qurʾān), the default model (`DEMO_PRESET`) and the default probe (the first held-out
line), started with `TrainSettings(minutes=2)`, and polled once a second as the page's live view is. The run trains
in its background thread exactly as on the page (its step callback, its snapshots every 2 s of training). Then each
snapshot's heads are named by `head_roles` on the probe, as the page's roles chart names them, and this prints,
per head, its role at step 0 and every change (step and seconds into training), the speed (steps/s, and the load
average: the machine is shared), the held-out scores and the caption the page draws under the roles.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

from streamlit.logger import set_log_level

from attention_core.models.encoder import PRESETS
from attention_core.models.head_roles import POSITIONAL_ROLES, head_roles
from attention_core.training.corpora import load_corpus
from attention_core.training.emergence import role_changes, timeline
from attention_core.training.live import DEMO_PRESET, TRAINING_THREADS, TrainingRun, default_probe
from attention_core.training.train import TrainSettings
from ui.train.corpora import BUILT_IN_CHOICES
from ui.train.form import DEFAULTS, MODEL_LABELS
from ui.train.roles import probe_special, roles_caption

DEFAULT_CORPUS = next(iter(BUILT_IN_CHOICES.values()))  # the page's first choice
set_log_level("error")  # the caption is said outside a session: no warnings that there is none


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=DEMO_PRESET, help=f"model preset (the page's default: {DEMO_PRESET})")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus (default {DEFAULT_CORPUS})")
    parser.add_argument(
        "--minutes", type=float, default=DEFAULTS["train_minutes"], help="time budget (the page's default)"
    )
    parser.add_argument(
        "--position-bias-lr",
        type=float,
        default=None,
        help="train the preset with another multiple for its position bias's learning rate (e.g. 1: the live "
        "demo's bias at 0, learning at the other weights' rate); registered as a preset of its own for this run",
    )
    args = parser.parse_args()
    if args.position_bias_lr is not None:
        name = f"{args.preset}, position_bias_lr={args.position_bias_lr:g}"
        PRESETS[name] = replace(PRESETS[args.preset], position_bias_lr=args.position_bias_lr)
        args.preset = name
    corpus = load_corpus(args.corpus)
    probe = default_probe(corpus)
    run = TrainingRun(corpus, args.preset, probe, model_label=MODEL_LABELS.get(args.preset, args.preset))
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    run.start(TrainSettings(minutes=args.minutes, steps=None))
    loads = []
    while run.progress().status == "running":  # the page's live view reads progress() once a second
        time.sleep(1.0)
        loads.append(os.getloadavg()[0])
    wall = time.monotonic() - started
    progress = run.progress()
    assert progress.status == "finished", progress.error
    reports = {report.step: report for report in progress.reports}
    last = progress.reports[-1]
    steps = [snapshot.step for snapshot in progress.snapshots]
    roles = [head_roles(s.weights, probe_special(progress.probe_labels)) for s in progress.snapshots]

    def seconds(step: int) -> float:
        return reports[step].elapsed_s if step in reports else 0.0

    print(f"preset {args.preset}, corpus {corpus.name}, {args.minutes:g} minutes, seed {run.seed}")
    print(f"probe: {' '.join(progress.probe_labels[1:])} ({len(progress.probe_labels) - 1} words)")
    print(
        f"{last.step:,} steps in {last.elapsed_s:.1f} s of training = {last.step / last.elapsed_s:.2f} steps/s "
        f"({last.tokens_per_s:,.0f} words/s); {wall:.1f} s from Start to finished (preparing the text included); "
        f"{TRAINING_THREADS} torch thread(s); load average {load_before:.1f} at start, "
        f"{min(loads, default=0):.1f}–{max(loads, default=0):.1f} during the run (2 cores)"
    )
    for step, scores in progress.evaluations[-1:]:
        print(f"held-out top-1 at step {step:,}: model {scores['top1']:.1%}, bigram {scores['bigram_top1']:.1%}")
    print(f"{len(steps)} snapshots, steps {steps[0]:,} … {steps[-1]:,}")
    print("\nper head: role at step 0, then every change (step, seconds into training)")
    n_layers, n_heads = roles[0].scores.shape[:2]
    for layer in range(n_layers):
        for head in range(n_heads):
            line = timeline(steps, roles, layer, head)
            changes = " → ".join(f"{role} @ {step:,} ({seconds(step):.0f} s)" for step, role in line[1:])
            print(f"  L{layer + 1} H{head + 1}: {line[0][1]}" + (f" → {changes}" if changes else " (no change)"))
    changed = role_changes(steps, roles)
    positional = [sum(r in POSITIONAL_ROLES for layer in named.roles for r in layer) for named in roles]
    print(f"\nheads with another role at the end than at step 0: {len(changed)} of {n_layers * n_heads}")
    for change in changed:
        print(f"  {change.name}: {change.before} → {change.after}, kept from step {change.step:,}")
    for role in POSITIONAL_ROLES:
        became = [c for c in changed if c.after == role]
        if became:
            first = min(became, key=lambda c: c.step)
            kept = f"from step {first.step:,} ({seconds(first.step):.0f} s)"
            print(f"  {len(became)} became {role}; the first kept it {kept}")
    print(f"positional heads (previous/next word, self, sink): {positional[0]} at step 0, {positional[-1]} at the end")
    first_change = next((step for step, named in zip(steps, roles, strict=True) if named.roles != roles[0].roles), None)
    if first_change is not None:
        print(f"first snapshot with any head in another role: step {first_change:,} ({seconds(first_change):.0f} s)")
    print(f"\nthe page's caption under the roles (last step picked):\n  {roles_caption(steps, roles, len(steps) - 1)}")


if __name__ == "__main__":
    main()
