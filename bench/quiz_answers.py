"""The lessons gallery's quiz versions, answered: for each, the question (head, row word), the row's strongest word
and its weight, and what the lesson's own cell gets, read from the app as a student would see it after Reveal.

    .venv/bin/python -m bench.quiz_answers --out docs/runs/quiz_answers.txt
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ui.lessons.catalogue import LESSONS

ROOT = Path(__file__).resolve().parents[1]


def answer(lesson: object) -> str:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / f"{lesson.page}.py"), default_timeout=120)
    for key, value in lesson.quiz_query().items():
        at.query_params[key] = value
    at = at.run()
    prefix, cell = lesson.prefix, lesson.cell
    row = at.selectbox(key=f"{prefix}_quiz_row")
    columns = [name for name in row.options if name.split(" ·")[0] == cell.column]
    at.selectbox(key=f"{prefix}_quiz_pick").set_value(columns[cell.column_nth - 1]).run()
    at = at.button(key=f"{prefix}_quiz_reveal").click().run()
    said = [m.value for m in [*at.success, *at.warning]]
    text = re.sub(r"[\u2066-\u2069\\*]", "", said[0]) if said else "no answer shown"
    head = lesson.panel or "the page's map"
    question = f"{lesson.page}, {head}, row {row.format_func(row.value)}, the lesson's column {cell.column}"
    return f"{lesson.title} — {question}: {text}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    lines = [answer(lesson) for lesson in LESSONS if lesson.quiz_query() is not None]
    report = "\n".join([f"# quiz_answers: {len(lines)} lessons with a quiz version", *lines]) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
