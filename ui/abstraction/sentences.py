"""Abstraction on screen, texts: two sets of texts (two text boxes bound to the URL, the built-in sets one click
away), the cosine of each pair's pooled vectors at every depth with attention and without, a caption read off the
numbers, the nearest candidate at each depth when one text meets many (a paragraph and the topics); and the Arabic
model's probe, from the file bench/abstraction_probe.py writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st
import torch
import torch.nn.functional as F

from attention_core.figures.layers import DepthLine, crossing, depth_lines, depth_names, nearest_per_depth, rank_at
from attention_core.figures.numbers import written
from attention_core.models.interface import AttentionModel
from attention_core.models.trained import SHIPPED
from attention_core.readings.layers import layer_states_each
from attention_core.readings.sets import Language, SentenceSets, sentence_sets
from attention_core.readings.shared_words import MOST_WORDS, pushed_apart, words_or_meaning
from attention_core.story.text import is_right_to_left
from ui.abstraction.quiz import texts_quiz
from ui.abstraction.view import PAGE, WITHOUT, every_head, model_key, numbers_table, said
from ui.i18n import N_, _, ngettext, reading_order
from ui.models import english_model, shipped_model
from ui.show import chart
from ui.tokens import place_names

KEYS = f"{PAGE}_texts_a", f"{PAGE}_texts_b"
MAX_TEXTS = 12  # pairs drawn at most: a set is a few lines, and each text is read twice (with and without attention)
TEXT_CHARS = 4000
_SHORT = 24  # characters of a text in a line's name
# The built-in sets (the pills' values, shown translated), from attention_core/readings/sets in the model's language.
BOTH, PARAPHRASES, SAME_WORDS, TOPIC = (
    N_("both kinds"),
    N_("paraphrases"),
    N_("same words, another meaning"),
    N_("a paragraph and the topics"),
)
SETS = [BOTH, PARAPHRASES, SAME_WORDS, TOPIC]
_TURNS = f"{PAGE}_set_turns"  # session key: how many times each set was picked (each click brings the next texts)
PROBE = SHIPPED / "probe.json"  # written by bench/abstraction_probe.py
PROBE_TASKS = {"hadith book": N_("a hadith's book"), "sura revelation": N_("Meccan or Medinan sūra")}
POOLED_COSINE = N_(
    "A text's vector here is the mean of its words' vectors at one depth, and two texts are compared by the cosine "
    "of their means. MiniLM's last layer was trained for exactly that: its makers tuned it on a billion sentence "
    "pairs so that the cosine of mean-pooled vectors reads sentence similarity, so that is where paraphrases should "
    "come closest; its lower layers were never asked for it. The Arabic model was trained only to fill blanks: "
    "nothing asked its pooled vectors to sit close for texts that mean the same, so its cosines tell how much two "
    "texts share words and the contexts those words were learned in, not whether they mean the same. Either way a "
    "cosine is one number: it does not say which words made the difference; in a mean, many shared words can hide "
    "the one that turns the meaning (*not*); and the direction all vectors share at a depth lifts every pair alike, "
    "so compare pairs at one depth rather than one pair's raw height across depths. A rise or fall through the "
    "layers shows what the layers did to these texts; it is not a test of understanding."
)


def sets_language(model: AttentionModel, rtl: bool) -> Language:
    """The built-in sets' language: the model's (MiniLM English, the shipped model Arabic); a user's own model's,
    by the sentence's script."""
    if model is english_model():
        return "english"
    if model is shipped_model():
        return "arabic"
    return "arabic" if rtl else "english"


def built_in_texts(choice: str, sets: SentenceSets, turn: int) -> tuple[list[str], list[str]]:
    """Texts A and B of a built-in set; each turn brings the set's next few (they wrap round)."""
    if choice == TOPIC:
        _topic, paragraph = sets.topic_paragraphs[turn % len(sets.topic_paragraphs)]
        return [paragraph], list(sets.topics)
    if choice == BOTH:
        pairs = _next(sets.paraphrases, turn, 2) + _next(sets.same_words_other_meaning, turn, 2)
    else:
        pairs = _next(sets.paraphrases if choice == PARAPHRASES else sets.same_words_other_meaning, turn, 4)
    return [a for a, _b in pairs], [b for _a, b in pairs]


def _next(pairs: tuple[tuple[str, str], ...], turn: int, k: int) -> list[tuple[str, str]]:
    return [pairs[(turn * k + i) % len(pairs)] for i in range(k)]


