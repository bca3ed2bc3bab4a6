"""One step of the story on screen: heading, formula, shapes, a sentence of explanation, the heatmap."""

from __future__ import annotations

import re
from functools import partial

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch
from streamlit.delta_generator import DeltaGenerator

from attention_core.figures.first_paint import static_svg
from attention_core.figures.heatmaps import CAPTIONS, figure_table, heatmap_grid, panel_strip
from attention_core.figures.screen import finish, labels_every_word, panels_across
from attention_core.figures.text_alternative import panels
from attention_core.head_names import head_column_name, layer_name
from attention_core.models.knock_out_effects import GuessChange
from attention_core.models.word_pieces import neighbour_blocks, pool_to_words
from ui.accessibility import chart_config, chart_name, csv_label, describe_figure
from ui.i18n import N_, _, ngettext, reading_order, right_to_left, shown_head_name, translated_figure
from ui.lesson_view import mark_lesson_cell
from ui.progressive import painting_first
from ui.screen import current_screen

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")
# A product of shapes, "(6 × 64)·(64 × 6) = (6 × 6)": read left to right, also inside an Arabic sentence.
_SHAPE_PRODUCT = re.compile(r"\(\d+ × \d+\)(?:\s*[·=]\s*\(\d+ × \d+\))+")
LRI, PDI = "\u2066", "\u2069"  # a left-to-right isolate (Unicode's bidi algorithm, UAX #9)


def plain(text: object) -> str:
    """User text made safe for elements that render Markdown (warnings, captions, headers, pill labels): every
    character Markdown, LaTeX ($) or HTML could act on is escaped, so a typed <img …>, **x** or $x$ shows as
    typed. (Streamlit never renders HTML from these elements; this also keeps Markdown and math from acting.)"""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))


def left_to_right(text: str) -> str:
    """Something written left to right ("L1 H1", "L1 H1 (+0.12)") as one unit inside a right-to-left sentence. Bare,
    a head's name takes the number after it into its own run: «وبعد إيقاف L1 H1: قدير (0.344)» read "(0.344)"
    before قدير. The text itself in a left-to-right interface."""
    return f"{LRI}{text}{PDI}" if right_to_left() else text


def shapes_left_to_right(text: str) -> str:
    """In a right-to-left interface, every product of shapes in the text as one left-to-right unit: a right-to-left
    line would otherwise put "(6 × 6)" before "(6 × 64)·(64 × 6) =". Left-to-right text is returned as it is."""
    return _SHAPE_PRODUCT.sub(lambda m: left_to_right(m.group()), text)


def chart(
    figure: go.Figure,
    key: str,
    where: DeltaGenerator | None = None,
    *,
    table: bool = True,
    shows: str = "",
    share: float = 1.0,
) -> None:
    """A heatmap with export: PNG from Plotly's camera button, CSV of its matrix (pandas) from a button below
    (table=False: no CSV, for a map of labels such as the heads' roles). Files are named after the figure's title
    or its key, e.g. attention-similarity_A.png. Below it, the heatmap in words for a screen reader and a switch that
    shows it as a table; shows: what an untitled figure shows (its CSV button's name, ui.accessibility.chart_name)."""
    where = where or st.container()
    # One finishing step for the screen it is drawn on (attention_core/figures/screen.py): translated, an open
    # lesson's cell outlined, type for a projector, numbers and labels that fit the width drawn.
    outline = lambda f: mark_lesson_cell(f, key)  # noqa: E731
    figure = finish(figure, current_screen(), share=share, translate=translated_figure, outline=outline)
    title = figure.layout.title.text or key
    name = "attention-" + (re.sub(r"[^\w]+", "-", title, flags=re.UNICODE).strip("-") or key)
    picture = static_svg(figure, current_screen().figure_px(share)) if painting_first() else None
    if picture is not None:  # a phone's first heatmap: a picture now, the chart once Plotly's code is loaded
        where.container(key=f"first_paint_{key}").image(picture, width="stretch", alt=chart_name(figure, key, shows))
    else:
        where.plotly_chart(figure, key=key, config=chart_config(name))
    row = (
        where.container(horizontal=True, vertical_alignment="center", gap="medium")
        if table or panels(figure)
        else where
    )
    if table:  # the CSV is made only when clicked (a callable): at 512 words it is costly (docs/speed.md)
        row.download_button(
            plain(csv_label(figure, key, shows)),
            lambda: figure_table(figure).to_csv().encode("utf-8"),
            f"{name}.csv",
            "text/csv",
            key=f"{key}_csv",
            help=_("Download this matrix as CSV"),
        )
    describe_figure(figure, key, where, row, table=table, shows=shows)  # for a screen reader; a table on request


