"""Words the class's service writes for a reader (its errors), marked for the interface's catalog.

The same two tools as attention_core/words.py, kept here so that a student's process opens a class without importing
attention_core (and torch with it): `N_` marks a template where it is written; a `Worded` reads as the English
sentence and keeps its template and values, so a page can translate the template and fill the values in again
(`_(error.args[0].template).format(**error.args[0].values)`, or ui.i18n.say once it reads any Worded).
"""

from __future__ import annotations


def N_(text: str) -> str:
    """Marks `text` for the catalog (gettext's name for it); returns it unchanged."""
    return text


class Worded(str):
    """A reader's sentence made from a template marked with `N_` and its values; a plain `str` otherwise."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Worded:
        text = super().__new__(cls, template.format(**values))
        text.template, text.values = template, values
        return text
