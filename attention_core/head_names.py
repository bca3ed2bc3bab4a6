"""A head's short name, spelled in one place: "L2 H1" is the first head of the second layer, "L2" a layer, "H1" a
head column (counted from 1 on screen and in links, from 0 in the code).

Widgets, links, lessons and live-class questions keep the English name as their value (?fill_blank_knock_out=L1 H1
reads the same in every language); a reader sees it in their language, each with its own letters (Arabic: ط2 ر1,
ط for طبقة, layer, and ر for رأس, head): `written_head_name` turns the English name into the reader's, and
`english_head_name` turns a reader's name back.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from attention_core.words import N_

Translate = Callable[[str], str]  # the app's translation of a marked text (ui/i18n.py's `_`)

LAYER_SHORT, HEAD_SHORT, LAYER_HEAD_SHORT = N_("L{layer}"), N_("H{head}"), N_("L{layer} H{head}")
# An English name: a layer's head "L2 H1", a layer "L2", a head column "H1".
_ENGLISH_NAME = re.compile(r"L(?P<layer>\d+)(?: H(?P<head>\d+))?|H(?P<alone>\d+)")


def _untranslated(text: str) -> str:
    return text


def head_name(layer: int, head: int, translate: Translate = _untranslated) -> str:
    """Head `head` of layer `layer` (both from 0): "L2 H1" for (1, 0); in the reader's language with `translate`."""
    return translate(LAYER_HEAD_SHORT).format(layer=layer + 1, head=head + 1)


def layer_name(layer: int, translate: Translate = _untranslated) -> str:
    """Layer `layer` (from 0) as a row of a map of heads names it: "L1"."""
    return translate(LAYER_SHORT).format(layer=layer + 1)


def head_column_name(head: int, translate: Translate = _untranslated) -> str:
    """Head `head` (from 0) of a layer, as a column of a map of heads names it: "H1"."""
    return translate(HEAD_SHORT).format(head=head + 1)


def parse_head(name: str) -> tuple[int, int]:
    """The (layer, head), both from 0, that an English head name ("L1 H2") names; ValueError for any other text."""
    found = _ENGLISH_NAME.fullmatch(name)
    if found is None or found.group("head") is None:
        raise ValueError(f"not a head's name: {name!r}")
    return int(found.group("layer")) - 1, int(found.group("head")) - 1


def is_head_name(name: str) -> bool:
    """Whether `name` is an English name of a head, a layer or a head column ("L2 H1", "L2", "H1")."""
    return _ENGLISH_NAME.fullmatch(name) is not None


def names_one_head(name: str) -> bool:
    """Whether `name` is the English name of one head of a model ("L4 H2"), not of a layer or a head column."""
    found = _ENGLISH_NAME.fullmatch(name)
    return found is not None and found.group("head") is not None


def written_head_name(name: str, translate: Translate) -> str:
    """An English name of a head, a layer or a head column ("L2 H1", "L2", "H1") as `translate`'s language writes
    it; any other text as it is."""
    found = _ENGLISH_NAME.fullmatch(name)
    if found is None:
        return name
    layer, head, alone = found.group("layer", "head", "alone")
    if alone is not None:
        return head_column_name(int(alone) - 1, translate)
    if head is None:
        return layer_name(int(layer) - 1, translate)
    return head_name(int(layer) - 1, int(head) - 1, translate)


def english_head_name(name: str, translate: Translate, template: str = LAYER_HEAD_SHORT) -> str:
    """A head's name as `translate`'s language writes `template` ("ط4 ر2" for "L{layer} H{head}", «الرأس 2» for the
    live class's "head {head}") in English ("L4 H2", "head 2"); any other text as it is."""
    written = re.escape(translate(template))
    written = re.sub(r"\\\{(layer|head)\\\}", lambda hole: f"(?P<{hole.group(1)}>\\d+)", written)
    found = re.fullmatch(written, name)
    return template.format(**found.groupdict()) if found else name
