"""Lines of text → padded batches of ids, with sentences of similar length together (little padding)."""

from __future__ import annotations

from collections.abc import Iterator

import torch

from attention_core.vocabulary import Vocabulary


def encode_lines(lines: tuple[str, ...] | list[str], vocabulary: Vocabulary, max_len: int) -> list[list[int]]:
    """[CLS] + the line's word ids, cut to max_len; lines without tokens are dropped."""
    encoded = []
    for line in lines:
        ids = vocabulary.encode_line(line)
        if ids:
            encoded.append([vocabulary.cls_id, *ids][:max_len])
    return encoded


def pad(sequences: list[list[int]], pad_id: int = 0) -> torch.Tensor:
    """(B, T) with T the longest sequence; shorter ones padded on the right."""
    T = max(len(s) for s in sequences)
    batch = torch.full((len(sequences), T), pad_id, dtype=torch.long)
    for row, sequence in enumerate(sequences):
        batch[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
    return batch


def length_bucketed_batches(
    sequences: list[list[int]],
    batch_size: int,
    generator: torch.Generator,
    *,
    rank: int = 0,
    world_size: int = 1,
) -> Iterator[torch.Tensor]:
    """One epoch of shuffled batches. Sequences are sorted by length inside random pools of 50 batches, so a
    batch holds similar lengths (ayat run from 1 to 129 words) while the order of batches stays random.
    With several processes, each rank takes every world_size-th batch (all ranks see equal batch counts)."""
    order = torch.randperm(len(sequences), generator=generator).tolist()
    pool = batch_size * 50
    batches = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(sequences[i]))
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    shuffled = [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]
    usable = len(shuffled) - len(shuffled) % world_size
    for batch in shuffled[rank:usable:world_size]:
        yield pad([sequences[i] for i in batch])
