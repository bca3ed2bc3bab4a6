"""Knocking heads out, on Multi-head attention and Fill the blank: which heads, what changed, which heads matter.

The knocked-out heads are a multiselect bound to the URL (?heads_knock_out=L1 H1&heads_knock_out=L2 H3), so a
teacher can send "switch off layer 1 head 1 and watch the guess fall"."""

from __future__ import annotations

import streamlit as st
import torch

from attention_core.figures.head_maps import clickable_heads_map, head_values, importance_map
from attention_core.figures.heatmaps import heatmap, heatmap_grid
from attention_core.figures.numbers import written_alone
from attention_core.figures.screen import panels_across
from attention_core.head_names import head_name, parse_head
from attention_core.models.head_importance import HeadImportance, head_importance, measure_for
from attention_core.models.head_roles import head_roles
from attention_core.models.interface import Analysis, AttentionModel, MaskedWordModel
from attention_core.models.knock_out import Ablation
from attention_core.models.knock_out_effects import attention_shift, guess_changes
from attention_core.story.text import Token
from ui.bidi import isolate, left_to_right
from ui.following import following_selectbox
from ui.guess_table import guess_change_table
from ui.head_roles_view import HOW_ROLES_ARE_SCORED
from ui.i18n import N_, _, ngettext, shown_head_name
from ui.linked_options import translated_options
from ui.links import link_to_this_view
from ui.markdown import plain
from ui.screen import current_screen
from ui.show import chart, finished
from ui.tokens import TokenDisplay, drawn_attention

# What a knocked-out head sends: the options in English as links and lessons name them (?heads_ablation=…), shown
# translated.
ABLATIONS: dict[str, Ablation] = {N_("nothing (zero)"): "zero", N_("its average over the words (mean)"): "mean"}
# The panels before | after | their difference, named in English in the figure's data (a lesson outlines a cell of
# "heads knocked out"), drawn translated.
EVERY_HEAD, KNOCKED_OUT, DIFFERENCE = N_("every head"), N_("heads knocked out"), N_("after − before")
KNOCK_OUT_HELP = N_(
    "A knocked-out head's output (its weights · V3) is removed before the layer mixes its heads back together "
    "(the output projection). Layers below it do not change; every layer above reads a different input."
)


def _toggle_clicked_heads(page: str) -> str:
    """A click on the head picker switches that head off, or back on. Read from the picker's state before the
    multiselect is drawn (a value set in the script's own run reaches the URL at once; one set in a callback, a
    rerun later). Returns the picker's key: a new one after a click, so the next click on the same head is a click
    again, not a selection already made."""
    round_key = f"{page}_picker_round"
    chart_key = f"{page}_picker_{st.session_state.get(round_key, 0)}"
    state = st.session_state.get(chart_key)
    points = state["selection"]["points"] if state else []
    if not points:
        return chart_key
    chosen = list(st.session_state.get(f"{page}_knock_out") or [])  # knock_out_controls kept only this model's heads
    for point in points:
        name = head_name(*point["customdata"])
        chosen = [h for h in chosen if h != name] if name in chosen else [*chosen, name]
    st.session_state[f"{page}_knock_out"] = chosen
    st.session_state[round_key] = st.session_state.get(round_key, 0) + 1
    return f"{page}_picker_{st.session_state[round_key]}"


