"""Where a server's time goes, from a py-spy profile: per thread role, per kind of work, as shares of all samples.

    py-spy record --pid <server pid> --format raw --threads --nonblocking --duration 30 -o profile.raw
    python -m bench.profile_summary profile.raw [--top 15]        (or profile.raw.gz)

py-spy samples every thread 100 times a second and drops idle ones, so a share is a share of the CPU the server's
Python threads used (a thread holding the GIL in C code, as torch does, is sampled as running). Each stack is put
in one kind, by the outermost frame of a library that does the work (so numpy called by plotly counts as plotly,
and plotly's own JSON writer as serialisation); stacks in no library are the app's own code or Streamlit's.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import Counter, defaultdict
from pathlib import Path

# (kind, pattern on "function (file:line)"), in the order tried against each frame from the outermost inwards.
KINDS = [
    ("serialisation: JSON", re.compile(r"\(plotly/io/_json|\(json/|orjson|json_encoding|json\.dumps")),
    (
        "serialisation: protobuf",
        re.compile(r"google/protobuf|serialize_forward_msg|forward_msg_cache\.py|SerializeToString"),
    ),
    ("torch", re.compile(r"\(torch/")),
    ("plotly figure building", re.compile(r"\((plotly|_plotly_utils)/")),
    ("pandas / numpy", re.compile(r"\((pandas|numpy)/")),
    ("tokenizers / safetensors", re.compile(r"\((tokenizers|safetensors)/")),
]
ROOT = Path(__file__).resolve().parents[1]
PAGE_FILES = "|".join(re.escape(p.name) for p in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))])
OWN_CODE = re.compile(rf"^(pages|ui|attention_core)/|^({PAGE_FILES})$")  # a page file appears by its bare name
EVENT_LOOP = re.compile(r"^(asyncio|uvicorn|starlette|websockets|anyio|h11|httptools)/|selectors\.py")
# py-spy could not tell idle threads here (it counted sleeps and selects as running), so a sample whose innermost
# frame blocks is set apart by that frame: it is waiting, not working.
WAITING = [
    ("waiting: a shared st.cache lock (another session computes it)", re.compile(r"^_hold_compute_lock \(")),
    (
        "waiting: idle (select, sleep, queue, condition)",
        re.compile(
            r"selectors\.py|^Condition\.wait|^Event\.wait|polling_path_watcher\.py:90|concurrent/futures/thread\.py:81|"
            r"^_ModuleLock\.acquire|queue\.py|^Server\.main_loop"
        ),
    ),
]
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]+):(?P<line>\d+)\)$")


def thread_role(thread: str, frames: list[str]) -> str:
    text = ";".join(frames)
    if "ScriptRunner._run_script_thread" in text:
        return "script threads"
    if "live_training" in text or "attention_core/training/train.py" in text:
        return "training threads"
    if "MainThread" in thread:
        return "main thread (event loop)"
    return "other threads"


def post_script_gc_line() -> str:
    """Streamlit's `gc.collect(2)` after every script run (runner.postScriptGC), as py-spy names its frame."""
    import streamlit.runtime.scriptrunner.script_runner as runner

    source = Path(runner.__file__).read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(source, 1) if "gc.collect(2)" in text)
    return f"(streamlit/runtime/scriptrunner/script_runner.py:{line})"


GC_FRAME = post_script_gc_line()


def kind_of(frames: list[str]) -> str:
    leaf = frames[-1] if frames else ""
    for kind, pattern in WAITING:
        if pattern.search(leaf):
            return kind
    if leaf.endswith(GC_FRAME):
        return "garbage collection after each run (runner.postScriptGC)"
    for frame in frames:  # outermost first
        for kind, pattern in KINDS:
            if pattern.search(frame):
                return kind
    files = [m["file"] for f in frames if (m := FRAME.match(f))]
    if any(EVENT_LOOP.search(file) for file in files[-6:]):
        return "event loop / websocket I/O"
    if files and OWN_CODE.search(files[-1]):
        return "app code (pages, ui, attention_core)"
    if any(file.startswith("streamlit/") for file in files):
        return "streamlit runtime (other)"
    return "other"


def read_raw(path: Path) -> list[tuple[str, list[str], int]]:
    """(thread, frames outermost first, samples) per line of py-spy's raw (collapsed) format with --threads."""
    stacks = []
    data = path.read_bytes()
    text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        thread, *frames = stack.split(";")
        stacks.append((thread, frames, int(count)))
    return stacks


def summary(stacks: list[tuple[str, list[str], int]], top: int, seconds: float | None) -> str:
    by_role: dict[str, Counter] = defaultdict(Counter)
    leaves, own_lines, waiting = Counter(), Counter(), Counter()
    for thread, frames, count in stacks:
        kind = kind_of(frames)
        if kind.startswith("waiting"):
            waiting[kind] += count
            continue
        by_role[thread_role(thread, frames)][kind] += count
        leaves[frames[-1] if frames else "?"] += count
        own = [f for f in frames if (m := FRAME.match(f)) and OWN_CODE.search(m["file"])]
        if own:
            own_lines[own[-1]] += count  # the innermost line of the app's own code under this sample
    total = sum(leaves.values())
    cores = f", {total / 100 / seconds:.2f} cores over {seconds:g} s" if seconds else ""
    lines = [
        f"{total} working samples ({total / 100:.1f} CPU-seconds at py-spy's 100 Hz{cores}); set apart as "
        "waiting: " + ", ".join(f"{kind[9:]} {n}" for kind, n in waiting.items()),
        "",
    ]
    lines += ["Shares below are of the working samples.", ""]
    lines += ["| thread role | kind of work | % of working samples |", "|---|---|---:|"]
    for role, kinds in sorted(by_role.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"| **{role}** | all | **{100 * sum(kinds.values()) / total:.1f}** |")
        lines += [f"| | {kind} | {100 * n / total:.1f} |" for kind, n in kinds.most_common()]
    lines += ["", f"Top {top} innermost frames (where the CPU was):", ""]
    lines += [f"- {100 * n / total:4.1f}%  {frame}" for frame, n in leaves.most_common(top)]
    lines += ["", f"Top {top} lines of the app's own code under the samples (innermost own frame):", ""]
    lines += [f"- {100 * n / total:4.1f}%  {frame}" for frame, n in own_lines.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw", type=Path, help="py-spy record --format raw --threads output")
    parser.add_argument("--top", type=int, default=15, help="how many frames and lines to list")
    parser.add_argument("--seconds", type=float, help="the recording's length, to turn samples into cores")
    args = parser.parse_args()
    print(summary(read_raw(args.raw), args.top, args.seconds))


if __name__ == "__main__":
    main()
