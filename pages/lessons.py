"""Lessons: sentences chosen to show one thing each, opened on the page and settings that show it."""

import streamlit as st

from ui.bidi import isolate
from ui.i18n import LANGUAGE_KEY, SOURCE_LANGUAGE, _, language
from ui.lessons.catalogue import LESSONS
from ui.lessons.view import forget_opened_lesson, in_reading_order
from ui.links import href
from ui.navigation import ensure_app_frame

ensure_app_frame()

st.title(_("Lessons: sentences that show something"))
st.markdown(
    _(
        "Each lesson opens a page with a sentence and the settings that show one idea: repetition, agreement, "
        "negation, a word with two meanings, word order, heads with rules — in the Arabic model trained here and in "
        "MiniLM, a pretrained English transformer. Every lesson is also a link to share: it reopens exactly that "
        "view. The claims below are checked against the models by the test suite."
    )
)
st.markdown(
    _(
        "**A live class:** open a lesson's *quiz version* on the projector and press **Start a live class**: "
        "students join from their phones with the class code or its QR code, answer, and the class's answers meet "
        "the model's when you reveal (the menu's *Join a live class* is their way in)."
    )
)
forget_opened_lesson()  # a lesson opened from here starts clean, even one opened before
topics = sorted({lesson.topic for lesson in LESSONS}, key=_)  # English values (tests, the session), shown translated
# Nothing picked shows every lesson; picking topics narrows the gallery to them.
chosen = st.pills(
    _("Topics (pick some to see only those)"), topics, selection_mode="multi", format_func=_, key="lessons_topics"
)


# What every link adds to a lesson's own query: the page's language (a link copied from an Arabic page opens in
# Arabic, whatever the browser's language). Never presentation mode: it stays on in this session, and a link given
# to the class opens on their phones in a phone's type.
view: dict[str, str | list[str]] = {LANGUAGE_KEY: language()} if language() != SOURCE_LANGUAGE else {}
columns = st.columns(2)
shown = [lesson for lesson in LESSONS if not chosen or lesson.topic in chosen]
for index, lesson in enumerate(shown):
    with columns[index % 2].container(border=True):
        st.markdown(f"**{in_reading_order(_(lesson.title))}** · *{_(lesson.topic)}*")
        st.text(isolate(lesson.sentence))  # plain text: a sentence is never read as Markdown
        st.markdown(in_reading_order(_(lesson.look_for)))
        query = lesson.query() | view
        # A page link, not a button and st.switch_page: the link carries the lesson in its query.
        # One under the other, not side by side: on a projector's larger type the label was cut in a column.
        st.page_link(
            f"pages/{lesson.page}.py",
            label=_("Open this lesson"),
            icon=":material/school:",
            query_params=query,
        )
        share = _("Link to share")  # (a marker inside an f-string is invisible to the catalog's extraction)
        st.markdown(f"[{share}]({href(lesson.page, query)})")
        quiz = lesson.quiz_query()
        if quiz is not None:  # the same lesson as a question: guess where the word looks, then reveal
            label = _("Quiz version: guess first")
            st.markdown(f"[{label}]({href(lesson.page, quiz | view)})")
