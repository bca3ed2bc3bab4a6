"""The interface in Arabic (issue 16): every marked string has its Arabic translation with the same placeholders,
nothing is marked in a way the catalog cannot see, and the language switch, a link's ?lang= and the page direction
work."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import assert_clean, open_framed_link
from tools.catalog import extracted
from ui.i18n import LANGUAGES, SOURCE_LANGUAGE, catalog
from ui.navigation import SIDEBAR_NOTE

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
MARKERS = {"_", "N_", "ngettext"}
TRANSLATED = [language for language in LANGUAGES if language != SOURCE_LANGUAGE]


def marked_messages() -> list[str | tuple[str, ...]]:
    return [message.id for message in extracted() if message.id]


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_marked_string_has_its_translation_with_the_same_placeholders(language: str) -> None:
    translations = catalog(language)
    missing, broken = [], []
    for msgid in marked_messages():
        if isinstance(msgid, tuple):
            forms = translations.plural.get(msgid[0])
            if forms is None:
                missing.append(msgid[0])
            elif any(set(PLACEHOLDER.findall(form)) - set(PLACEHOLDER.findall(msgid[1])) for form in forms):
                broken.append(msgid[0])
            continue
        text = translations.singular.get(msgid)
        if text is None:
            missing.append(msgid)
        elif set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(msgid)):
            broken.append(msgid)
    how = "python -m tools.catalog extract, then missing"
    assert not missing, f"{len(missing)} strings lack their {language} entry ({how}): {missing[:10]}"
    assert not broken, f"placeholders differ from the English: {broken[:10]}"


def python_files() -> list[Path]:
    folders = [ROOT / "pages", ROOT / "ui"]
    package = sorted((ROOT / "attention_core").rglob("*.py"))
    return [ROOT / "app.py", *(path for folder in folders for path in sorted(folder.rglob("*.py"))), *package]


@pytest.mark.parametrize("path", python_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_marked_string_is_a_plain_literal_the_catalog_can_read(path: Path) -> None:
    """_(f"…") or _(text + "…") would be looked up under a key no catalog has: the reader would get English."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS):
            continue
        first = node.args[0] if node.args else None
        literals = [isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in node.args[:2]]
        if node.func.id == "_":  # _(name) translates a string marked where it was written (N_)
            if isinstance(first, ast.JoinedStr | ast.BinOp):
                bad.append(node.lineno)
        elif not all(literals[: 2 if node.func.id == "ngettext" else 1]):
            bad.append(node.lineno)
    assert not bad, f"{path.name}: markers around something other than a plain string, lines {bad}"


def test_the_arabic_catalog_reads_plural_forms_as_arabic_counts() -> None:
    rule = catalog("ar")
    assert [rule.form(n) for n in (0, 1, 2, 3, 10, 11, 99, 100, 102)] == [0, 1, 2, 3, 3, 4, 4, 5, 5]


def sidebar_note(at: AppTest) -> str:
    return next(caption.value for caption in at.sidebar.caption if "W1" in caption.value)


def rtl_style(at: AppTest) -> bool:
    return "direction: rtl" in "".join(element.proto.body for element in at.get("html"))


def test_a_link_with_lang_ar_opens_the_app_in_arabic_and_the_switch_goes_back_to_english() -> None:
    at = open_framed_link("similarity", lang="ar")
    assert_clean(at)
    assert at.radio(key="language_switch").value == "ar"
    assert sidebar_note(at) == catalog("ar").singular[SIDEBAR_NOTE] and rtl_style(at)
    at.radio(key="language_switch").set_value("en").run()
    assert sidebar_note(at) == SIDEBAR_NOTE and not rtl_style(at) and "lang" not in at.query_params
    at.radio(key="language_switch").set_value("ar").run()
    assert sidebar_note(at) != SIDEBAR_NOTE and at.query_params["lang"] in ("ar", ["ar"])


def test_a_language_the_app_does_not_have_falls_back_to_english() -> None:
    at = open_framed_link("similarity", lang="xx")
    assert_clean(at)
    assert at.radio(key="language_switch").value == "en" and sidebar_note(at) == SIDEBAR_NOTE
