"""How a model's tokens are drawn: MiniLM reads word pieces and adds [CLS]/[SEP]; a page shows whole words by
default (pooled as attention_core.models.word_pieces explains) and can show the pieces or hide the two special
tokens."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
import torch

from attention_core.figures.heatmaps import word_labels
from attention_core.models.interface import Analysis, AttentionModel
from attention_core.models.word_pieces import shown_attention
from ui.i18n import N_, _


@dataclass(frozen=True)
class TokenDisplay:
    whole_words: bool  # pieces of a word pooled into the word; False: one row and column per piece
    show_special: bool  # [CLS] and [SEP] shown; False: dropped, rows renormalised


READS_PIECES = N_(
    "MiniLM reads word pieces (tokenisation → token ##isation). On: one row and column per typed word: attention "
    "to a word is the sum over its pieces, attention from a word the average over its pieces. Off: every piece on "
    "its own."
)
BUILDS_FROM_PIECES = N_(
    "The Arabic model reads every word through its word pieces (المدرسة → المد ##رس ##ة) and builds the word's "
    "vector as the mean of its pieces' vectors. On: one row per typed word. Off: one row per piece (its own vector, "
    "plus the position of its word)."
)


def token_display(page: str, model: AttentionModel, *, special: bool = True, vectors: bool = False) -> TokenDisplay:
    """Sidebar switches for how a word-piece model's tokens are drawn (whole words by default), and, on pages
    that draw attention, whether [CLS] and [SEP] are shown. vectors=True: a page of word vectors, where a model
    that builds each word from its pieces (the Arabic one) can show the pieces too; its attention is over words."""
    whole_words, show_special = True, True
    if model.reads_word_pieces or (vectors and model.builds_words_from_pieces):
        how = READS_PIECES if model.reads_word_pieces else BUILDS_FROM_PIECES
        whole_words = st.sidebar.toggle(
            _("Whole words"), value=True, key=f"{page}_words", bind="query-params", help=_(how)
        )
    if special:
        show_special = st.sidebar.toggle(
            _("Show [CLS] and [SEP]"),
            value=True,
            key=f"{page}_special",
            bind="query-params",
            help=_(
                "The start and end tokens the model adds. Many heads rest most of their attention on them. Off: "
                "their rows and columns are dropped and every row is renormalised to sum to 1 over the real words."
            ),
        )
    return TokenDisplay(whole_words, show_special)


def drawn_attention(weights: torch.Tensor, analysis: Analysis, display: TokenDisplay) -> tuple[torch.Tensor, list[str]]:
    """Weights over the model's tokens as the sidebar asks to draw them, with their axis labels."""
    view = shown_attention(
        weights,
        analysis.labels,
        analysis.known,
        analysis.pieces,
        whole_words=display.whole_words,
        show_special=display.show_special,
    )
    return view.weights, word_labels(view.labels, view.known)


def say_how_tokens_are_drawn(analysis: Analysis, display: TokenDisplay) -> None:
    notes = []
    if analysis.pieces.splits_words:
        whole = _(
            "Whole words: attention *to* a word is the sum over its pieces, attention *from* a word the "
            "average over its pieces (switch **Whole words** off in the sidebar to see the pieces)."
        )
        notes.append(
            whole if display.whole_words else _("Word pieces: every row and column is one piece the model read.")
        )
    if not display.show_special:
        notes.append(_("[CLS] and [SEP] are hidden: each row is renormalised to sum to 1 over the words left."))
    if notes:
        st.caption(" ".join(notes))


def place_names(labels: list[str]) -> list[str]:
    """The labels as names a selectbox and its URL can tell apart: a repeated word carries its place (إلى ·2), so a
    link reopens that one and not its twin."""
    return [
        f"{label} ·{labels[: i + 1].count(label)}" if labels.count(label) > 1 else label
        for i, label in enumerate(labels)
    ]
