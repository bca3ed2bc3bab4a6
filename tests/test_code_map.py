"""docs/code.md is the map a newcomer reads first: every source file of the app, the package, the store, the
scripts and the tools is named in its tree, in its folder, so a file added without a line on the map fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPED = ("pages", "ui", "attention_core", "classroom", "bench", "tools", "deploy")
DESCRIPTION_COLUMN = 23  # the tree's names end before this column; the text after it describes them


def source_files() -> set[str]:
    files = {"app.py"}
    for folder in MAPPED:
        files |= {str(path.relative_to(ROOT)) for path in (ROOT / folder).rglob("*.py") if path.name != "__init__.py"}
    return files


def mapped_files(text: str) -> set[str]:
    """The files the map's tree names, with their folders: a line "  story/" opens a folder one level (two spaces)
    below the last shallower one; the names ending in .py at the start of a line (before its description) are files
    of the folder one level up (several may share a line: "  idea.py  lessons.py")."""
    tree = text.split("```")[1]
    folders: list[str] = []
    found = set()
    for line in tree.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= DESCRIPTION_COLUMN:
            continue
        depth = indent // 2
        names = line.split()
        if names[0].endswith("/"):
            folders = [*folders[:depth], names[0].rstrip("/")]
            continue
        for name in names:
            if not re.fullmatch(r"[\w/]+\.py", name):
                break
            found.add("/".join([*folders[:depth], name]))
    return found


def test_every_source_file_is_on_the_code_map() -> None:
    mapped = mapped_files((ROOT / "docs" / "code.md").read_text(encoding="utf-8"))
    missing = sorted(source_files() - mapped)
    assert not missing, f"{len(missing)} files are not on docs/code.md's map: {missing}"
    gone = sorted(name for name in mapped - source_files() if name.split("/")[0] in (*MAPPED, "app.py"))
    assert not gone, f"docs/code.md names files that are not there: {gone}"
