"""Abstraction on screen: the words of a sentence, layer by layer (their cosines at one depth, and chosen pairs followed
across the depths), each beside the same layers without attention (every head knocked out), and what attention's
part is there. The sentences' view is ui/abstraction/sentences.py.

The layers' vectors come from attention_core.readings.layers, read once per model, text and knock-out and kept for
every session (st.cache_resource: read-only records of the shared models); the raw and centred cosines are taken
from them on each rerun, as layer_similarity takes them."""

from __future__ import annotations

import streamlit as st
import torch

from attention_core.figures.heatmaps import word_labels
from attention_core.figures.layers import (
    DepthLine,
    depth_lines,
    depth_names,
    extreme_pairs,
    lines_table,
    mean_cosine_of_two,
    off_diagonal_mean,
    word_map,
)
from attention_core.figures.numbers import written
from attention_core.figures.screen import panels_across
from attention_core.models.interface import AttentionModel
from attention_core.readings.layers import LayerStates, cosine_matrix, layer_states_each
from ui.bidi import isolate
from ui.i18n import N_, _, ngettext, reading_order
from ui.lessons.view import in_reading_order
from ui.markdown import plain
from ui.screen import current_screen
from ui.show import chart, flag_unknown_words
from ui.tokens import place_names

PAGE = "abstraction"
SENTENCE_KEY = f"{PAGE}_sentence"  # ui.controls.sentence_input's box on this page
KEPT = "kept_sentence"  # ui.controls' key of the sentence that follows the user from page to page
BANK = "I sat on the bank of the river then went to the bank to get money"
# Sentences with a pair of words worth following: the chip's label → the sentence, the word followed, the words it
# is compared with (named as the page's boxes name them: a repeated word with its place, ·2).
WORD_EXAMPLES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    N_("bank: the river's or the money's"): (BANK, "bank ·1", ("bank ·2",)),
    N_("it: the animal or the street? (too tired)"): (
        "The animal didn't cross the street because it was too tired",
        "it",
        ("animal", "street"),
    ),
    N_("it: the animal or the street? (too wide)"): (
        "The animal didn't cross the street because it was too wide",
        "it",
        ("animal", "street"),
    ),
    N_("ذهب: 'went' or 'gold'"): ("ذهب الله بنورهم ولهم اساور من ذهب", "ذهب ·1", ("ذهب ·2",)),
}
WITHOUT = N_("without attention")
CENTRING = N_(
    "Centred: each depth's mean word vector is taken from every word before the cosine, so two words compare by what "
    "sets them apart from the rest of the sentence."
)
FEED_FORWARD_ONLY = N_(
    "With every head knocked out, each word goes through the layers alone: the feed-forward layers still reshape it, "
    "but its vector at every depth depends only on the word and its place, never on its neighbours. So the layers "
    "alone cannot tell the river's bank from the money's but by where each stands, nor who bit whom in *the dog bit "
    "the man*; what sets such words apart in the full model, attention brought in."
)


def model_key(model: AttentionModel) -> tuple[object, ...]:
    """What tells a model's readings apart in the shared cache: the model object itself (the shared models are one
    each per server) and, for a model still training, its step."""
    return (id(model), model.name, getattr(model, "step", 0))


def every_head(model: AttentionModel) -> list[tuple[int, int]]:
    return [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]


@st.cache_resource(show_spinner=False, max_entries=24)
def _states(_model: AttentionModel, key: tuple[object, ...], text: str) -> tuple[LayerStates, LayerStates]:
    """Every word's vector at every depth, with every head and with every head out, read once in one batch (the
    page always draws both); never mutated."""
    full, knocked = layer_states_each(_model, text, [(), every_head(_model)])
    return full, knocked


def word_states(model: AttentionModel, text: str, *, knocked: bool = False) -> LayerStates:
    return _states(model, model_key(model), text)[knocked]


def _use_example() -> None:
    choice = st.session_state[f"{PAGE}_word_example"]
    if choice:
        sentence, word, others = WORD_EXAMPLES[choice]
        st.session_state[SENTENCE_KEY] = st.session_state[KEPT] = sentence
        st.session_state[f"{PAGE}_word"], st.session_state[f"{PAGE}_with"] = word, list(others)
    st.session_state[f"{PAGE}_word_example"] = None