def _use_set(language: Language) -> None:
    choice = st.session_state[f"{PAGE}_set"]
    if choice:
        turns: dict[str, int] = st.session_state.setdefault(_TURNS, {})
        turn = turns.get(choice, 1 if choice == BOTH else 0)  # the page opens on turn 0 of both kinds
        texts = built_in_texts(choice, sentence_sets(language), turn)
        st.session_state[KEYS[0]], st.session_state[KEYS[1]] = ("\n".join(lines) for lines in texts)
        turns[choice] = turn + 1
    st.session_state[f"{PAGE}_set"] = None


@dataclass(frozen=True)
class TextPairs:
    a: tuple[str, ...]  # text A of each pair
    b: tuple[str, ...]
    names: tuple[str, ...]  # each pair's name on the chart
    one: str | None  # the text every pair shares, when one text meets many candidates (a paragraph and the topics)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def text_pairs(text_a: str, text_b: str) -> TextPairs | None:
    """The pairs two boxes make: line i of A with line i of B, or one line with every line of the other box."""
    a, b = _lines(text_a), _lines(text_b)
    if not a or not b:
        return None
    if len(a) == 1 and len(b) > 1:
        b = b[:MAX_TEXTS]
        return TextPairs(tuple(a * len(b)), tuple(b), tuple(place_names([_short(t) for t in b])), a[0])
    if len(b) == 1 and len(a) > 1:
        a = a[:MAX_TEXTS]
        return TextPairs(tuple(a), tuple(b * len(a)), tuple(place_names([_short(t) for t in a])), b[0])
    k = min(len(a), len(b), MAX_TEXTS)
    if len(a) != len(b):
        st.caption(_("A has {a} lines and B {b}: the first {k} of each are paired.").format(a=len(a), b=len(b), k=k))
    names = place_names([f"{_short(x)} / {_short(y)}" for x, y in zip(a[:k], b[:k], strict=True)])
    return TextPairs(tuple(a[:k]), tuple(b[:k]), tuple(names), None)


@st.cache_resource(show_spinner=False, max_entries=512)
def _pooled(_model: AttentionModel, key: tuple[object, ...], text: str) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(depths, d) the text's pooled vector at every depth, with every head and with every head out (one batch),
    or None when the model reads no word of it."""
    full, knocked = layer_states_each(_model, text, [(), every_head(_model)])
    return (full.pooled, knocked.pooled) if full.words else None


def pooled_cosines(model: AttentionModel, pairs: TextPairs, *, knocked: bool) -> torch.Tensor | None:
    """(pairs, depths) each pair's sentence_similarity, from each text's pooled vectors read once; None when a text
    has no word the model reads."""
    key = model_key(model)
    rows = []
    for a, b in zip(pairs.a, pairs.b, strict=True):
        pa, pb = _pooled(model, key, a), _pooled(model, key, b)
        if pa is None or pb is None:
            return None
        rows.append(F.cosine_similarity(pa[knocked], pb[knocked], dim=-1))  # sentence_similarity's last step
    return torch.stack(rows)


def _texts_input(language: Language) -> tuple[str, str]:
    for key, lines in zip(KEYS, built_in_texts(BOTH, sentence_sets(language), 0), strict=True):
        if key not in st.session_state:  # a shared link's texts, or the first built-in set
            if key not in st.query_params:
                st.query_params[key] = "\n".join(lines)
            st.session_state[key] = st.query_params[key]
    st.pills(
        _("Built-in sets (click again for the next texts)"),
        SETS,
        key=f"{PAGE}_set",
        on_change=_use_set,
        args=(language,),
        format_func={choice: _(choice) for choice in SETS}.__getitem__,
    )
    box_a, box_b = st.columns(2)
    box_a.text_area(_("Texts A, one per line"), key=KEYS[0], max_chars=TEXT_CHARS, bind="query-params", height=150)
    box_b.text_area(
        _("Texts B, one per line"),
        key=KEYS[1],
        max_chars=TEXT_CHARS,
        bind="query-params",
        height=150,
        help=_(
            "Line i of A is compared with line i of B; a single line on one side is compared with every line of "
            "the other."
        ),
    )
    return st.session_state[KEYS[0]], st.session_state[KEYS[1]]


def show_sentences(model: AttentionModel, language: Language, mine: bool) -> None:
    """The texts, their pairs' cosines through the depths with attention (solid) and without (dashed), a caption."""
    pairs = text_pairs(*_texts_input(language))
    if pairs is None:
        st.info(_("Type a text in each box, or pick a built-in set."))
        return
    if not mine:
        _say_when_the_script_differs(model, [*pairs.a, *pairs.b], language)
    full, bare = pooled_cosines(model, pairs, knocked=False), pooled_cosines(model, pairs, knocked=True)
    if full is None or bare is None:
        st.warning(_("The model reads no word of one of these texts: give it a word in the model's language."))
        return
    depths = depth_names(model.n_layers, _)
    asked = (pairs.a, pairs.b, model_key(model))
    if not texts_quiz(pairs.names, full, depths[-1], topics=pairs.one is not None, asked=asked):
        return
    known = _known_topic(pairs, sentence_sets(language))
    highlighted = range(len(pairs.names))
    if pairs.one is not None:  # many candidates: only the right one (or the nearest at the end) gets its twin
        picked = known if known is not None else int(full[:, -1].argmax())
        highlighted = range(picked, picked + 1)
    lines = []
    for k, name in enumerate(pairs.names):
        lines.append(DepthLine(name, tuple(full[k].tolist()), k))
        if k in highlighted:
            lines.append(DepthLine(f"{name} ({_(WITHOUT)})", tuple(bare[k].tolist()), k, dashed=True))
    title = (
        _("One text and each candidate, through the layers") if pairs.one else _("Pairs of texts through the layers")
    )
    chart(depth_lines(lines, depths, title=title, y_title=_("cosine")), f"{PAGE}_texts", table=False)
    if pairs.one is not None:
        st.caption(_nearest_caption(full, bare, pairs, depths, known))
        _nearest_table(full, bare, pairs, depths)
    else:
        st.caption(_pairs_caption(full, bare, pairs, depths))
        for line in _what_these_texts_say(full, bare, pairs, depths):
            st.markdown(line)
    numbers_table(lines, depths)


