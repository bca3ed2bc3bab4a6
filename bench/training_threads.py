"""Training steps per second with one torch thread against two, on this machine as it is (other work running).

    python -m bench.training_threads --rounds 4 --seconds 8

The Train page's run trains in a thread of the app's server, beside every session's page runs. This times the
live demo's steps (the "live" preset, the Qurʾān, 64 sentences a step, as attention_core.training.live trains
them) in one process, alternating 2 and 1 torch threads every few seconds, so both see the same load; it prints
each stretch's steps per second and the load average, then the median of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.training.batches import length_bucketed_batches
from attention_core.training.corpora import load_corpus
from attention_core.training.prepare import prepare
from attention_core.training.train import TrainSettings, _optimizer, _train_step, masked_batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="stretches per thread count")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of one stretch")
    parser.add_argument("--preset", default="live", help="model preset (the Train page's default: live)")
    args = parser.parse_args()
    settings = TrainSettings()
    prepared = prepare(load_corpus("quran"), preset(args.preset).max_len, min_count=2, max_vocab=24_000)
    vocabulary, lexicon = prepared.vocabulary, prepared.fork().lexicon
    torch.manual_seed(0)
    model = MaskedLanguageModel.for_vocabulary(preset(args.preset), vocabulary).train()
    optimizer = _optimizer(model, settings)
    generator = torch.Generator().manual_seed(0)
    batches = list(length_bucketed_batches(prepared.sequences, 64, generator, max_tokens=settings.max_batch_tokens))
    speeds: dict[int, list[float]] = {2: [], 1: []}
    done = 0
    print(f"cores: {os.cpu_count()}, preset {args.preset}, Qurʾān, 64 sentences a step")
    for round_ in range(args.rounds):
        for threads in (2, 1):
            torch.set_num_threads(threads)
            started, steps = time.monotonic(), 0
            while time.monotonic() - started < args.seconds:
                ids = batches[done % len(batches)]
                _train_step(model, optimizer, masked_batch(ids, settings, vocabulary, lexicon, generator))
                steps, done = steps + 1, done + 1
            speeds[threads].append(steps / (time.monotonic() - started))
            load = os.getloadavg()[0]
            print(f"round {round_ + 1}, {threads} thread(s): {speeds[threads][-1]:5.2f} steps/s (load {load:.1f})")
    for threads, values in speeds.items():
        print(f"median, {threads} thread(s): {statistics.median(values):.2f} steps/s")


if __name__ == "__main__":
    main()
