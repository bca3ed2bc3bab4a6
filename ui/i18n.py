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
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from babel.messages.pofile import read_po

from attention_core.head_names import is_head_name, written_head_name
from attention_core.words import Worded

LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "ar": "العربية"}  # the switch's options: each language in its own words
SOURCE_LANGUAGE = "en"  # the language the code is written in
LANGUAGE_KEY = "lang"  # session key and URL parameter: ?lang=ar
_SWITCH_KEY = "language_switch"  # the sidebar switch's own key
_DRAWN_IN = "language_widgets_drawn_in"  # session key: widget key → the language it was last drawn in
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


def translated_figure(figure: go.Figure) -> go.Figure:
    """The figure with the words attention_core.figures wrote (marked there with attention_core.words.N_) in this
    session's language: its title, axis and colour-bar titles, legend and trace names, hover templates and
    annotations. Tick labels are the sentence's words, or labels the app passed in already translated. In place: every
    figure is built afresh on each run, and a copy of a large one costs as much as building it (docs/speed.md). The
    figure's own dictionaries are edited (what it serialises, and what Plotly's property objects read): through the
    property objects, with their validators, this took 19 ms of a Multi-head rerun."""
    if language() == SOURCE_LANGUAGE:
        return figure
    layout: dict[str, Any] = figure._layout  # Plotly's own store of the layout
    holders = [layout, layout.get("xaxis"), layout.get("yaxis"), layout.get("legend")]
    for holder in holders:
        _translate_title(holder)
    for annotation in layout.get("annotations") or []:
        _translate_key(annotation, "text")
    _translate_head_names(layout, figure._data)
    for trace in figure._data:  # Plotly's own store of the traces
        _translate_key(trace, "name")
        _translate_key(trace, "hovertemplate")
        _translate_title(trace.get("colorbar"))
    return figure


def _translate_head_names(layout: dict[str, Any], traces: list[dict[str, Any]]) -> None:
    """Axes that name heads ("L1"…, "H1"…, "L2 H3"…) and panel titles that do, in this session's language. The axes'
    values stay English (a lesson's mark and a click name a head by them); only the text drawn changes."""
    for name, axis in list(layout.items()):
        if not (isinstance(axis, dict) and re.fullmatch(r"[xy]axis\d*", name)):
            continue
        shown = axis.get("ticktext")
        if shown is None:  # a category axis without tick text: the traces' own values are drawn
            axis_id = name.replace("axis", "")  # "xaxis2" → "x2", as a trace names the axes it is drawn on
            values = next((t.get(name[0]) for t in traces if t.get(f"{name[0]}axis", name[0]) == axis_id), None)
            if not (isinstance(values, list | tuple) and values and all(isinstance(v, str) for v in values)):
                continue
            shown = list(dict.fromkeys(values))
            if all(is_head_name(text) for text in shown):
                axis["tickvals"] = shown
        if isinstance(shown, list | tuple) and shown and all(isinstance(t, str) and is_head_name(t) for t in shown):
            axis["ticktext"] = [shown_head_name(text) for text in shown]
    for annotation in layout.get("annotations") or []:
        if isinstance(annotation, dict) and isinstance(annotation.get("text"), str):
            annotation["text"] = shown_head_name(annotation["text"])


def _translate_key(holder: object, key: str) -> None:
    if isinstance(holder, dict) and isinstance(holder.get(key), str) and holder[key]:
        holder[key] = _(holder[key])


def _translate_title(holder: object) -> None:
    """A title written as a string or as {"text": …}."""
    if not isinstance(holder, dict):
        return
    if isinstance(holder.get("title"), dict):
        _translate_key(holder["title"], "text")
    else:
        _translate_key(holder, "title")


def language() -> str:
    """This session's language: the switch's value, a link's ?lang=, or English."""
    chosen = st.session_state.get(LANGUAGE_KEY)
    return chosen if chosen in LANGUAGES else SOURCE_LANGUAGE


def right_to_left() -> bool:
    """Whether this session's interface reads right to left."""
    return language() in RIGHT_TO_LEFT


def in_language(lang: str, message: str) -> str:
    """The message in the given language, whatever the session's (a link may come from another language); itself in
    English, or where the catalog lacks it."""
    return message if lang == SOURCE_LANGUAGE else catalog(lang).singular.get(message, message)