def word_examples() -> None:
    """The chips of sentences with a pair of words to follow (each sets the sentence and the pair)."""
    st.pills(
        _("A word with two meanings, followed through the layers"),
        list(WORD_EXAMPLES),
        key=f"{PAGE}_word_example",
        on_change=_use_example,
        format_func={label: in_reading_order(_(label)) for label in WORD_EXAMPLES}.__getitem__,
    )


def default_pair(names: list[str]) -> tuple[str, list[str]]:
    """The pair a new sentence opens on: its longest repeated word and the repeat (bank and bank), or else its two
    longest words."""
    plain_names = [name.split(" ·")[0].lower() for name in names]
    repeated = [i for i, word in enumerate(plain_names) if plain_names.count(word) > 1]
    if repeated:
        first = max(repeated, key=lambda i: (len(plain_names[i]), -i))
        second = next(j for j in repeated if j > first and plain_names[j] == plain_names[first])
        return names[first], [names[second]]
    longest = sorted(range(len(names)), key=lambda i: (-len(plain_names[i]), i))[:2]
    return names[min(longest)], [names[max(longest)]] if len(longest) > 1 else []


def said(name: str) -> str:
    """A word or text of the user's inside a caption: quoted, safe for Markdown, its direction its own."""
    return _("“{name}”").format(name=isolate(plain(name)))


def where(depth: int, depths: list[str]) -> str:
    """ "at the input V" or "after layer 3", in the reader's language."""
    return _("at the input V") if depth == 0 else _("after {depth}").format(depth=depths[depth])


def sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


def _map_caption(similarity: torch.Tensor, bare: torch.Tensor, names: list[str], where: str, centred: bool) -> str:
    """What the two maps at one depth show, in their numbers."""
    extremes = extreme_pairs(similarity)
    if extremes is None:
        return _("One word: nothing to compare it with.")
    (i, j), (k, m) = extremes
    if (i, j) == (k, m):  # two words: one pair, neither closest nor farthest
        return sentence_case(
            _("{where}, {cosine} of the two words {a} and {b}: {value}; without attention {bare}.").format(
                where=where,
                cosine=_("centred cosine") if centred else _("raw cosine"),
                a=said(names[i]),
                b=said(names[j]),
                value=written(float(similarity[i, j]), ".2f"),
                bare=written(float(bare[i, j]), ".2f"),
            )
        )
    values = {
        "where": where,
        "a": said(names[i]),
        "b": said(names[j]),
        "most": written(float(similarity[i, j]), ".2f"),
        "c": said(names[k]),
        "d": said(names[m]),
        "least": written(float(similarity[k, m]), ".2f"),
    }
    if centred:
        # Centred vectors sum to zero, so their cosines average about −1/(n − 1) whatever the layers do: a mean says
        # nothing here. How far attention moved each pair does.
        text = _(
            "{where}, centred cosine: the closest two words are {a} and {b} ({most}), the farthest {c} and {d} "
            "({least}); attention moved two words' centred cosine by {moved} on average (with it and without)."
        ).format(**values, moved=written(float(off_diagonal_mean((similarity - bare).abs())), ".2f"))
    else:
        text = _(
            "{where}, raw cosine: the closest two words are {a} and {b} ({most}), the farthest {c} and {d} "
            "({least}); two words average {mean} here and {bare} without attention."
        ).format(
            **values,
            mean=written(float(off_diagonal_mean(similarity)), ".2f"),
            bare=written(float(off_diagonal_mean(bare)), ".2f"),
        )
    return sentence_case(text)


