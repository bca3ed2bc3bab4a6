"""A class's summary as the CSV a teacher downloads at the end: per question, what was asked (the sentence, the head,
the word), the class's answers and the model's. Built from store.summary(), which holds no names and no student ids,
so neither can this file.

The text starts with a byte-order mark: Excel reads a CSV without one as the machine's ANSI code page, and an Arabic
sentence (ذهب) opened as mojibake (Ø°Ù‡Ø¨). With it Excel reads UTF-8; LibreOffice and Google Sheets skip it, and
Python reads the file back with encoding="utf-8-sig"."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

BOM = "\ufeff"  # UTF-8's byte-order mark, as text: the page encodes the CSV as UTF-8 (EF BB BF first)
# The question dict's entries the file shows (the pages put them there; any may be missing).
COLUMNS = (
    "number",
    "page",
    "sentence",
    "head",  # the head asked about, in English as stored ("L4 H2", "head 2"); empty on a page of one map
    "question",
    "link",
    "answers",
    "class_answers",
    "most_picked",
    "model_answer",
    "picked_the_model",
)


def summary_rows(summary: Sequence[dict[str, Any]]) -> list[dict[str, object]]:
    """One flat row per question: the question's sentence, head, row word (or prompt) and link, how many answered,
    every answer with its count ("street: 12; animal: 9"), the class's most picked, the model's, and how many picked
    it."""
    rows: list[dict[str, object]] = []
    for item in summary:
        question, tally = item["question"], dict(item["tally"])
        if question.get("lobby"):  # the room opened before the first question: nothing was asked
            continue
        model = item.get("model_answer")
        top = max(tally.values(), default=0)
        rows.append(
            {
                "number": item["number"],
                "page": str(question.get("link", "")).partition("?")[0],
                "sentence": question.get("sentence", ""),
                "head": question.get("head") or "",
                "question": question.get("row") or question.get("prompt") or "",
                "link": question.get("link", ""),
                "answers": sum(tally.values()),
                "class_answers": "; ".join(f"{word}: {count}" for word, count in tally.items()),
                "most_picked": " / ".join(word for word, count in tally.items() if count == top and top),
                "model_answer": "" if model is None else model,
                "picked_the_model": tally.get(str(model), 0) if model is not None else "",
            }
        )
    return rows


def summary_csv(summary: Sequence[dict[str, Any]]) -> str:
    """The CSV text, to be saved as UTF-8: a byte-order mark, a header row, one row per question. A cell that a
    spreadsheet would run as a formula (=, +, -, @ first) is written with a ' before it."""
    out = io.StringIO()
    out.write(BOM)
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in summary_rows(summary):
        writer.writerow({key: _inert(value) for key, value in row.items()})
    return out.getvalue()


def _inert(value: object) -> object:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
