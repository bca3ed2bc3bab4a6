"""What a teacher takes home (classroom/summary.py: a CSV with no names) and what the projector shows to join
(classroom/qr.py: read back by a real QR decoder, zxing-cpp, where installed)."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from classroom import open_store
from classroom.qr import join_qr_png, join_qr_svg
from classroom.summary import COLUMNS, summary_csv

LINK = "similarity?similarity_quiz=true&similarity_quiz_row=it"


def test_the_summary_csv_holds_each_question_the_class_and_the_model_and_no_one(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/classes.db")
    first = {
        "link": LINK,
        "sentence": "the animal didn't cross the street",
        "row": "it",
        "choices": ["animal", "street", "it"],
        "model_answer": "animal",
    }
    code, key = store.create(first)
    for i, word in enumerate(["street", "street", "animal", "it"]):
        store.answer(code, f"student-{i}", word, name=f"Name {i}")
    store.next_question(code, key, {"sentence": '=HYPERLINK("http://x")', "prompt": "-1+1", "model_answer": "ذهب"})
    store.answer(code, "student-0", "ذهب")
    store.end(code, key)
    text = summary_csv(store.summary(code, key))
    rows = _read(text)
    assert list(rows[0]) == list(COLUMNS)
    assert rows[0] | {"link": ""} == {
        "number": "1",
        "page": "similarity",
        "sentence": "the animal didn't cross the street",
        "head": "",
        "question": "it",
        "link": "",
        "answers": "4",
        "class_answers": "street: 2; animal: 1; it: 1",
        "most_picked": "street",
        "model_answer": "animal",
        "picked_the_model": "1",
    }
    assert rows[0]["link"] == LINK
    assert (rows[1]["class_answers"], rows[1]["model_answer"], rows[1]["picked_the_model"]) == ("ذهب: 1", "ذهب", "1")
    assert rows[1]["sentence"].startswith("'=") and rows[1]["question"] == "'-1+1"  # not run by a spreadsheet
    assert "Name" not in text and "student" not in text


def test_an_empty_question_and_a_tie_read_plainly() -> None:
    summary = [
        {"number": 1, "question": {"row": "it"}, "tally": {}, "answers": 0, "model_answer": None},
        {"number": 2, "question": {}, "tally": {"a": 2, "b": 2}, "answers": 4, "model_answer": "c"},
    ]
    rows = _read(summary_csv(summary))
    assert (rows[0]["answers"], rows[0]["most_picked"], rows[0]["model_answer"]) == ("0", "", "")
    assert (rows[1]["most_picked"], rows[1]["picked_the_model"]) == ("a / b", "0")


def _read(text: str) -> list[dict[str, str]]:
    """The rows as a spreadsheet reads the downloaded bytes (the page encodes the text as UTF-8)."""
    return list(csv.DictReader(io.StringIO(text.encode("utf-8").decode("utf-8-sig"))))


def test_the_summary_opens_with_arabic_in_a_spreadsheet() -> None:
    """Excel reads UTF-8 without a byte-order mark as the machine's ANSI code page (ذهب became Ø°Ù‡Ø¨): the file
    starts with the BOM, and reads back whole with 'utf-8-sig'."""
    summary = [
        {
            "number": 1,
            "question": {"sentence": "ذهب الولد إلى المدرسة", "row": "الولد", "head": "L4 H2"},
            "tally": {"المدرسة": 3, "ذهب": 1},
            "answers": 4,
            "model_answer": "ذهب",
        }
    ]
    data = summary_csv(summary).encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    (row,) = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    assert list(row) == list(COLUMNS)
    assert (row["sentence"], row["question"], row["class_answers"]) == (
        "ذهب الولد إلى المدرسة",
        "الولد",
        "المدرسة: 3; ذهب: 1",
    )
    assert (row["most_picked"], row["model_answer"], row["picked_the_model"]) == ("المدرسة", "ذهب", "1")
    assert row["head"] == "L4 H2"


def test_each_question_names_its_head() -> None:
    summary = [
        {"number": 1, "question": {"row": "it", "head": "L4 H2"}, "tally": {}, "answers": 0, "model_answer": None},
        {"number": 2, "question": {"row": "it", "head": None}, "tally": {}, "answers": 0, "model_answer": None},
        {"number": 3, "question": {"row": "it"}, "tally": {}, "answers": 0, "model_answer": None},
    ]
    assert [row["head"] for row in _read(summary_csv(summary))] == ["L4 H2", "", ""]
    assert COLUMNS.index("head") == COLUMNS.index("question") - 1  # read as "L4 H2 · it"


JOIN = "https://class.example.org/join?code=ACDEF"


def test_the_qr_code_is_an_svg_any_size_with_a_title() -> None:
    svg = join_qr_svg(JOIN, title="QR code <of> the join link")
    root = ET.fromstring(svg)  # well-formed: the title is escaped
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
    assert root.get("width") is None  # the page sizes it
    assert root.find("{http://www.w3.org/2000/svg}title").text == "QR code <of> the join link"  # type: ignore[union-attr]


def test_the_qr_code_reads_back_as_the_join_link() -> None:
    zxingcpp = pytest.importorskip("zxingcpp", reason="zxing-cpp (a QR decoder) is not installed")
    from PIL import Image

    for link in (JOIN, "http://192.168.1.20:8501/join?code=X4Y7K&lang=ar"):
        png = join_qr_png(link)
        assert png.startswith(b"\x89PNG")
        assert [found.text for found in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))] == [link]


@pytest.mark.parametrize("link", ["", "javascript:alert(1)", "join?code=ACDEF", "https://x/" + "a" * 1000, None])
def test_only_a_web_address_becomes_a_qr_code(link: object) -> None:
    with pytest.raises(ValueError, match="join link"):
        join_qr_svg(link)  # type: ignore[arg-type]