def _known_topic(pairs: TextPairs, sets: SentenceSets) -> int | None:
    """When the shared text is a built-in topic paragraph and its topic is a candidate: that candidate's index."""
    topic = next((topic for topic, text in sets.topic_paragraphs if text == pairs.one), None)
    candidates = pairs.b if pairs.one == pairs.a[0] else pairs.a
    return candidates.index(topic) if topic in candidates else None


def _say_when_the_script_differs(model: AttentionModel, texts: list[str], language: Language) -> None:
    other = sum(is_right_to_left(text) != (language == "arabic") for text in texts)
    if not other:
        return
    template = (
        ngettext(
            "{n} of these texts is not in Arabic script, but the Arabic model reads this page (the sentence above is "
            "Arabic).",
            "{n} of these texts are not in Arabic script, but the Arabic model reads this page (the sentence above is "
            "Arabic).",
            other,
        )
        if language == "arabic"
        else ngettext(
            "{n} of these texts is in Arabic script, but MiniLM, the English model, reads this page (the sentence "
            "above is not Arabic).",
            "{n} of these texts are in Arabic script, but MiniLM, the English model, reads this page (the sentence "
            "above is not Arabic).",
            other,
        )
    )
    st.warning(
        template.format(n=other)
        + " "
        + _("The page's model follows the sentence at the top, and the built-in sets come in its language.")
    )


