"""The Train page's corpus: a built-in one (read once per server) or the user's own upload or paste."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from attention_core.training.corpora import SHIPPED_MIX, Corpus, CorpusError, lines_from_bytes, load_corpus, own_corpus
from attention_core.training.live import LIMITS
from attention_core.words import Worded
from ui.i18n import N_, _

# The options are the English labels (the form remembers them, tests pick them); the radio shows them translated.
# The Qurʾān comes first: the quickest to start (its pieces are learned in about a second; the mix takes ~30 s).
BUILT_IN_CHOICES = {
    N_("Qurʾān (built in)"): "quran",
    N_("Qurʾān + hadith + modern Arabic (built in; the shipped model's mix, the Qurʾān read 4 times per epoch)"): (
        SHIPPED_MIX
    ),
    N_("Hadith: Bukhari and Muslim (built in)"): "hadith",
    N_("Modern Standard Arabic: everyday sentences (built in)"): "modern",
    N_("English: everyday sentences (built in)"): "english_everyday",
}
UPLOAD, PASTE = N_("upload a .txt file"), N_("paste text")
CORPUS_CHOICES = [*BUILT_IN_CHOICES, UPLOAD, PASTE]
# The pasted text's name: English in file names ("attention-tiny-on-pasted-text"), translated where it is shown.
PASTED_TEXT = Worded(N_("pasted text"))


@st.cache_resource(show_spinner=False)
def _built_in_corpus(name: str) -> Corpus:
    return load_corpus(name)  # read-only tuples of lines: safe to share between sessions


def built_in_corpus(name: str) -> Corpus:
    """A built-in corpus, read once per server (the spinner in this session's language, the cache shared)."""
    with st.spinner(_("Reading the corpus…")):
        return _built_in_corpus(name)


def chosen_corpus(choice: str, upload: UploadedFile | None, pasted: str) -> Corpus:
    """The corpus the user picked; raises CorpusError saying what is missing or wrong."""
    if choice in BUILT_IN_CHOICES:
        return built_in_corpus(BUILT_IN_CHOICES[choice])
    if choice == UPLOAD:
        if upload is None:
            raise CorpusError(Worded(N_("choose a .txt file to upload first (UTF-8 text, one sentence per line)")))
        name = upload.name
        return own_corpus(name, lines_from_bytes(upload.getvalue(), name, LIMITS.max_corpus_bytes))
    if not pasted.strip():
        raise CorpusError(Worded(N_("paste some text first: one sentence per line, at least 20 lines")))
    lines = lines_from_bytes(pasted.encode("utf-8"), PASTED_TEXT, LIMITS.max_corpus_bytes)
    return own_corpus(PASTED_TEXT, lines)
