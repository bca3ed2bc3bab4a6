"""The join link as a QR code for the projector (segno: pure Python, no image library needed for SVG)."""

from __future__ import annotations

import io

import segno

MAX_LINK = 1_000  # characters: a join link is a host, a path and a 5-letter code


def _code(link: str) -> segno.QRCode:
    if not isinstance(link, str) or not link.startswith(("http://", "https://")) or len(link) > MAX_LINK:
        raise ValueError(f"A join link is an http(s) address of at most {MAX_LINK} characters.")
    # Error correction M: a projector's glare or a phone at an angle still reads it.
    return segno.make(link, error="m", micro=False)


def join_qr_svg(link: str, title: str = "") -> str:
    """An SVG document of the QR code of `link`, black on white with a quiet border, drawn to any size (viewBox);
    `title` is what a screen reader says (e.g. the translated "QR code of the join link")."""
    out = io.BytesIO()
    _code(link).save(
        out,
        kind="svg",
        xmldecl=False,
        svgns=True,
        nl=False,
        border=4,
        title=title or None,
        omitsize=True,
        dark="#000",
        light="#fff",
    )
    return out.getvalue().decode()


def join_qr_png(link: str, scale: int = 10) -> bytes:
    """PNG bytes of the QR code of `link`, `scale` pixels a module (10: about 370 px for a short link)."""
    out = io.BytesIO()
    _code(link).save(out, kind="png", scale=scale, border=4, dark="#000", light="#fff")
    return out.getvalue()