def _why_centre(means: torch.Tensor, depths: list[str]) -> str:
    """One line on why centring, with this sentence's own numbers: the mean raw cosine of two words (means: one
    per depth), first and last."""
    first, last = written(float(means[0]), ".2f"), written(float(means[-1]), ".2f")
    if float(last) > float(first):  # compared as written: the caption never calls 0.59 → 0.26 a rise
        template = _(
            "Why centre: deep layers give every word a share of one common direction, so raw cosines creep up: here "
            "two words average {first} at the input V and {last} after {depth}."
        )
    elif float(last) < float(first):
        template = _(
            "Why centre: what every word shares at a depth moves every raw cosine alike, up or down; here raw "
            "cosines fall: two words average {first} at the input V and {last} after {depth}."
        )
    else:
        template = _(
            "Why centre: what every word shares at a depth moves every raw cosine alike; here two words average "
            "{first} at the input V and still {last} after {depth}."
        )
    return template.format(first=first, last=last, depth=depths[-1]) + " " + _(CENTRING)


def show_words(model: AttentionModel, text: str, rtl: bool) -> None:
    """The words' cosines at one depth, with attention and without, and chosen pairs followed through the depths."""
    states, bare_states = word_states(model, text), word_states(model, text, knocked=True)
    labels = word_labels(list(states.words), states.known)
    if not labels:
        st.info(_("The model read no word of this text."))
        return
    flag_unknown_words(list(states.words), states.known)
    names = place_names(labels)
    depths = depth_names(model.n_layers, _)
    centred = st.toggle(_("Centred cosine"), key=f"{PAGE}_centred", bind="query-params", help=_(CENTRING))
    full = cosine_matrix(states.states, centred=centred)  # (depths, n, n): layer_similarity(model, text, centred)
    bare = cosine_matrix(bare_states.states, centred=centred)  # …(…, knock_out=every head)
    st.caption(_why_centre(mean_cosine_of_two(states.states), depths))
    depth = st.slider(
        _("Depth: 0 is the input V, ℓ the output of layer ℓ"),
        0,
        model.n_layers,
        value=model.n_layers,
        key=f"{PAGE}_depth",
        bind="query-params",
    )
    # Side by side where half the page labels every word and fits its numbers (issue 32), else one under the other.
    share = 1 / 2 if panels_across(current_screen(), len(labels), 1 / 2) >= 1 else 1.0
    with_attention, without_attention = st.columns(2) if share < 1 else (st.container(), st.container())
    titles = _("The full model, {where}"), _("Every head knocked out, {where}")
    chart(
        word_map(full[depth], labels, title=titles[0].format(where=where(depth, depths)), rtl=rtl),
        f"{PAGE}_map",
        with_attention,
        share=share,
    )
    chart(
        word_map(bare[depth], labels, title=titles[1].format(where=where(depth, depths)), rtl=rtl),
        f"{PAGE}_map_without",
        without_attention,
        share=share,
    )
    st.caption(_map_caption(full[depth], bare[depth], names, where(depth, depths), centred))
    if depth == 0:
        st.caption(_("At the input V the two maps are the same: no layer has run yet."))
    if len(names) > 1:
        follow_pairs(full, bare, names, depths, centred)


def pair_for_new_sentence(names: list[str]) -> None:
    """Before the two boxes are drawn: when the sentence's words changed and the pair picked for the last sentence is
    not a pair of this one (its word gone, or nothing left to compare it with), the new sentence's default pair.
    Streamlit keeps a keyed widget's value across runs and drops what its new options lack, so the word box moved
    to some word and the other box stayed empty ("Pick a word to compare it with."). A pair that fits is kept (a
    chip's, a link's, one picked on the same words)."""
    seen_key, word_key, with_key = f"{PAGE}_pair_words", f"{PAGE}_word", f"{PAGE}_with"
    before = st.session_state.get(seen_key)
    st.session_state[seen_key] = list(names)
    if before is None or before == list(names):
        return  # the page's first run (the widgets read a link's pair) or the same words: the user's pair stands
    word, others = st.session_state.get(word_key), st.session_state.get(with_key) or []
    if word in names and others and all(other in names and other != word for other in others):
        return
    st.session_state[word_key], st.session_state[with_key] = default_pair(names)


