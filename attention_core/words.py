"""Words the package writes for a reader (figures' axis and colour-bar titles, legend names, captions; a sentence
that explains a result), marked for the interface's translation catalog. The package knows no language and never
imports the app: `N_` only marks a text where it is written; the app translates the figure's texts as it draws it
(ui/i18n.py, `translated_figure`), and a Worded sentence or error where it shows it (ui/i18n.py, `say`)."""

from __future__ import annotations


def N_(text: str) -> str:
    """Marks `text` for the catalog (gettext's name for it); returns it unchanged."""
    return text


class Worded(str):
    """A reader's sentence with values in it, made from a template marked with `N_`: it reads as the English
    sentence (a plain `str`, for the command line, logs and tests), and keeps its template and values so the app
    can translate the template and fill the values in again (ui.i18n.say). Values that are themselves Worded are
    translated too; any other value (a file name, a number, a library's own message) stays as it is.

        raise CorpusError(Worded(N_("{name}: is empty (no non-blank lines)"), name=name))
    """

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Worded:
        text = super().__new__(cls, template.format(**values))
        text.template, text.values = template, values
        return text