def _pairs_caption(full: torch.Tensor, bare: torch.Tensor, pairs: TextPairs, depths: list[str]) -> str:
    """Which pair is closest where, which ends closer and where they last swapped, and what happens without
    attention."""
    names, last, k = pairs.names, depths[-1], len(pairs.names)
    two = lambda value: written(float(value), ".2f")  # noqa: E731
    # as written: 0.99 to 0.99 is no rise
    closer = sum(float(two(full[j, -1])) > float(two(full[j, 0])) for j in range(k))
    if k == 1:
        template = _("{pair}: {start} at the input V, {end} after {last}; without attention {bare} after {last}.")
        return template.format(
            pair=said(names[0]), start=two(full[0, 0]), end=two(full[0, -1]), last=last, bare=two(bare[0, -1])
        )
    first, final = int(full[:, 0].argmax()), int(full[:, -1].argmax())
    if first == final:
        template = _("The closest pair is {pair} at the input V ({x}) and after {last} ({y}).")
        opening = template.format(pair=said(names[first]), x=two(full[first, 0]), last=last, y=two(full[first, -1]))
    else:
        opening = _("At the input V the closest pair is {first} ({x}); after {last}, {final} ({y}).").format(
            first=said(names[first]),
            x=two(full[first, 0]),
            last=last,
            final=said(names[final]),
            y=two(full[final, -1]),
        )
    parts = [opening]
    top, second = (int(i) for i in full[:, -1].argsort(descending=True)[:2])
    swap = crossing(full[top].tolist(), full[second].tolist())
    ahead = _("{a} ends closer than {b} ({x} against {y})").format(
        a=said(names[top]), b=said(names[second]), x=two(full[top, -1]), y=two(full[second, -1])
    )
    if two(full[top, -1]) == two(full[second, -1]):  # a tie as written is no win
        parts.append(
            _("{a} and {b} end level ({x}).").format(a=said(names[top]), b=said(names[second]), x=two(full[top, -1]))
        )
    elif swap is None:
        parts.append(_("{ahead}, and is never behind it.").format(ahead=ahead))
    else:
        parts.append(_("{ahead}; the two last swapped places at {depth}.").format(ahead=ahead, depth=depths[swap]))
    parts.append(
        ngettext(
            "{n} of {k} pairs ends closer than it started.", "{n} of {k} pairs end closer than they started.", closer
        ).format(n=closer, k=k)
    )
    bare_final = int(bare[:, -1].argmax())
    bare_closer = sum(float(two(bare[j, -1])) > float(two(bare[j, 0])) for j in range(k))
    parts.append(
        _("Without attention (dashed) the closest after {last} is {pair} ({x}), and {n} of {k} end closer.").format(
            last=last, pair=said(names[bare_final]), x=two(bare[bare_final, -1]), n=bare_closer, k=k
        )
    )
    return " ".join(parts)


def _what_these_texts_say(full: torch.Tensor, bare: torch.Tensor, pairs: TextPairs, depths: list[str]) -> list[str]:
    """Plain lines, from these texts' own numbers, where they contradict a reading of the cosine as meaning: the pairs
    that share their words end closer than the pairs in other words; attention pushed a pair apart."""
    last, lines = depths[-1], []
    split = words_or_meaning(pairs.a, pairs.b, full[:, -1].tolist())
    listed = lambda ks: ", ".join(written(float(full[k, -1]), ".2f") for k in ks)  # noqa: E731
    if split is not None and split.verdict == "words":
        lines.append(
            _(
                "**On these texts the layers keep the pairs that share most of their words closer** (after {last}: "
                "{sharing}) **than the pairs in other words** ({other}): a pooled cosine follows shared words, so "
                "here it is no test of whether two texts mean the same."
            ).format(last=last, sharing=listed(split.sharing), other=listed(split.other))
        )
    elif split is not None:
        template = (
            _(
                "On these texts the pairs in other words end closer (after {last}: {other}) than the pairs that "
                "share most of their words ({sharing})."
            )
            if split.verdict == "other words"
            else _(
                "On these texts the pairs that share most of their words ({sharing}) and the pairs in other words "
                "({other}) end as close, on average, after {last}."
            )
        )
        lines.append(template.format(last=last, sharing=listed(split.sharing), other=listed(split.other)))
    if split is not None:
        lines[-1] += " " + _(
            "(A pair shares its words when at least {share:.0%} of the words it uses are in both.)"
        ).format(share=MOST_WORDS)
    apart = pushed_apart(full[:, -1].tolist(), bare[:, -1].tolist())
    if apart:
        k = apart[0]
        lines.append(
            ngettext(
                "**Attention pushed {pair} apart**: {with_} with attention after {last}, {without} without.",
                "**Attention pushed {n} pairs apart**, most {pair}: {with_} with attention after {last}, {without} "
                "without.",
                len(apart),
            ).format(
                n=len(apart),
                pair=said(pairs.names[k]),
                with_=written(float(full[k, -1]), ".2f"),
                without=written(float(bare[k, -1]), ".2f"),
                last=last,
            )
        )
    return lines


