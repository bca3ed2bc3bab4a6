"""What a class should expect from a short sentence on Fill the blank, in numbers the shipped model was measured on:
held-out text read in 12-word windows against whole lines (bench/arabic_model_report.py wrote them to the model's
scores.json; docs/arabic-model-scores.md has the full table)."""

from __future__ import annotations

from attention_core.models.interface import MaskedWordModel
from ui.i18n import _
from ui.models import shipped_model, shipped_scores

SHORT, WHOLE = "12-word windows", "whole lines"  # the readings scores.json names


def short_sentence_caption(model: MaskedWordModel) -> str | None:
    """One caption for the shipped model (None for a user's own, which was never measured so)."""
    table = (shipped_scores() or {}).get("short_text")  # {corpus: {reading: {top1, bigram_top1, …}}}
    if model is not shipped_model() or table is None:
        return None
    hadith, quran = table["hadith"], table["quran"]
    text = _(
        "**Short sentences.** On held-out text cut into 12-word pieces, each read alone, the model's first guess was "
        "the hidden word for {hadith_short:.0%} of the hadith's words and {quran_short:.0%} of the Qurʾān's (whole "
        "records and āyāt: {hadith_whole:.0%} and {quran_whole:.0%}). Guessing from the two neighbouring words alone "
        "(counted word pairs) gets {hadith_pairs:.0%} and {quran_pairs:.0%} on the same pieces."
    ).format(
        hadith_short=hadith[SHORT]["top1"],
        quran_short=quran[SHORT]["top1"],
        hadith_whole=hadith[WHOLE]["top1"],
        quran_whole=quran[WHOLE]["top1"],
        hadith_pairs=hadith[SHORT]["bigram_top1"],
        quran_pairs=quran[SHORT]["bigram_top1"],
    )
    parts = (hadith, quran)
    fewer = all(part[SHORT]["top1"] < part[WHOLE]["top1"] for part in parts)
    if fewer and all(_lead(part, SHORT) < _lead(part, WHOLE) for part in parts):
        text += " " + _(
            "So expect fewer right first guesses from a short sentence, and a smaller lead over counting word "
            "pairs: with fewer words around the blank, attention has less to use."
        )
    elif fewer:
        text += " " + _(
            "So expect fewer right first guesses from a short sentence: fewer words around the blank leave less "
            "to go on."
        )
    return text


def _lead(part: dict[str, dict], reading: str) -> float:
    """The model's top-1 above the counted word pairs' (the left+right bigram's), in that reading."""
    return part[reading]["top1"] - part[reading]["bigram_top1"]
