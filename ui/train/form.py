"""The Train page's form: remembered across pages, and the names it gives what the user chose.

Streamlit forgets a page's widget values when the user visits another page. A run goes on meanwhile, so the
form is copied under a plain session key after every script run and put back on return: the pasted text, the
probe and the budget are still the ones the run was started with, and *Start a new run* trains on them again.
"""

from __future__ import annotations

import streamlit as st

from attention_core.training.corpora import SHIPPED_MIX
from ui.i18n import N_, _, ngettext, say

FORM_KEYS = (
    "train_corpus",
    "train_paste",
    "train_preset",
    "train_budget_by",
    "train_minutes",
    "train_steps",
    "train_probe",
)
DEFAULTS = {"train_minutes": 2.0, "train_steps": 1000}
_SAVED = "train_form"  # a plain key: it outlives the page's widgets

# What the page and the file names call each preset: "arabic" alone would read as "the Arabic model". File names
# keep these English words (attention-tiny-on-quran.zip); the page shows them translated (model_label).
MODEL_LABELS = {
    "live": N_("live-demo"),
    "arabic": N_("shipped-recipe"),
    "tiny": N_("tiny"),
    "small": N_("small"),
    "base": N_("base"),
}
CORPUS_LABELS = {
    "quran": N_("the Qurʾān"),
    "hadith": N_("the hadith (Bukhari and Muslim)"),
    SHIPPED_MIX: N_("Qurʾān + hadith + modern Arabic"),
    "modern": N_("everyday Modern Standard Arabic"),
}


def restore_form() -> None:
    """Put back the form's values (call before drawing the widgets). They are put back on every run, not only
    on return: a value Streamlit kept for a widget that was not drawn can be stale (the steps field came back at
    its default). Every widget's on_change is `remember_form`, so the copy is never older than the widget."""
    saved = st.session_state.setdefault(_SAVED, dict(DEFAULTS))
    for key in FORM_KEYS:
        if key in saved:
            st.session_state[key] = saved[key]


def remember_form() -> None:
    """Copy the form's current values (each widget's on_change, and once after the widgets are drawn)."""
    saved = st.session_state.setdefault(_SAVED, dict(DEFAULTS))
    saved.update({key: st.session_state[key] for key in FORM_KEYS if key in st.session_state})


def remember(key: str, value: object) -> None:
    """Something the form needs on return that is not a widget's value (the uploaded file's name)."""
    st.session_state.setdefault(_SAVED, {})[key] = value


def remembered(key: str) -> object:
    return st.session_state.get(_SAVED, {}).get(key)


def corpus_label(name: str) -> str:
    """A built-in corpus by its title; the user's own text by its file name, or "pasted text" (translated)."""
    return _(CORPUS_LABELS[name]) if name in CORPUS_LABELS else say(name)


def model_label(label: str, preset_name: str) -> str:
    """What the page calls a run's model: a preset's label translated, or the name of the file it was loaded from."""
    return _(label) if preset_name in MODEL_LABELS and label == MODEL_LABELS[preset_name] else label


def text_size(text: str) -> str:
    """The size of a text as training counts it (non-blank lines): "12 lines · 96 words"."""
    lines = [line for line in text.splitlines() if line.strip()]
    words = sum(len(line.split()) for line in lines)
    n_lines = ngettext("{n:,} line", "{n:,} lines", len(lines)).format(n=len(lines))
    n_words = ngettext("{n:,} word", "{n:,} words", words).format(n=words)
    return _("{lines} · {words}").format(lines=n_lines, words=n_words)