def _nearest_caption(
    full: torch.Tensor, bare: torch.Tensor, pairs: TextPairs, depths: list[str], known: int | None
) -> str:
    names, last, m = pairs.names, depths[-1], len(pairs.names)
    nearest, bare_nearest = nearest_per_depth(full), nearest_per_depth(bare)
    template = _(
        "Nearest of the {m} candidates: {first} at the input V, {final} after {last}; without attention {bare} after "
        "{last}."
    ).format(
        m=m,
        first=said(names[nearest[0]]),
        final=said(names[nearest[-1]]),
        last=last,
        bare=said(names[bare_nearest[-1]]),
    )
    if known is not None:
        template += " " + _(
            "Its own topic, {topic}, ranks {start} of {m} at the input V and {end} after {last} ({bare} without "
            "attention)."
        ).format(
            topic=said(names[known]),
            start=rank_at(full, known, 0),
            end=rank_at(full, known, -1),
            bare=rank_at(bare, known, -1),
            m=m,
            last=last,
        )
    return template


def _nearest_table(full: torch.Tensor, bare: torch.Tensor, pairs: TextPairs, depths: list[str]) -> None:
    """The nearest candidate at every depth, with attention and without."""
    table = pd.DataFrame(
        [[pairs.names[i] for i in nearest_per_depth(full)], [pairs.names[i] for i in nearest_per_depth(bare)]],
        index=[_("nearest, with attention"), _("nearest, without attention")],
        columns=depths,
    )
    st.table(table[reading_order(table.columns)])


@st.cache_resource(show_spinner=False, max_entries=4)
def _probe_file(path: str, modified: float) -> dict | None:
    """The probe's results (read again when the file changes), or None if unreadable."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def show_probe() -> None:
    """The Arabic model's linear probe, layer by layer, from its result file; or a plain line saying it is absent."""
    path = PROBE
    results = _probe_file(str(path), path.stat().st_mtime) if path.is_file() else None
    tasks = [task for task in (results or {}).get("tasks", []) if task.get("accuracy")]
    if not tasks:
        st.info(
            _(
                "The probe's results are not here yet: `python -m bench.abstraction_probe` writes them to "
                "`attention_core/shipped/arabic/probe.json`, and this page shows them once the file is there."
            )
        )
        return
    depths = depth_names(len(tasks[0]["accuracy"]) - 1, _)
    lines = []
    for k, task in enumerate(tasks):
        name = _(PROBE_TASKS.get(task["name"], task["name"]))
        lines.append(DepthLine(name, tuple(task["accuracy"]), k))
        if task.get("accuracy_without_attention"):
            lines.append(DepthLine(f"{name} ({_(WITHOUT)})", tuple(task["accuracy_without_attention"]), k, dashed=True))
        baseline = _("{task}: always the commonest class").format(task=name)
        lines.append(DepthLine(baseline, (task["majority"],) * len(depths), k, dotted=True))
    title, y_title = _("A linear probe on each layer's pooled vector"), _("held-out accuracy")
    chart(depth_lines(lines, depths, title=title, y_title=y_title, y_format=".0%"), f"{PAGE}_probe", table=False)
    for task in tasks:
        st.caption(_probe_caption(task, depths))
    numbers_table(lines, depths, ".0%")


def _probe_caption(task: dict, depths: list[str]) -> str:
    """One task's probe in its numbers: from the input V, at best, at the end, against the commonest class (and,
    when the file has them, without attention and against a bag of words)."""
    accuracy = task["accuracy"]
    best = max(range(len(accuracy)), key=accuracy.__getitem__)
    said = _(
        "{task}: {k} classes, {train} lines to learn from, {test} held out. From the input V the probe gets "
        "{first:.0%} of the held-out lines right, {best:.0%} at best ({depth}), {last:.0%} after {last_depth}; "
        "always guessing the commonest class gets {majority:.0%}."
    ).format(
        task=_(PROBE_TASKS.get(task["name"], task["name"])),
        k=len(task["classes"]),
        train=task["n_train"],
        test=task["n_test"],
        first=accuracy[0],
        best=accuracy[best],
        depth=depths[best],
        last=accuracy[-1],
        last_depth=depths[-1],
        majority=task["majority"],
    )
    without = task.get("accuracy_without_attention")
    if without:
        said += " " + _("Without attention: {best:.0%} at best, {last:.0%} after {last_depth}.").format(
            best=max(without), last=without[-1], last_depth=depths[-1]
        )
    bag = (task.get("bag_of_words") or {}).get("accuracy")
    if bag is not None:
        said += " " + _("A probe on which words a line holds, in any order (a bag of words), gets {bag:.0%}.").format(
            bag=bag
        )
    return said
