"""Words the package writes for a reader (figures' axis and colour-bar titles, legend names, captions; a sentence
that explains a result), marked for the interface's translation catalog. The package knows no language and never imports the app: `N_` only marks a text where it is
written; the app translates the figure's texts as it draws it (ui/i18n.py, `translated_figure`)."""


def N_(text: str) -> str:
    """Marks `text` for the catalog (gettext's name for it); returns it unchanged."""
    return text
