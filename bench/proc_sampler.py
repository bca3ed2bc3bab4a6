"""CPU and memory of a process and all its descendants, read from /proc (Linux), sampled in an asyncio task."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def process_tree(pid: int) -> list[int]:
    """pid and its descendants (threads' children files list each process's children)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):  # the process ended meanwhile
                todo += [int(child) for child in task.read_text().split()]
    return tree


def read_tree(pid: int) -> tuple[float, int, int, int]:
    """(CPU seconds used so far, RSS bytes, processes, threads) summed over the tree; vanished processes count 0."""
    cpu, rss, processes, threads = 0.0, 0, 0, 0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            resident = int(Path(f"/proc/{member}/statm").read_text().split()[1])
        except (OSError, IndexError):
            continue
        # After the ")" that ends the command name: field 3 is state, so utime (14) and stime (15) are at 11, 12
        # and num_threads (20) at 17 (proc(5)).
        cpu += (int(fields[11]) + int(fields[12])) / TICKS
        rss += resident * PAGE
        processes += 1
        threads += int(fields[17])
    return cpu, rss, processes, threads


def machine_busy_s() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat: everything but idle and iowait)."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split()[1:9]]  # user nice system idle iowait …
    return (sum(ticks) - ticks[3] - ticks[4]) / TICKS


class ProcessTreeSampler:
    def __init__(self, pid: int, every_s: float = 0.2) -> None:
        self.pid, self.every_s = pid, every_s
        self.samples: list[tuple[float, float, int, int, int]] = []  # (clock, cpu s, rss, processes, threads)
        self.loop_lag_max_s = 0.0  # how late the sampler woke: this process's own event loop falling behind

    async def sample_until(self, clock: object, start: float, stop: float) -> None:
        """Samples from `start` to `stop` seconds on `clock` (an object with now())."""
        await asyncio.sleep(max(0.0, start - clock.now()))
        client_cpu = os.times()
        self._client_start = client_cpu.user + client_cpu.system
        self._machine_start = machine_busy_s()
        while clock.now() < stop:
            # In a thread: reading a busy process's /proc files can block (on its memory map's lock) for hundreds
            # of ms, and would stall every client of this event loop with it.
            tree = await asyncio.to_thread(read_tree, self.pid)
            self.samples.append((clock.now(), *tree))
            woke = clock.now()
            await asyncio.sleep(self.every_s)
            self.loop_lag_max_s = max(self.loop_lag_max_s, clock.now() - woke - self.every_s)
        self.samples.append((clock.now(), *read_tree(self.pid)))
        client_cpu = os.times()
        self._client_cpu_s = client_cpu.user + client_cpu.system - self._client_start
        self._machine_cpu_s = machine_busy_s() - self._machine_start

    def summary(self) -> dict[str, float]:
        (t0, cpu0, rss0, *_), (t1, cpu1, *_) = self.samples[0], self.samples[-1]
        peak_1s = 0.0
        window = max(1, round(1 / self.every_s))
        for (ta, ca, *_), (tb, cb, *_) in zip(self.samples, self.samples[window:], strict=False):
            peak_1s = max(peak_1s, (cb - ca) / (tb - ta))
        return {
            "cores_mean": (cpu1 - cpu0) / (t1 - t0),
            "cores_peak_1s": peak_1s,
            "rss_start_mb": rss0 / 2**20,
            "rss_peak_mb": max(s[2] for s in self.samples) / 2**20,
            "processes_max": max(s[3] for s in self.samples),
            "threads_max": max(s[4] for s in self.samples),
            "load_generator_cores": self._client_cpu_s / (t1 - t0),
            # whatever else ran on the machine meanwhile (a profiler, another job): it competed for the same cores
            "rest_of_machine_cores": (self._machine_cpu_s - (cpu1 - cpu0) - self._client_cpu_s) / (t1 - t0),
            "load_generator_loop_lag_max_ms": 1000 * self.loop_lag_max_s,
        }
