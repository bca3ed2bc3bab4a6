"""The guided tour: the app's story, in the order of the article it follows, as twelve steps on the real pages.

A sentence is V; positions; V·Vᵀ; (V·Vᵀ)·V with softmax; W1, W2, W3; √d and the temperature; many heads; a head
knocked out; many layers; abstraction; the masking game; the heads that decide. Each step points at one real control
(outlined, scrolled to, named in words), says one thing that is computed on the learner's own sentence
(attention_core/story/tour_facts.py), and asks for one action; when the learner does it the next step opens by
itself, on its page. Back and Skip are on every step.

State: the step is in the URL (?tour=4), so a link resumes the tour; the learner's sentence is the one kept across
pages (ui/controls.py) and goes into each step's URL. A step's entry is made once (_ENTERED): its page opened with
the step's settings in the URL (as a lesson link does, ui/lessons/view.py), the settings' widgets reset so that the
URL wins. Completion is checked at the start of every run (ui/navigation.py) and at the end of the pages' fragments
(`follows_tour`), whose reruns do not run the app's frame.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

import streamlit as st

from attention_core.story.text import MASK, tokenize, written
from ui.accessibility import focus_here
from ui.examples import DEFAULT_SENTENCE
from ui.i18n import N_, _
from ui.tour.facts import step_fact

TOUR_PARAM = "tour"  # ?tour=4: the step a link opens; ?tour=done: the end
DONE = "done"
_ENTERED = "tour_entered"  # session: the step whose entry (its page, its settings) was made
_FIRST_SENTENCE = "tour_first_sentence"  # session: the sentence in the box when step 1 opened
_LAST = "tour_last"  # session: the last step entered, offered in the sidebar once the tour is left
_KEPT = "kept_sentence"  # the sentence kept across pages (ui/controls.py)
_OUTLINE = "#0b57d0"  # the focus ring's blue (ui/accessibility.py): 6.4:1 on white


@dataclass(frozen=True)
class Step:
    """One step: the page it runs on, the control it points at, what it says and asks, and when it is done."""

    name: str  # its name in tests and docs
    page: str  # file stem in pages/, which is also its URL path
    target: str  # the widget key of the control it points at (its element's class is st-key-<key>)
    title: str
    says: str  # one or two sentences; the computed fact follows them
    asks: str  # the one action that completes the step
    done: Callable[[Mapping[str, Any]], bool]  # on the session's state: has the learner done it?
    settings: dict[str, object] = field(default_factory=dict)  # the page's widget keys → values on entry
    resets: tuple[str, ...] = ()  # state the step starts without (a key, or a prefix ending in "_"), beside settings
    live: dict[str, str] = field(default_factory=dict)  # a live-class question here: the quiz's URL parameters

    def starts_without(self, key: str) -> bool:
        """Whether the step's entry drops `key` (its settings are then read from the URL, its resets are gone)."""
        return key in self.settings or any(key == r or (r.endswith("_") and key.startswith(r)) for r in self.resets)


def _sentence_typed(state: Mapping[str, Any]) -> bool:
    typed = state.get("similarity_sentence")
    return bool(typed and str(typed).strip()) and typed != state.get(_FIRST_SENTENCE)


def _other_word_hidden(state: Mapping[str, Any]) -> bool:
    """A word other than the last one hidden on Fill the blank (the page hides the last word first)."""
    last = _last_word(str(state.get(_KEPT) or ""))
    return any(str(key).startswith("fill_blank_hidden_") and value != last for key, value in state.items())


