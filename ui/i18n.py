"""The app's words in the reader's language: English, or Arabic (right to left, the whole page).

Every string a user reads is written in English in the code, marked for translation, and looked up in a gettext
catalog per language: locales/<language>/LC_MESSAGES/*.po, the format translators edit (Poedit, Weblate, a text
editor), read with Babel. The code marks a string in one of two ways:

- `_("Layer {layer}, head {head}").format(layer=…, head=…)` where the text is used: translated for this session's
  language. Never an f-string inside `_()`: the catalog's key must be the text as written, placeholders included.
- `N_("…")` where the text is defined once and used later (a constant at module level, a lesson's title): marked for
  the catalog, translated with `_()` where it is drawn, since the language is known only in a session's run.

`ngettext(singular, plural, n)` picks the plural form the language needs (Arabic has six). A string the catalog
lacks stays English (tests/test_i18n.py fails on it). How to add a language: docs/translating.md.
"""

from __future__ import annotations

import functools
import gettext
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "ar": "العربية"}  # the switch's options: each language in its own words
SOURCE_LANGUAGE = "en"  # the language the code is written in
LANGUAGE_KEY = "lang"  # session key and URL parameter: ?lang=ar
RIGHT_TO_LEFT = frozenset({"ar"})


@dataclass(frozen=True)
class Catalog:
    """One language's translations: msgid → msgstr, plural msgids → their forms, and the rule choosing a form."""

    singular: dict[str, str]
    plural: dict[str, tuple[str, ...]]
    plural_form: object  # callable n → form index, from the catalog's Plural-Forms header

    def form(self, n: int) -> int:
        return int(self.plural_form(n))  # type: ignore[operator]


@functools.cache
def catalog(language: str) -> Catalog:
    """Every .po file of the language, merged (one file for a translator; several are read the same way)."""
    singular: dict[str, str] = {}
    plural: dict[str, tuple[str, ...]] = {}
    plural_form = gettext.c2py("(n != 1)")
    for path in sorted((LOCALES / language / "LC_MESSAGES").glob("*.po")):
        with path.open("rb") as file:
            po = read_po(file, locale=language)
        plural_form = gettext.c2py(po.plural_expr)  # the C expression of the Plural-Forms header
        for message in po:
            msgid, msgstr = message.id, message.string
            if not msgid or message.fuzzy:
                continue
            if isinstance(msgid, tuple | list) and isinstance(msgstr, tuple | list):
                if all(msgstr):
                    plural[str(msgid[0])] = tuple(str(form) for form in msgstr)
            elif isinstance(msgid, str) and isinstance(msgstr, str) and msgstr:
                singular[msgid] = msgstr
    return Catalog(singular, plural, plural_form)


def language() -> str:
    """This session's language: the switch's value, a link's ?lang=, or English."""
    chosen = st.session_state.get(LANGUAGE_KEY) or st.query_params.get(LANGUAGE_KEY)
    return chosen if chosen in LANGUAGES else SOURCE_LANGUAGE


def right_to_left() -> bool:
    """Whether this session's interface reads right to left."""
    return language() in RIGHT_TO_LEFT


def _(message: str) -> str:
    """The message in this session's language (itself in English, or where the catalog lacks it)."""
    lang = language()
    if lang == SOURCE_LANGUAGE:
        return message
    return catalog(lang).singular.get(message, message)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it now (gettext's name): translate it where it is drawn."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that n needs, in this session's language."""
    lang = language()
    if lang != SOURCE_LANGUAGE:
        forms = catalog(lang).plural.get(singular)
        if forms is not None:
            return forms[min(catalog(lang).form(n), len(forms) - 1)]
    return singular if n == 1 else plural


def settle_language() -> None:
    """Before anything is drawn: a session's first visit without ?lang= follows the browser's language
    (st.context.locale), written into the URL at once, so the address bar and every link built from it name the
    language; a ?lang= for a language the app does not have is dropped."""
    if st.query_params.get(LANGUAGE_KEY) not in (None, *LANGUAGES):
        del st.query_params[LANGUAGE_KEY]
    if LANGUAGE_KEY not in st.session_state and LANGUAGE_KEY not in st.query_params:
        browser = (st.context.locale or "").split("-")[0].lower()  # "ar-EG" → "ar"
        if browser in LANGUAGES and browser != SOURCE_LANGUAGE:
            st.query_params[LANGUAGE_KEY] = browser
            st.session_state[LANGUAGE_KEY] = browser  # the switch reads a link's value, not one set in this run


def language_switch() -> str:
    """The sidebar's switch, English / العربية, bound to the URL (?lang=ar), so a teacher's link opens in Arabic."""
    return str(
        st.sidebar.segmented_control(
            "Language · اللغة",
            list(LANGUAGES),
            format_func=LANGUAGES.__getitem__,
            default=SOURCE_LANGUAGE,
            key=LANGUAGE_KEY,
            bind="query-params",
            required=True,
        )
    )
