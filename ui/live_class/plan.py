"""The teacher's lesson plan: quiz questions prepared in advance, each with its reflection prompt and whether students
may open the quiz's own page after the reveal; added from any quiz, downloaded as JSON (classroom.plan) and uploaded
again another day, walked through one question at a time (Go to the plan's next question opens its quiz, and a class
on asks it at once).

The plan lives in the teacher's session; its file holds quiz links and prompts, nothing about students.
"""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlsplit

import streamlit as st

from attention_core.head_names import LAYER_HEAD_SHORT, english_head_name
from classroom.plan import from_json, quiz_link, to_json
from classroom.question import Question
from ui.bidi import isolate
from ui.i18n import LANGUAGES, _, in_language, say
from ui.live_class.session import HEAD, app_host, shown_head
from ui.markdown import plain

PLAN_KEY, AT_KEY = "live_plan", "live_plan_at"  # session: the plan's questions, the one opened last (its index)
PENDING_KEY = "live_plan_pending"  # session: the quiz page just opened from the plan (a class on asks its question)
PLAN_PARAM = "live_plan"  # URL: the plan's question a page link opened (1, 2, …); read and dropped at once
PROMPT_KEY, OPEN_KEY = "live_prompt", "live_open_page"  # this question's settings, kept across pages
PROMPT_LENGTH = 300


def question_settings() -> None:
    """The settings of the question about to be asked: its reflection prompt and whether students may open its page."""
    st.text_input(
        _("Reflection prompt, shown to everyone after the reveal (optional)"),
        key=PROMPT_KEY,
        max_chars=PROMPT_LENGTH,
        persist_state="session",
        placeholder=_("e.g. Why does it look there? What would change its mind?"),
    )
    st.toggle(
        _("After the reveal, students may open this quiz's page with its settings"),
        key=OPEN_KEY,
        persist_state="session",
        help=_("Off: students see the sentence, the question and the answer, never the settings of the page."),
    )


def plan_items() -> list[dict[str, Any]]:
    """The plan's questions: {"link": a quiz link, "locked": bool, "prompt": str}."""
    return list(st.session_state.get(PLAN_KEY, []))


def lesson_plan(asked: Question) -> None:
    """The plan: add this question, its list, the next question, download and upload."""
    st.markdown(_("**Lesson plan**"))
    items = plan_items()
    st.button(_("Add this question to the plan"), key="live_plan_add", on_click=_add, args=(asked.link,))
    added = st.session_state.pop("live_plan_added", None)
    if isinstance(added, str):
        st.error(added)
    elif added:
        st.toast(_("Added as question {n} of the plan.").format(n=added))
    if not items:
        st.caption(_("No questions yet: open a quiz, pick its head and word, and add it here."))
    for i, item in enumerate(items):
        _plan_line(i, item)
    at = int(st.session_state.get(AT_KEY, -1))
    if at + 1 < len(items):  # a page link: the session, and the class in it, goes along (a full reload would not)
        page, query = _split(items[at + 1]["link"])
        st.page_link(
            f"pages/{page}.py",
            label=_("Go to the plan's question {n}").format(n=at + 2),
            icon=":material/skip_next:",
            query_params=query | {PLAN_PARAM: str(at + 2)},
        )
    download, upload = st.columns(2)
    if items:
        download.download_button(
            _("Download the plan (JSON)"),
            plan_json(items),
            "lesson-plan.json",
            "application/json",
            key="live_plan_get",
        )
    uploaded = upload.file_uploader(_("Open a saved plan"), type=["json"], key="live_plan_file")
    if uploaded is not None and st.session_state.get("live_plan_read") != uploaded.file_id:
        st.session_state["live_plan_read"] = uploaded.file_id
        try:
            st.session_state[PLAN_KEY] = plan_from_json(uploaded.getvalue(), app_host())
            st.session_state[AT_KEY] = -1
            st.rerun()
        except ValueError as error:
            st.error(say(error))