STEPS: list[Step] = [
    Step(
        "sentence",
        "similarity",
        "similarity_sentence",
        N_("A sentence is a matrix V"),
        N_(
            "Each word becomes a vector, its embedding plus its position, so a sentence of n words is a matrix V "
            "with one row per word."
        ),
        N_("Type a sentence of your own in the box **Your sentence**: the tour carries it to every page."),
        _sentence_typed,
    ),
    Step(
        "positions",
        "similarity",
        "similarity_position",
        N_("Where a word stands: positional encoding"),
        N_("V = E + P: each row is the word's vector plus the vector of its place in the sentence."),
        N_("Switch **Add positional encoding** off, in the sidebar (the menu at the top left on a phone)."),
        lambda state: state.get("similarity_position") is False,
        {"similarity_position": True},
    ),
    Step(
        "cosine",
        "similarity",
        "similarity_metric",
        N_("Words relate through V·Vᵀ"),
        N_(
            "Cell (i, j) of V·Vᵀ is the dot product of words i and j: how much they resemble each other. Divided by "
            "the vectors' lengths it is their cosine."
        ),
        N_("Set **Similarity** to *cosine*."),
        lambda state: state.get("similarity_metric") == "cosine",
        {"similarity_position": False, "similarity_metric": "dot"},
    ),
    Step(
        "softmax",
        "similarity",
        "similarity_softmax",
        N_("Attention is similarity times V"),
        N_(
            "(V·Vᵀ)·V turns each word into a mix of the words it resembles: that mix is attention, before anything "
            "is trained. Softmax makes each row shares that sum to 1."
        ),
        N_("Switch **Softmax each row** on."),
        lambda state: state.get("similarity_softmax") is True,
        {"similarity_position": False, "similarity_metric": "cosine", "similarity_softmax": False},
    ),
    Step(
        "W1",
        "trainable",
        "trainable_W1",
        N_("Attention learns its own views: W1, W2, W3"),
        N_(
            "V1 = V·W1, V2 = V·W2, V3 = V·W3 are three learned views of the sentence (others call them Q, K and V). "
            "With all three off, this is raw similarity again."
        ),
        N_("Switch **W1 (query)** on."),
        lambda state: state.get("trainable_W1") is True,
        {"trainable_W1": False, "trainable_W2": False, "trainable_W3": False},
    ),
    Step(
        "temperature",
        "trainable",
        "trainable_temperature",
        N_("√d and the temperature"),
        N_(
            "Before the softmax the scores are divided by √d, and here by a temperature too: the larger the divisor, "
            "the more evenly a word spreads its attention."
        ),
        N_("Raise the **Temperature** slider above 1."),
        lambda state: float(state.get("trainable_temperature") or 1.0) > 1.0,
        {"trainable_W1": True, "trainable_W2": False, "trainable_W3": False, "trainable_temperature": 1.0},
    ),
    Step(
        "head",
        "heads",
        "heads_head",
        N_("Many heads"),
        N_(
            "A trained model runs several attentions side by side, each with its own W1, W2, W3: each head learns "
            "its own rule."
        ),
        N_("Pick another head under **Head**."),
        lambda state: state.get("heads_head") not in (None, 1),
        {"heads_layer": 1, "heads_head": 1},
        live={"heads_quiz": "true", "heads_quiz_head": "L1 H1"},
    ),
    Step(
        "knock out",
        "heads",
        "heads_knock_out",
        N_("Knock a head out"),
        N_("Switch heads off and see what changes in the layers above them: does the model need that head?"),
        N_("Pick a head in **Heads to knock out**, or click one in the map."),
        lambda state: bool(state.get("heads_knock_out")),
        {"heads_view": "Knock heads out"},
        resets=("heads_knock_out",),
    ),
    Step(
        "layer",
        "heads",
        "heads_layer",
        N_("Many layers"),
        N_(
            "Each layer reads what the layer below made, so a higher layer can learn rules about the relations the "
            "lower ones found."
        ),
        N_("Pick another layer under **Layer**."),
        lambda state: state.get("heads_layer") not in (None, 1),
        {"heads_view": "One head, taken apart", "heads_layer": 1, "heads_head": 1},
    ),
    Step(
        "depth",
        "abstraction",
        "abstraction_depth",
        N_("So attention is abstraction"),
        N_(
            "Layer after layer each word becomes a mix of its context: higher layers work on relations and meaning "
            "instead of raw words, as a vision network's work on shapes instead of pixels."
        ),
        N_("Move the **Depth** slider."),
        lambda state: state.get("abstraction_depth") not in (None, 0),
        {"abstraction_depth": 0},
    ),
    Step(
        "hide",
        "fill_blank",
        "fill_blank_hidden_",
        N_("How it learned: hide a word, guess it"),
        N_(
            "A model like these learns everything you saw from one game: hide a word, guess it from the others. "
            "The blank can see the others only through attention."
        ),
        N_("Click another word to hide it."),
        _other_word_hidden,
        resets=("fill_blank_hidden_",),
        live={"fill_blank_quiz": "true"},
    ),
    Step(
        "rank",
        "fill_blank",
        "fill_blank_rank",
        N_("Which heads decide?"),
        N_("Knock each head out alone and measure how far the guess falls: a few heads carry the decision."),
        N_("Press **Rank every head**, under *Switch heads off*."),
        lambda state: "fill_blank_importance_result" in state,
        resets=("fill_blank_importance_result",),
    ),
]


def _last_word(text: str) -> int | None:
    """The place of the last word of `text`: the word Fill the blank hides first."""
    words = [i for i, token in enumerate(tokenize(text)) if token.is_word]
    return words[-1] if words else None


def _state() -> Mapping[str, Any]:
    """The session's state as the steps' checks read it: each widget's value by its key."""
    return st.session_state.to_dict()


def current_step() -> int | str | None:
    """The step the URL names: a number from 1, DONE, or None (no tour, or a number out of range)."""
    value = st.query_params.get(TOUR_PARAM)
    if value == DONE:
        return DONE
    if value is None or not value.isdigit() or not 1 <= int(value) <= len(STEPS):
        return None
    return int(value)