def follow_pairs(full: torch.Tensor, bare: torch.Tensor, names: list[str], depths: list[str], centred: bool) -> None:
    """A word and the words it is compared with, picked by name: one line per pair across the depths, solid with
    attention, dashed without."""
    pair_for_new_sentence(names)
    default_word, default_others = default_pair(names)
    left, right = st.columns(2)
    word = left.selectbox(
        _("Follow this word"), names, index=names.index(default_word), key=f"{PAGE}_word", bind="query-params"
    )
    offered = [name for name in names if name != word]
    others = right.multiselect(
        _("and its cosine with"),
        offered,
        default=[name for name in default_others if name in offered],
        key=f"{PAGE}_with",
        bind="query-params",
        max_selections=6,
        placeholder=_("Pick words"),
    )
    if not others:
        st.info(_("Pick a word to compare it with."))
        return
    i = names.index(word)
    lines = []
    for colour, other in enumerate(others):
        j = names.index(other)
        name = f"{word} – {other}"
        lines.append(DepthLine(name, tuple(full[:, i, j].tolist()), colour))
        lines.append(DepthLine(f"{name} ({_(WITHOUT)})", tuple(bare[:, i, j].tolist()), colour, dashed=True))
    cosine = _("centred cosine") if centred else _("raw cosine")
    chart(
        depth_lines(lines, depths, title=_("Two words through the layers"), y_title=cosine),
        f"{PAGE}_pairs",
        table=False,
    )
    for other in others:
        st.caption(_pair_caption(full, bare, names, i, names.index(other), depths))
    numbers_table(lines, depths)


def _pair_caption(full: torch.Tensor, bare: torch.Tensor, names: list[str], i: int, j: int, depths: list[str]) -> str:
    """One pair's line in its numbers: where it starts, where it is lowest, where it ends, and its twin's end."""
    line, twin = full[:, i, j], bare[:, i, j]
    low = int(line.argmin())
    values = {
        "a": said(names[i]),
        "b": said(names[j]),
        "start": written(float(line[0]), ".2f"),
        "low": written(float(line[low]), ".2f"),
        "low_depth": depths[low],
        "end": written(float(line[-1]), ".2f"),
        "last": depths[-1],
        "bare_end": written(float(twin[-1]), ".2f"),
    }
    if 0 < low < len(line) - 1:
        template = _(
            "{a} and {b}: {start} at the input V, lowest after {low_depth} ({low}), {end} after {last}; without "
            "attention {bare_end} after {last}."
        )
    else:
        template = _(
            "{a} and {b}: {start} at the input V, {end} after {last}; without attention {bare_end} after {last}."
        )
    return template.format(**values)


def numbers_table(lines: list[DepthLine], depths: list[str], spec: str = ".2f") -> None:
    """The chart's numbers as a table, its text alternative (an HTML table a screen reader reads), folded away."""
    with st.expander(_("The numbers of this chart")):
        table = lines_table(lines, depths, spec)
        st.table(table[reading_order(table.columns)])


def show_attention_part(model: AttentionModel, text: str) -> None:
    """What the layers can and cannot do without attention, with this sentence's numbers at the last layer."""
    st.markdown(_(FEED_FORWARD_ONLY))
    states, bare_states = word_states(model, text), word_states(model, text, knocked=True)
    n = len(states.words)
    if n < 2:
        return
    full, bare = cosine_matrix(states.states[-1]), cosine_matrix(bare_states.states[-1])
    change = (full - bare).abs()
    flat = int(change.argmax())
    i, j = flat // n, flat % n
    names = place_names(word_labels(list(states.words), states.known))
    st.caption(
        ngettext(
            "In your sentence after the last layer, attention moved the raw cosine of two words by {mean} on average, "
            "and most for {a} and {b}: {with_} with attention, {without} without ({n} word).",
            "In your sentence after the last layer, attention moved the raw cosine of two words by {mean} on average, "
            "and most for {a} and {b}: {with_} with attention, {without} without ({n} words).",
            n,
        ).format(
            mean=written(float(off_diagonal_mean(change)), ".2f"),
            a=said(names[i]),
            b=said(names[j]),
            with_=written(float(full[i, j]), ".2f"),
            without=written(float(bare[i, j]), ".2f"),
            n=n,
        )
    )