def _add(link: str) -> None:
    """Adds the quiz's question with this question's settings (a callback: a page's first rerun kept no click)."""
    items = plan_items()
    try:
        items.append(
            {
                "link": quiz_link(link),
                "locked": not st.session_state.get(OPEN_KEY, False),
                "prompt": str(st.session_state.get(PROMPT_KEY, "")).strip(),
            }
        )
    except ValueError as error:
        st.session_state["live_plan_added"] = say(error)
        return
    st.session_state[PLAN_KEY] = items
    st.session_state["live_plan_added"] = len(items)


def _remove(i: int) -> None:
    items = plan_items()
    del items[i]
    st.session_state[PLAN_KEY] = items
    st.session_state[AT_KEY] = min(int(st.session_state.get(AT_KEY, -1)), len(items) - 1)


def _plan_line(i: int, item: dict[str, Any]) -> None:
    query = parse_qs(urlsplit(item["link"]).query)
    page = item["link"].partition("?")[0]
    word = isolate(plain(item.get("word") or query.get(f"{page}_quiz_row", ["?"])[0]))
    sentence = isolate(plain(_short(item.get("sentence") or query.get(f"{page}_sentence", [""])[0])))
    head = shown_head(english_head(query.get(f"{page}_quiz_head", [""])[0]) or None)
    line, remove = st.columns([6, 1], vertical_alignment="center")
    if head is None:  # a page of one map (Similarity)
        text = _("{n}. {word} in “{sentence}”").format(n=i + 1, word=word, sentence=sentence)
    else:
        text = _("{n}. {head} · {word} in “{sentence}”").format(
            n=i + 1, head=isolate(plain(head)), word=word, sentence=sentence
        )
    flags = _("page locked") if item["locked"] else _("students may open its page")
    line.markdown(f"{text} · {flags}" + (f" · *{plain(item['prompt'])}*" if item["prompt"] else ""))
    remove.button(_("Remove"), key=f"live_plan_remove_{i}", on_click=_remove, args=(i,))


def english_head(linked: str) -> str:
    """A head's name as a quiz link holds it, in the language the link was made in ("L4 H2", «ط4 ر2», "head 2",
    «الرأس 2»), in English, as a stored question names it (session.shown_head shows it again); other text as
    it is."""
    for language in LANGUAGES:
        for template in (LAYER_HEAD_SHORT, HEAD):
            english = english_head_name(linked.strip(), partial(in_language, language), template)
            if english != linked.strip():
                return english
    return linked


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "…"


def _split(link: str) -> tuple[str, dict[str, str | list[str]]]:
    parsed = parse_qs(urlsplit(link).query, keep_blank_values=True)
    return link.partition("?")[0], {key: v if len(v) > 1 else v[0] for key, v in parsed.items()}


def arrive_from_plan() -> None:
    """Before the page is drawn: a quiz opened from the plan (?live_plan=N) starts clean on the plan's question N,
    as a lesson does (ui/lessons/view.py): Streamlit would give the page's controls their last values back over the
    link's. Its prompt and lock become this question's, and a class on asks it at once (PENDING_KEY)."""
    number = st.query_params.get(PLAN_PARAM)
    if number is None:
        return
    del st.query_params[PLAN_PARAM]
    items = plan_items()
    if not number.isdigit() or not 0 < int(number) <= len(items):
        return
    item = items[int(number) - 1]
    page = item["link"].partition("?")[0]
    for key in [key for key in st.session_state if str(key).startswith(f"{page}_")]:
        del st.session_state[key]
    st.session_state[AT_KEY] = int(number) - 1
    st.session_state[PROMPT_KEY] = item["prompt"]
    st.session_state[OPEN_KEY] = not item["locked"]
    st.session_state[PENDING_KEY] = page


def plan_json(items: list[dict[str, Any]]) -> str:
    """The plan's file (classroom.plan): each question's link, prompt and whether its page is locked."""
    return to_json(items)


def plan_from_json(text: bytes, host: str | None) -> list[dict[str, Any]]:
    """The questions of an uploaded plan file; ValueError (with a sentence to show) for anything else."""
    return from_json(text, host)