def start_tour() -> None:
    """A button's callback: the tour from step 1."""
    go_to(1)


def go_to(step: int | str) -> None:
    """Open `step` on the next run (a callback: the run that follows makes its entry)."""
    st.query_params[TOUR_PARAM] = str(step)
    st.session_state.pop(_ENTERED, None)


def end_tour() -> None:
    del st.query_params[TOUR_PARAM]
    st.session_state.pop(_ENTERED, None)


def learners_sentence() -> str:
    """The sentence the tour carries: the one kept across pages, else the link's, else the app's default."""
    kept = st.session_state.get(_KEPT)
    if kept:
        return str(kept)
    linked = next((v for k, v in st.query_params.items() if k.endswith("_sentence") and v), None)
    return linked or DEFAULT_SENTENCE


def _enter(number: int, page_now: str) -> None:
    """Open step `number` on its page with its settings in the URL; a page newly reached starts clean."""
    step = STEPS[number - 1]
    sentence = learners_sentence()
    if step.page == "fill_blank":  # the step hides a word itself: a typed [MASK] would leave nothing to click
        sentence = written([t for t in tokenize(sentence) if t.norm != MASK]) or DEFAULT_SENTENCE
    if number == 1:
        st.session_state[_FIRST_SENTENCE] = sentence
    fresh = step.page != page_now  # a page newly reached starts clean; on the same page only the step's settings
    for key in [str(k) for k in st.session_state]:
        if (fresh and key.startswith(f"{step.page}_")) or step.starts_without(key):
            del st.session_state[key]
    st.session_state[_KEPT] = sentence
    st.session_state[_ENTERED] = st.session_state[_LAST] = number
    settings = {
        key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in step.settings.items()
    }
    kept = {} if fresh else {k: v for k, v in st.query_params.to_dict().items() if not step.starts_without(k)}
    language = {"lang": st.query_params["lang"]} if "lang" in st.query_params else {}
    query = {**kept, **language, TOUR_PARAM: str(number), f"{step.page}_sentence": sentence, **settings}
    _unbind(query)
    st.switch_page(f"pages/{step.page}.py", query_params=query)


