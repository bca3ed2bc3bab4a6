"""Process-wide settings for the server, applied once when the app's modules are first imported."""

from __future__ import annotations

import ctypes
import ctypes.util

import torch

_M_ARENA_MAX = -8  # glibc's mallopt parameter number for the arena limit (malloc.h)


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Let glibc keep at most `arenas` malloc arenas. Every thread that allocates (each session's script thread,
    each training run) otherwise gets an arena of its own that keeps its freed memory: with ten sessions and a
    training run the server measured 0.79–1.06 GB, and 0.69–0.75 GB with two arenas. The same as setting
    MALLOC_ARENA_MAX=2, which a host such as Streamlit Community Cloud does not let us set. False where there is
    no glibc (macOS, Windows), where nothing changes."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def one_torch_thread() -> None:
    """The script thread of a page run computes with one torch thread. The app's tensors are small (a sentence of
    32–512 words through 3–6 layers), and on two cores a second OpenMP thread costs more than it gives: it spins
    after each parallel region beside the Python thread. Measured with bench/interaction_speed.py at 32 words:
    Similarity 37 → 19 ms a rerun, Multi-head 55 → 40 ms, Fill the blank 46 → 38 ms (docs/speed.md). Called on every
    full run; torch's per-thread setting also becomes the default that a fragment's new thread starts from. A
    training run sets its own (attention_core.training.live)."""
    torch.set_num_threads(1)
