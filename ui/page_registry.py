"""The app's pages, in one place: the navigation builds its menu from this list, and every walk over "all the pages"
reads it too (the accessibility audit, the right-to-left and bad-input tests, the screenshot tool), so a new page
is added here once and no walk misses it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ui.i18n import N_


@dataclass(frozen=True)
class AppPage:
    """One page: `name` is its file (pages/NAME.py) and the prefix of its widget keys and URL parameters."""

    name: str
    title: str  # in English, marked for translation (ui/i18n.py)
    sentence_box: bool = False  # it reads a sentence from the shared sentence box (ui/controls.sentence_input)
    default: bool = False  # served at / (the idea page)

    @property
    def url_path(self) -> str:
        """Where the page is served: "" (the address /) for the default page, its name for the others."""
        return "" if self.default else self.name


PAGES: tuple[AppPage, ...] = (
    AppPage("idea", N_("The idea"), default=True),
    AppPage("lessons", N_("Lessons")),
    AppPage("similarity", N_("Similarity: V·Vᵀ"), sentence_box=True),
    AppPage("trainable", N_("Trainable attention: W1, W2, W3"), sentence_box=True),
    AppPage("heads", N_("Multi-head attention"), sentence_box=True),
    AppPage("abstraction", N_("Abstraction"), sentence_box=True),  # its title says the rest; a long name was cut
    AppPage("pairs", N_("Minimal pairs")),
    AppPage("fill_blank", N_("Fill the blank"), sentence_box=True),
    AppPage("word_order", N_("Word order"), sentence_box=True),
    AppPage("train", N_("Train your own")),
    AppPage("join", N_("Join a live class")),
)
SENTENCE_PAGES: tuple[str, ...] = tuple(page.name for page in PAGES if page.sentence_box)


def page_named(name: str) -> AppPage:
    """The page whose file is pages/NAME.py."""
    return next(page for page in PAGES if page.name == name)