def _(message: str) -> str:
    """The message in this session's language."""
    return in_language(language(), message)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it now (gettext's name): translate it where it is drawn."""
    return message


def option_labels(options: Iterable[str]) -> Callable[[str], str]:
    """A widget's format_func for options marked with N_ (English values, the labels translated): the labels are
    looked up now, in this session's run. `format_func=_` would look them up whenever the widget's value is shown,
    and AppTest does that outside any run, where the language is unknown (English labels, not among the options)."""
    return {option: _(option) for option in options}.__getitem__


def _worded(text: object) -> bool:
    """A Worded of the package or of the classroom service (classroom/words.py keeps its own copy of the class so a
    student's process never imports attention_core): a str with its template and values."""
    return isinstance(text, Worded) or (
        isinstance(text, str)
        and isinstance(getattr(text, "template", None), str)
        and isinstance(getattr(text, "values", None), dict)
    )


def say(text: object) -> str:
    """A sentence a package wrote for a reader (a Worded of attention_core.words or classroom.words, or an error
    raised with one) in this session's language: its template translated, its values filled in again (a Worded
    value, or an error, said too). Any other text (a library's own message) as it is."""
    if isinstance(text, BaseException):
        text = text.args[0] if len(text.args) == 1 else str(text)
    if _worded(text):
        worded: Worded = text  # type: ignore[assignment]
        values = {k: say(v) if _worded(v) or isinstance(v, BaseException) else v for k, v in worded.values.items()}
        return _(worded.template).format(**values)
    return str(text)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that n needs, in this session's language."""
    lang = language()
    if lang != SOURCE_LANGUAGE:
        forms = catalog(lang).plural.get(singular)
        if forms is not None:
            return forms[min(catalog(lang).form(n), len(forms) - 1)]
    return singular if n == 1 else plural


def settle_language() -> None:
    """Before anything is drawn, every run: the language a link names (?lang=ar) wins; without one, the session's
    (or, on a first visit, the browser's language, st.context.locale) is written into the URL, so the address bar
    and every link built from it name it, also after a page switch cleared the query. A ?lang= for a language the
    app does not have is dropped."""
    linked = st.query_params.get(LANGUAGE_KEY)
    if linked is not None and linked not in LANGUAGES:
        del st.query_params[LANGUAGE_KEY]
        linked = None
    if linked is not None:
        st.session_state[LANGUAGE_KEY] = linked
        return
    if LANGUAGE_KEY not in st.session_state:
        browser = (st.context.locale or "").split("-")[0].lower()  # "ar-EG" → "ar"
        st.session_state[LANGUAGE_KEY] = browser if browser in LANGUAGES else SOURCE_LANGUAGE
    if st.session_state[LANGUAGE_KEY] != SOURCE_LANGUAGE:
        st.query_params[LANGUAGE_KEY] = st.session_state[LANGUAGE_KEY]


def _switched() -> None:
    chosen = st.session_state[_SWITCH_KEY] or SOURCE_LANGUAGE
    st.session_state[LANGUAGE_KEY] = chosen
    if chosen == SOURCE_LANGUAGE:
        del st.query_params[LANGUAGE_KEY]
    else:
        st.query_params[LANGUAGE_KEY] = chosen


def shown_head_name(name: str) -> str:
    """A head's, layer's or head column's English short name ("L2 H1", "L2", "H1", as widgets and links hold them) in
    this session's language ("ط2 ر1"); any other text as it is (a widget's format_func). attention_core/head_names.py
    spells them."""
    return written_head_name(name, _)


def reading_order(columns: Iterable[str]) -> list[str]:
    """A table's columns in the interface's reading order: an Arabic table starts on the right (Streamlit draws a
    dataframe on a canvas, which no page direction turns round)."""
    return list(columns)[::-1] if right_to_left() else list(columns)


def keep_choice_across_languages(key: str) -> None:
    """Before an unbound widget with translated option labels is drawn: when the language changed since it was last
    drawn, its value is set again. The browser takes a widget drawn with other labels for a new one, and a radio then
    showed no choice (the Model switch, after English → العربية); a value set in code makes it show it."""
    drawn_in: dict[str, str] = st.session_state.setdefault(_DRAWN_IN, {})
    if drawn_in.get(key) not in (None, language()) and key in st.session_state:
        st.session_state[key] = st.session_state[key]
    drawn_in[key] = language()


def language_switch() -> str:
    """The sidebar's switch, English / العربية. The language lives in the session and in the URL (?lang=ar, not
    bound as widgets are: a bound switch would put its label, العربية, in the link), so a teacher's link opens in
    Arabic. Two radio buttons side by side: in presentation mode's narrow sidebar they wrap whole (two segmented
    buttons wrapped and cut the first one's border)."""
    st.session_state[_SWITCH_KEY] = language()
    st.sidebar.radio(
        "Language · اللغة",
        list(LANGUAGES),
        format_func=LANGUAGES.__getitem__,
        key=_SWITCH_KEY,
        on_change=_switched,
        horizontal=True,
    )
    return language()
