"""The translation catalogs: extract the app's marked strings, list what a language still lacks, add translations.

    .venv/bin/python -m tools.catalog extract              # code → locales/messages.pot → every locales/*/…/messages.po
    .venv/bin/python -m tools.catalog missing --lang ar    # the messages Arabic lacks, as JSON {msgid: ""}
    .venv/bin/python -m tools.catalog fill --lang ar t.json   # add translations from JSON {msgid: msgstr}
    .venv/bin/python -m tools.catalog check --lang ar      # exit 1 if a message lacks its translation

Plural messages (ngettext) take a list of forms in the JSON: Arabic has six (n = 0, 1, 2, 3–10, 11–99, 100+).
A translator can as well open locales/ar/LC_MESSAGES/messages.po in Poedit or any text editor: this tool only saves
typing. It holds a lock on the catalog while it writes, so two people (or agents) filling at once lose nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"
TEMPLATE = LOCALES / "messages.pot"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}  # the markers ui/i18n.py defines


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / "messages.po"


@contextlib.contextmanager
def locked() -> Iterator[None]:
    LOCALES.mkdir(exist_ok=True)
    with (LOCALES / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def extracted() -> Catalog:
    """Every marked message of the code, with where it is used (babel.cfg names the files)."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    template = Catalog(project="the attention explainer", fuzzy=False)
    for file, line, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    ):
        template.add(message, None, [(file, line)], auto_comments=comments, context=context)
    return template


def read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=language)


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=120, sort_output=True, include_lineno=False)


def extract() -> None:
    with locked():
        template = extracted()
        write(template, TEMPLATE)
        for po in sorted(LOCALES.glob("*/LC_MESSAGES/messages.po")):
            language = po.parts[-3]
            catalog = read(po, language)
            catalog.update(template, no_fuzzy_matching=True)  # a fuzzy guess is worse than an honest gap
            catalog.obsolete.clear()  # messages the code no longer has
            write(catalog, po)
            print(f"{po.relative_to(ROOT)}: {len(catalog)} messages, {len(untranslated(catalog))} untranslated")


def untranslated(catalog: Catalog) -> list[object]:
    def done(message: object) -> bool:
        string = message.string  # type: ignore[attr-defined]
        return all(string) if isinstance(string, tuple) else bool(string)

    return [m.id for m in catalog if m.id and not done(m)]


def missing(language: str) -> None:
    gaps = untranslated(read(catalog_path(language), language))
    json.dump({(m[0] if isinstance(m, tuple) else m): "" for m in gaps}, sys.stdout, ensure_ascii=False, indent=1)
    print()


def fill(language: str, translations: dict[str, str | list[str]]) -> None:
    with locked():
        path = catalog_path(language)
        catalog = read(path, language)
        by_singular = {(m.id[0] if isinstance(m.id, tuple) else m.id): m for m in catalog if m.id}
        unknown = [msgid for msgid in translations if msgid not in by_singular]
        for msgid, text in translations.items():
            if msgid in by_singular:
                message = by_singular[msgid]
                message.string = tuple(text) if isinstance(message.id, tuple) else str(text)
        write(catalog, path)
    print(f"{len(translations) - len(unknown)} translations added to {path.relative_to(ROOT)}")
    if unknown:
        print(f"{len(unknown)} not in the catalog (run `extract` after marking them):", *unknown, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["extract", "missing", "fill", "check"])
    parser.add_argument("file", nargs="?", type=Path, help="fill: a JSON file {msgid: msgstr}")
    parser.add_argument("--lang", default="ar", help="the language's code (a folder of locales/)")
    args = parser.parse_intermixed_args()
    if args.command == "extract":
        extract()
    elif args.command == "missing":
        missing(args.lang)
    elif args.command == "fill":
        fill(args.lang, json.loads(args.file.read_text(encoding="utf-8")))
    else:
        gaps = untranslated(read(catalog_path(args.lang), args.lang))
        print(f"{len(gaps)} messages lack their {args.lang} translation", *gaps[:20], sep="\n  ")
        sys.exit(1 if gaps else 0)


if __name__ == "__main__":
    main()
