"""User text made safe for the elements that render Markdown (warnings, captions, headers, pill labels)."""

from __future__ import annotations

import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def plain(text: object) -> str:
    """User text made safe for elements that render Markdown (warnings, captions, headers, pill labels): every
    character Markdown, LaTeX ($) or HTML could act on is escaped, so a typed <img …>, **x** or $x$ shows as
    typed. (Streamlit never renders HTML from these elements; this also keeps Markdown and math from acting.)"""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))