def _unbind(keys: Iterable[str]) -> None:
    """Let the tour write these URL parameters. A widget bound to the URL owns its parameter until a run ends without
    it, and the tour moves on at the start of a run, before the page has drawn (or dropped) its widgets; its value
    was deleted above, so the widget, drawn again, reads the step's value from the URL, as from a lesson's link.
    Streamlit has no public call for this: its query-params state is reached the way st.query_params reaches it."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as params:
        for key in keys:
            binding = params.get_binding_for_param(key)
            if binding is not None:
                params.unbind_widget(binding.widget_id)


def guided_tour(page_now: str) -> None:
    """In the app's frame, before the page: the step's entry, its completion, and its card at the top."""
    step = current_step()
    if step is None:
        _offer_to_resume()
        return
    if step == DONE:
        _finished_card()
        return
    assert isinstance(step, int)
    if st.session_state.get(_ENTERED) != step or STEPS[step - 1].page != page_now:
        _enter(step, page_now)
    if STEPS[step - 1].done(_state()):
        _advance(step, page_now)
    _card(step)


def _advance(step: int, page_now: str) -> None:
    if step == len(STEPS):
        st.query_params[TOUR_PARAM] = DONE
        st.session_state.pop(_ENTERED, None)
        st.rerun()
    _enter(step + 1, page_now)


P = ParamSpec("P")
R = TypeVar("R")


def follows_tour(fragment: Callable[P, R]) -> Callable[P, R]:
    """For a page's fragment (under @st.fragment): a fragment's rerun does not run the app's frame, so after it the
    tour checks the step itself and, when it is done, reruns the whole app to open the next one."""

    @functools.wraps(fragment)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        result = fragment(*args, **kwargs)
        step = current_step()
        if isinstance(step, int) and st.session_state.get(_ENTERED) == step and STEPS[step - 1].done(_state()):
            st.rerun(scope="app")
        return result

    return run


def _card(number: int) -> None:
    step = STEPS[number - 1]
    with st.container(key="tour_card", border=True):
        focus_here(f"tour_{number}")
        st.progress(number / len(STEPS), text=_("Step {n} of {total}").format(n=number, total=len(STEPS)))
        st.markdown(f"#### {_(step.title)}")
        fact = step_fact(step.name, learners_sentence())
        st.markdown(" ".join(part for part in (_(step.says), fact) if part))
        st.markdown(_("**Your turn:** {action}").format(action=_(step.asks)))
        buttons = st.container(horizontal=True)  # one row, a phone's too (columns stack there)
        if number > 1:
            buttons.button(_("Back"), key="tour_back", on_click=go_to, args=(number - 1,), icon=":material/arrow_back:")
        buttons.button(
            _("Skip"),
            key="tour_skip",
            on_click=go_to,
            args=(number + 1 if number < len(STEPS) else DONE,),
            icon=":material/skip_next:",
        )
        buttons.button(_("End the tour"), key="tour_end", on_click=end_tour, icon=":material/close:")
        if step.live:
            st.page_link(
                f"pages/{step.page}.py",
                label=_("Teaching a class? Ask this as a live-class question first"),
                icon=":material/groups:",
                query_params={**st.query_params.to_dict(), **_live_query(step)},
            )
    _point_at(step.target, number)


def _live_query(step: Step) -> dict[str, str]:
    query = dict(step.live)
    if step.page == "heads":  # which word does the first word attend to most, in layer 1, head 1
        words = [t.surface for t in tokenize(learners_sentence()) if t.is_word]
        query["heads_quiz_row"] = words[0] if words else ""
    return query


# Once per step (the element stays mounted across reruns): the outline and the sticky card's style, then, on a screen
# wider than a phone's, the control is scrolled
# to just under the card, which stays at the top (unless the card takes almost half the window, as a projector's
# type makes it: then it scrolls away with the page); on a phone the card (focused) comes first and the control is
# found by its name, as the card says where it is.
_SCROLL_JS = """
export default function (component) {
  const { data } = component;
  let style = document.getElementById('tour-style');
  if (!style) { style = document.createElement('style'); style.id = 'tour-style'; document.head.appendChild(style); }
  // Only while a card is on the page: once the tour ends, neither the outline nor the sticky card is left behind.
  style.textContent = `body:has(.st-key-tour_card) ${data.selector} { outline: 3px solid ${data.colour}; `
    + 'outline-offset: 6px; border-radius: 6px; } @media (min-width: 640px) { '
    + "[data-testid='stLayoutWrapper']:has(> .st-key-tour_card) { position: sticky; top: 3.75rem; z-index: 99; "
    + 'background: var(--background-color, #fff); } }';
  if (window.innerWidth < 640) return;
  let tries = 0;
  const scroll = () => {
    const target = document.querySelector(data.selector);
    const card = document.querySelector('.st-key-tour_card');
    const scroller = document.querySelector('[data-testid="stMain"]');
    if (!target || !card || !scroller) { if (++tries < 30) setTimeout(scroll, 200); return; }
    const wrapper = card.parentElement;
    if (card.getBoundingClientRect().height > 0.45 * window.innerHeight) {
      wrapper.style.position = 'static';  // a card this tall (a projector's type) would hide the page: it scrolls away
      target.scrollIntoView({ block: 'center', behavior: 'instant' });
      return;
    }
    const below = target.getBoundingClientRect().top - card.getBoundingClientRect().bottom - 16;
    scroller.scrollBy({ top: below, behavior: 'instant' });  // just under the card, which stays at the top
  };
  setTimeout(scroll, 600);
}
"""
_scroll_component = st.components.v2.component("tour_scroll", js=_SCROLL_JS, isolate_styles=False)


def _point_at(target: str, number: int) -> None:
    """The control outlined (the card's words name it too: the outline is not the only cue) and, wider than a
    phone, scrolled to under the card, which stays at the top. A target ending in "_" is a prefix (Fill the
    blank's word pills: one key per sentence). The style is the script's, from the steps' own keys: no st.html."""
    selector = f"[class*='st-key-{target}']" if target.endswith("_") else f".st-key-{target}"
    _scroll_component(key=f"tour_scroll_{number}", data={"selector": selector, "colour": _OUTLINE}, height=0)


def _offer_to_resume() -> None:
    entered = st.session_state.get(_LAST)
    if isinstance(entered, int):
        st.sidebar.button(
            _("Back to the tour: step {n} of {total}").format(n=entered, total=len(STEPS)),
            key="tour_resume",
            on_click=go_to,
            args=(entered,),
            icon=":material/tour:",
        )


def _finished_card() -> None:
    with st.container(key="tour_card", border=True):
        focus_here("tour_done")
        st.markdown(f"#### {_('You have walked the whole story')}")
        st.markdown(
            _(
                "A sentence is a matrix V; its words relate through V·Vᵀ; attention mixes each word with the words "
                "it resembles; W1, W2, W3 let it learn its own views; many heads and layers make it abstraction; and "
                "the masking game taught it all. The lessons show each step on sentences chosen for it."
            )
        )
        left, right = st.columns(2)
        left.page_link("pages/lessons.py", label=_("Open the lessons"), icon=":material/school:")
        right.button(_("Take the tour again"), key="tour_again", on_click=start_tour, icon=":material/replay:")