def show_step(*, heading: str, formula: str, shape: str, explanation: str, figure: go.Figure, key: str) -> None:
    """One step of the story: its heading, formula, shapes and explanation, the heatmap, and what its colours
    mean (the figure says which colour scale it uses)."""
    st.subheader(heading)
    st.latex(formula)
    st.caption(_("Shapes: {shape}").format(shape=shapes_left_to_right(shape)))
    st.markdown(explanation)
    chart(figure, key, shows=heading)
    st.caption(_(CAPTIONS[figure.layout.meta["kind"]]))


def flag_model_cut(n_tokens: int, n_read: int) -> None:
    if n_tokens > n_read:
        left_out = n_tokens - n_read
        st.warning(
            ngettext(
                "The model reads only the first {n_read} words and marks of this text (its longest input); the "
                "{left_out} after them is left out here.",
                "The model reads only the first {n_read} words and marks of this text (its longest input); the "
                "{left_out} after them are left out here.",
                left_out,
            ).format(n_read=n_read, left_out=left_out)
        )


def flag_unknown_words(labels: list[str], known: tuple[bool, ...], *, in_v: bool = False) -> None:
    """Name the words the model cannot read. in_v: the page draws V (Similarity, Trainable), where such a word's
    row is zero (interface.unread_rows_as_zero); elsewhere the page draws the model's layers, which read the
    model's one [UNK] token for each."""
    unknown = [w for w, ok in zip(labels, known, strict=True) if not ok]
    if not unknown:
        return
    said = (
        _(
            "The model cannot read these (a character it never saw in training), marked (?) on the axes: their row "
            "of V is zero, so they resemble no word: {words}"
        )
        if in_v
        else _(
            "The model cannot read these (a character it never saw in training), marked (?) on the axes: its layers "
            "read each as its one [UNK] token: {words}"
        )
    )
    st.warning(said.format(words=_(", ").join(plain(word) for word in unknown)))


# A grid of heads draws at most this many cells (MiniLM at 512 pieces would be 78 × 512² = 20 M); past it,
# neighbouring words are pooled, so a long text's grid stays a size a browser draws quickly (docs/speed.md).
GRID_CELLS = 800_000
ROW_LABEL_PX = 18  # a wrapped grid's row of words: a 9-px label's text box and the gap to the next


def head_grid(
    weights: torch.Tensor,
    labels: list[str],
    rtl: bool,
    key: str,
    average: bool = True,
    whole_on_desktop: bool = True,
) -> None:
    """Every head's attention as one layers × heads grid of heatmaps, each layer's average in the last column.
    A long sentence's grid pools k neighbouring words into one cell (rows averaged, columns summed), and says so."""
    n_layers, n_heads = weights.shape[:2]
    n_panels = n_layers * (n_heads + average)
    max_size = int((GRID_CELLS / n_panels) ** 0.5)
    if len(labels) > max_size:
        blocks = neighbour_blocks(labels, max_size)
        k = blocks.word_of.count(0)  # the words pooled into one cell (the first block is always full)
        weights, labels = pool_to_words(weights, blocks), list(blocks.words)
        st.caption(
            _(
                "A long text: in this grid each cell pools {k} neighbouring words (attention from them averaged, "
                "to them summed; rows still sum to 1). The head picked below shows every word."
            ).format(k=k)
        )
    panels = torch.cat([weights, weights.mean(1, keepdim=True)], dim=1) if average else weights
    columns = [head_column_name(head) for head in range(n_heads)] + ([N_("average")] if average else [])
    rows = [layer_name(layer) for layer in range(n_layers)]
    # Every word column keeps its label (issue 32): on a phone, and where a layer's panels do not fit side by side so
    # (a projector's 3-layer Arabic grid; the Train page's probe on any screen), one layer at a time, its heads
    # wrapped into rows. A desktop keeps the whole grid of a lesson's page (MiniLM's 78 panels thin their words; a
    # lesson points at any layer's head in it): `whole_on_desktop`.
    screen = current_screen()
    whole = None  # built once: the check below and the chart share it (MiniLM's grid is the costly one)
    wrap = screen.phone
    if not wrap and (screen.presentation or not whole_on_desktop):
        fits = panels_across(screen, len(labels)) >= len(columns)  # an estimate that errs wide: a cheap "no" first
        if fits:
            whole = heatmap_grid(panels, labels, row_names=rows, column_names=columns, rtl=rtl, translate=_)
        wrap = not fits or not labels_every_word(whole, screen)
    if wrap:
        layer = _layer_picked(n_layers, key)
        start = max(1, min(len(columns), panels_across(screen, len(labels))))
        for across in range(start, 0, -1):  # the most panels a row that keep every word's label; one at least
            figure = _one_layer(panels, labels, columns, rtl, layer, across)
            if labels_every_word(figure, screen):
                break
        chart(figure, key)
        return
    if whole is None:
        whole = heatmap_grid(panels, labels, row_names=rows, column_names=columns, rtl=rtl, translate=_)
    chart(whole, key)


