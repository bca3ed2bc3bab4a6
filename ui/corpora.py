"""The Train page's corpus: a built-in one (read once per server) or the user's own upload or paste."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from attention_core.training.corpora import SHIPPED_MIX, Corpus, CorpusError, lines_from_bytes, load_corpus, own_corpus
from attention_core.training.live import LIMITS

# The Qurʾān comes first: the quickest to start (its pieces are learned in about a second; the mix takes ~30 s).
BUILT_IN_CHOICES = {
    "Qurʾān (built in)": "quran",
    "Qurʾān + hadith (built in; the shipped model's mix, the Qurʾān read 4 times per epoch)": SHIPPED_MIX,
    "Hadith: Bukhari and Muslim (built in)": "hadith",
}
UPLOAD, PASTE = "upload a .txt file", "paste text"
CORPUS_CHOICES = [*BUILT_IN_CHOICES, UPLOAD, PASTE]


@st.cache_resource(show_spinner="Reading the corpus…")
def built_in_corpus(name: str) -> Corpus:
    return load_corpus(name)  # read-only tuples of lines: safe to share between sessions


def chosen_corpus(choice: str, upload: UploadedFile | None, pasted: str) -> Corpus:
    """The corpus the user picked; raises CorpusError saying what is missing or wrong."""
    if choice in BUILT_IN_CHOICES:
        return built_in_corpus(BUILT_IN_CHOICES[choice])
    if choice == UPLOAD:
        if upload is None:
            raise CorpusError("choose a .txt file to upload first (UTF-8 text, one sentence per line)")
        name = upload.name
        return own_corpus(name, lines_from_bytes(upload.getvalue(), name, LIMITS.max_corpus_bytes))
    if not pasted.strip():
        raise CorpusError("paste some text first: one sentence per line, at least 20 lines")
    return own_corpus("pasted text", lines_from_bytes(pasted.encode("utf-8"), "pasted text", LIMITS.max_corpus_bytes))
