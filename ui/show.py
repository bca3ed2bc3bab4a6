"""One step of the story on screen: heading, formula, shapes, a sentence of explanation, the heatmap."""

from __future__ import annotations

import re
from functools import partial

import plotly.graph_objects as go
import streamlit as st
import torch
from streamlit.delta_generator import DeltaGenerator

from attention_core.figures.first_paint import static_svg
from attention_core.figures.heatmaps import CAPTIONS, figure_table, panel_strip
from attention_core.figures.screen import finish, labels_every_word
from attention_core.figures.text_alternative import panels
from ui.accessibility import chart_config, chart_name, csv_label, describe_figure
from ui.bidi import shapes_left_to_right
from ui.i18n import _, ngettext, translated_figure
from ui.lessons.view import mark_lesson_cell
from ui.markdown import plain
from ui.progressive import painting_first
from ui.screen import current_screen


def finished(figure: go.Figure, key: str, *, share: float = 1.0) -> go.Figure:
    """The one finishing step every figure of the app takes before it is drawn, for the screen it is drawn on
    (attention_core/figures/screen.py): translated, an open lesson's cell outlined (a lesson names it by `key`), type
    grown for a projector, numbers and labels fitted to the width drawn. `share` is that width's part of the page: a
    chart in one of two columns declares 1/2, or it is fitted as if it had the whole width."""
    outline = lambda f: mark_lesson_cell(f, key)  # noqa: E731
    return finish(figure, current_screen(), share=share, translate=translated_figure, outline=outline)


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
    figure = finished(figure, key, share=share)
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