def _layer_picked(n_layers: int, key: str) -> int:
    """The layer a wrapped grid shows, from a picker above it (none for a one-layer model)."""
    if n_layers == 1:
        return 0
    names = [layer_name(layer) for layer in range(n_layers)]
    picked = st.segmented_control(
        _("Layer"), names, format_func=shown_head_name, default=names[0], key=f"{key}_layer", required=True
    )
    return names.index(picked or names[0])


def _one_layer(
    panels: torch.Tensor, labels: list[str], columns: list[str], rtl: bool, layer: int, across: int
) -> go.Figure:
    """One layer's heads wrapped into rows of `across` panels, each panel titled with its own name ("L2 H5"), each
    row of words a label's height at least (a phone's smallest type, figures.screen.LABEL_FLOOR_PX)."""
    count, n = panels.shape[1], panels.shape[2]
    n_rows = -(-count // across)
    wrapped = torch.full((n_rows * across, n, n), float("nan"))
    wrapped[:count] = panels[layer]
    titles = [f"{layer_name(layer)} {name}" if name.startswith("H") else name for name in columns] + [""] * (
        n_rows * across - count
    )
    # Rows and columns of the wrapped grid are told apart by invisible marks (the hover names the words).
    return heatmap_grid(
        wrapped.reshape(n_rows, across, n, n),
        labels,
        row_names=[layer_name(layer) + "\u200b" * r for r in range(n_rows)],
        column_names=["\u200b" * (c + 1) for c in range(across)],
        rtl=rtl,
        panel_height=max(110, ROW_LABEL_PX * n + 30),
        translate=_,
        panel_names=[titles[r * across : (r + 1) * across] for r in range(n_rows)],
    )


def strip_of_panels(
    matrices: torch.Tensor,
    labels: list[str],
    names: list[str],
    rtl: bool,
    key: str,
    signed: frozenset[int] = frozenset(),
    panel_height: int = 380,
) -> None:
    """A few heatmaps over the same words (raw | this head | head − raw) side by side where every word column keeps
    its label so, else one under another (a phone; a projector's long sentence): figures.heatmaps.panel_strip."""
    strip = partial(panel_strip, matrices, labels, names, signed=signed, rtl=rtl, panel_height=panel_height)
    across = strip(across=True, translate=_)
    chart(across if labels_every_word(across, current_screen()) else strip(across=False, translate=_), key)


def guess_change_table(changes: list[GuessChange], before: str, after: str) -> None:
    """Guesses under two conditions side by side (`before` and `after` name the two columns, in the reader's
    language): each word's two probabilities as bars, and the change. The table's own columns keep their English
    names ("word", "change"), which tests look up; their headers are shown translated."""
    probability = {"min_value": 0.0, "max_value": 1.0, "format": "%.3f"}
    table = pd.DataFrame(
        {
            "word": [c.word for c in changes],
            before: [c.before for c in changes],
            after: [c.after for c in changes],
            "change": [c.change for c in changes],
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        column_order=reading_order(table.columns),
        column_config={
            "word": st.column_config.TextColumn(_("word")),
            before: st.column_config.ProgressColumn(before, **probability),  # type: ignore[arg-type]
            after: st.column_config.ProgressColumn(after, **probability),  # type: ignore[arg-type]
            "change": st.column_config.NumberColumn(_("change"), format="%+.3f"),
        },
    )