def knock_out_controls(
    page: str, model: AttentionModel, analysis: Analysis, rtl: bool
) -> tuple[list[tuple[int, int]], Ablation]:
    """The heads to knock out — click them on a map of the heads (coloured by role), or pick them in a multiselect
    bound to the URL — and what a knocked-out head sends instead."""
    options = [head_name(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    key = f"{page}_knock_out"
    kept = st.session_state.get(key)
    if isinstance(kept, list) and any(name not in options for name in kept):  # heads of another model's shape
        st.session_state[key] = [name for name in kept if name in options]
    chart_key = _toggle_clicked_heads(page)
    knocked = [parse_head(name) for name in st.session_state.get(key) or []]
    picker = clickable_heads_map(head_roles(analysis.weights, analysis.special), knocked=knocked, rtl=rtl, translate=_)
    st.plotly_chart(
        finished(picker, chart_key),  # squares and labels that fit a phone
        key=chart_key,
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    st.caption(
        _(
            "Click a head to switch it off (✕), click it again to switch it back on. Colours: each head's role on "
            "this sentence (hover a head for it; the (?) says how roles are scored)."
        ),
        help=_(HOW_ROLES_ARE_SCORED),
    )
    picked, how = st.columns([3, 2])
    chosen = picked.multiselect(
        _("Heads to knock out ({layers} layers × {heads} heads)").format(layers=model.n_layers, heads=model.n_heads),
        options,
        key=key,
        bind="query-params",
        format_func=shown_head_name,  # the values stay English, as links name them
        placeholder=_("Pick heads, e.g. L1 H1"),
        help=_(KNOCK_OUT_HELP),
    )
    sends = how.radio(
        _("A knocked-out head sends"),
        list(ABLATIONS),
        format_func=translated_options(f"{page}_ablation", list(ABLATIONS)),
        key=f"{page}_ablation",
        bind="query-params",
        help=_(
            "nothing: its output is zero. its average: every word gets the head's output averaged over the "
            "sentence, so the head still adds its usual message but no longer says which word sent what."
        ),
    )
    # Streamlit 1.67 writes a bound widget's value set in code (a click on the picker) into the address bar only
    # at the next interaction, so the address bar can lag one click behind; this link never does.
    st.markdown(_("[Link to this view, with these heads switched off]({link})").format(link=link_to_this_view(page)))
    return sorted(parse_head(name) for name in chosen), ABLATIONS[sends or next(iter(ABLATIONS))]


def show_guess_change(
    model: MaskedWordModel, whole: Analysis, knocked: Analysis, knock_out: list[tuple[int, int]], k: int
) -> None:
    """The guesses with every head and with the knocked-out heads removed, side by side (from the page's two
    analyses: no other pass through the model)."""
    changes = guess_changes(model, whole, knocked, k)
    guess_change_table(changes, _(EVERY_HEAD), _(KNOCKED_OUT))
    top_before, top_after = changes[0], max(changes, key=lambda c: c.after)
    if knock_out:
        st.caption(
            _(
                "First guess with every head: {before} ({p_before}); with {heads} knocked out: {after} ({p_after})."
            ).format(
                before=isolate(plain(top_before.word)),
                p_before=written_alone(top_before.before),
                heads=_(", ").join(shown_head_name(head_name(*h)) for h in knock_out),
                after=isolate(plain(top_after.word)),
                p_after=written_alone(top_after.after),
            )
        )


def show_attention_change(
    before: Analysis, after: Analysis, knock_out: list[tuple[int, int]], display: TokenDisplay, rtl: bool, page: str
) -> None:
    """How far every head's attention moved (a map of heads), then one head's attention before | after | their
    difference (the head that moved most, unless the student picks another)."""
    shift = attention_shift(before.weights, after.weights)
    first = min(layer for layer, _head in knock_out)
    st.markdown(_("**How far each head's attention moved**"))
    moved = head_values(shift, scale_title=N_("moved"), signed=False, knocked=knock_out, rtl=rtl, largest=1.0)
    chart(moved, f"{page}_shift")
    unchanged = (
        _(
            "Layers 1 to {layer} attend exactly as before: a head is removed after its attention is computed, so "
            "only the layers above it read something new."
        ).format(layer=first + 1)
        if first
        else _(
            "Layer 1 attends exactly as before: a head is removed after its attention is computed, so only the "
            "layers above it read something new."
        )
    )
    st.caption(
        _(
            "Each cell: the share of a word's attention that went elsewhere once the heads marked ✕ were knocked out "
            "(half the summed change of a row, averaged over the rows; 0 = unchanged, 1 = all of it)."
        )
        + " "
        + unchanged
    )
    later = [
        (layer, head) for layer in range(first + 1, before.weights.shape[0]) for head in range(before.weights.shape[1])
    ]
    if not later:
        st.info(_("The knocked-out heads are in the last layer: no later layer reads what they sent."))
        return
    most = head_name(*max(later, key=lambda h: float(shift[h])))
    view_key, options = f"{page}_knock_out_view", [head_name(*h) for h in later]
    # The head that moved most, followed as the knock-out changes until the student picks one (ui/following.py).
    chosen = following_selectbox(
        _("A later head, before and after"),
        options,
        view_key,
        most,
        placeholder=_("The later head that moved most"),
        format_func=shown_head_name,
        help=_(
            "Follows the later head whose attention moved most as you change the knock-out, until you pick a head; "
            "clear your pick (×) to follow it again."
        ),
    )
    layer, head = parse_head(chosen)
    was = drawn_attention(before.weights[layer, head], before, display)[0]
    now, labels = drawn_attention(after.weights[layer, head], after, display)
    # Side by side where the page labels every word of three panels (issue 32), else one under another (rows told
    # apart by invisible marks); the panels keep their names either way, which lessons point at.
    across = 3 if panels_across(current_screen(), len(labels)) >= 3 else 1
    names = [EVERY_HEAD, KNOCKED_OUT, DIFFERENCE]
    panels = torch.stack([was, now, now - was]).reshape(3 // across, across, *was.shape)
    figure = heatmap_grid(
        panels,
        labels,
        row_names=[""] if across == 3 else ["\u200b" * (r + 1) for r in range(3)],
        column_names=names if across == 3 else ["\u200b"],
        rtl=rtl,
        panel_height=380 if across == 3 else 300,
        signed=frozenset({(0, 2)} if across == 3 else {(2, 0)}),
        translate=_,
        panel_names=None if across == 3 else [[name] for name in names],
    )
    chart(figure, f"{page}_knock_out_head")
    st.caption(
        _("{head}: in after − before, blue is where it looks more without the knocked-out heads, red less.").format(
            head=chosen
        )
    )


def _importance_key(page: str, model: AttentionModel, tokens: list[Token], ablation: Ablation) -> tuple[object, ...]:
    return (page, model.name, getattr(model, "step", 0), tuple(t.surface for t in tokens), ablation)


def show_head_importance(
    page: str, model: AttentionModel, tokens: list[Token], ablation: Ablation, knocked: list[tuple[int, int]], rtl: bool
) -> None:
    """A button that knocks every head out alone and maps how much each mattered. The result stays on screen (in
    this user's session) until the sentence, the model or the kind of knock-out changes."""
    kept_key = f"{page}_importance_result"
    signature = _importance_key(page, model, tokens, ablation)
    measure, n = measure_for(model, tokens), model.n_layers * model.n_heads
    if measure == "guess":
        question = ngettext(
            "**Which heads matter?** Knock each of the {n} heads out alone and see how much that lowers the "
            "probability of the model's first guess.",
            "**Which heads matter?** Knock each of the {n} heads out alone and see how much that lowers the "
            "probability of the model's first guess.",
            n,
        )
    else:
        question = ngettext(
            "**Which heads matter?** Knock each of the {n} heads out alone and see how much that changes the "
            "sentence's final vectors (the angle between their mean with and without the head).",
            "**Which heads matter?** Knock each of the {n} heads out alone and see how much that changes the "
            "sentence's final vectors (the angle between their mean with and without the head).",
            n,
        )
    st.markdown(question.format(n=n))
    if st.button(_("Rank every head"), key=f"{page}_rank", icon=":material/leaderboard:"):
        st.session_state[kept_key] = (signature, head_importance(model, tokens, ablation))
    kept = st.session_state.get(kept_key)
    if kept is None or kept[0] != signature:
        return
    importance: HeadImportance = kept[1]
    chart(importance_map(importance, knocked=knocked, rtl=rtl), f"{page}_importance")
    ranked = importance.ranked()
    guess = importance.measure == "guess"
    top = _(", ").join(
        shown_head_name(head_name(layer, head))
        + " "
        + left_to_right("(" + (written_alone(score, sign=True) if guess else f"{written_alone(score, least=1)}°") + ")")
        for layer, head, score in ranked[:3]
    )
    order = [(layer, head) for layer, head, _score in ranked]
    ranks = _("; ").join(
        _("{head} ranks {ordinal} of {n}").format(
            head=shown_head_name(head_name(*h)), ordinal=_ordinal(order.index(h) + 1), n=len(order)
        )
        for h in knocked
    )
    if guess:
        explained = _(
            "Each cell: how much the probability of {word} ({whole:.3f} with every head) falls when that head alone "
            "is knocked out; red: it rises."
        ).format(word=isolate(plain(importance.guess)), whole=importance.whole)
    else:
        explained = _(
            "Each cell: the angle, in degrees, between the mean of the sentence's final vectors with every head and "
            "with that head alone knocked out (0°: nothing changed)."
        )
    most = (
        _("Most important: {top}. Knocked out above: {ranks}.").format(top=top, ranks=ranks)
        if ranks
        else _("Most important: {top}.").format(top=top)
    )
    st.caption(f"{explained} {most}")


def _ordinal(n: int) -> str:
    """ "34th" in English; each language writes its own ordinal ("34" where the sentence already says "rank")."""
    if 10 <= n % 100 <= 20:
        return _("{n}th").format(n=n)
    suffix = {1: N_("{n}st"), 2: N_("{n}nd"), 3: N_("{n}rd")}.get(n % 10, N_("{n}th"))
    return _(suffix).format(n=n)


def show_blank_attention_change(
    before: Analysis, after: Analysis, blank: int, rtl: bool, labels: list[str], key: str
) -> None:
    """The blank's row of every head (layers · heads × words) with every head | with the heads knocked out | the
    difference, side by side."""
    rows, was = before.attention_from(blank)
    now = after.attention_from(blank)[1]
    short_rows = [row.replace("layer ", "L").replace(" · head ", " H") for row in rows]
    # Three side by side where a third of the page labels every word (issue 32), else one under another.
    side_by_side = panels_across(current_screen(), len(labels), 1 / 3) >= 1
    columns = st.columns(3) if side_by_side else [st.container() for _ in range(3)]
    panels = ((EVERY_HEAD, was, "weights"), (KNOCKED_OUT, now, "weights"), (DIFFERENCE, now - was, "signed"))
    for column, (title, matrix, kind) in zip(columns, panels, strict=True):
        # The English title names the chart's key (a lesson's cell is on fill_blank_knock_out_weights_every); the
        # figure's title is translated as the chart is drawn.
        figure = heatmap(matrix, short_rows, labels, kind=kind, title=title, rtl=rtl, compact=True)  # type: ignore[arg-type]
        chart(figure, f"{key}_{kind}_{title.split()[0]}", column, share=1 / 3 if side_by_side else 1.0)
    st.caption(
        _(
            "One row per head (L2 H3: layer 2, head 3), one column per word: where the blank looked. In after − "
            "before, blue is where it looks more without the knocked-out heads, red less; the layers up to the first "
            "knocked-out head's do not change."
        )
    )
