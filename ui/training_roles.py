"""The Train page's roles of the heads: every snapshot of the probe's attention named by head_roles, drawn as the
roles over training and as the map of one snapshot."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attention_core.figures.head_maps import role_map, roles_over_training
from attention_core.models.head_roles import POSITIONAL_ROLES, HeadRoles, head_roles
from attention_core.training.live import Progress, Snapshot
from ui.head_roles_view import HOW_ROLES_ARE_SCORED
from ui.i18n import _, ngettext
from ui.show import chart

_CACHE = "train_roles_cache"  # (snapshots, their roles): a slider move recomputes only the snapshots that are new


def probe_special(labels: Sequence[str]) -> list[bool]:
    """Which of the probe's tokens are special: its [CLS] (the probe has no [SEP])."""
    return [label == "[CLS]" for label in labels]


def snapshot_roles(progress: Progress) -> list[HeadRoles]:
    """The roles of every snapshot's heads, each computed once per session. At 90 snapshots of 4 × 8 heads they
    cost about 140 ms, on every move of the replay slider if not kept (the snapshots themselves never change)."""
    kept: tuple[tuple[Snapshot, ...], list[HeadRoles]] = st.session_state.get(_CACHE, ((), []))
    known = {id(snapshot): roles for snapshot, roles in zip(*kept, strict=True)}  # ids of live objects: unique
    special = probe_special(progress.probe_labels)
    roles = [known.get(id(s)) or head_roles(s.weights, special) for s in progress.snapshots]
    st.session_state[_CACHE] = (progress.snapshots, roles)
    return roles


def positional_heads(roles: HeadRoles) -> int:
    counts = roles.counts()
    return sum(counts[role] for role in POSITIONAL_ROLES)


def _flat(roles: HeadRoles) -> list[str]:
    return [role for layer in roles.roles for role in layer]


def roles_caption(steps: Sequence[int], roles: Sequence[HeadRoles], picked: int) -> str:
    """What the two figures show, in numbers: heads with a positional role at the first and last snapshot, how many
    heads changed role between them, and the roles at the picked one."""
    n_layers, n_heads = roles[0].scores.shape[:2]
    total, first = n_layers * n_heads, positional_heads(roles[0])
    if len(steps) == 1:
        ends = ngettext(
            "Of the {total} head, {first} at step {start:,} read by position (previous word, next word, self or sink).",
            "Of the {total} heads, {first} at step {start:,} read by position (previous word, next word, self or "
            "sink).",
            total,
        ).format(total=total, first=first, start=steps[0])
    else:
        changed = sum(a != b for a, b in zip(_flat(roles[0]), _flat(roles[-1]), strict=True))
        ends = " ".join(
            (
                ngettext(
                    "Of the {total} head, {first} at step {start:,} and {last} at step {end:,} read by position "
                    "(previous word, next word, self or sink);",
                    "Of the {total} heads, {first} at step {start:,} and {last} at step {end:,} read by position "
                    "(previous word, next word, self or sink);",
                    total,
                ).format(total=total, first=first, start=steps[0], last=positional_heads(roles[-1]), end=steps[-1]),
                ngettext(
                    "{changed} head has a different role at the end than at the start.",
                    "{changed} heads have a different role at the end than at the start.",
                    changed,
                ).format(changed=changed),
            )
        )
    counts = _(", ").join(f"{_(role)} {n}" for role, n in roles[picked].counts().items() if n)
    return " ".join(
        (
            ends,
            _("Heads per role at step {step:,}: {counts}.").format(step=steps[picked], counts=counts),
            _("The roles are of the probe sentence; hover a head for its five scores."),
        )
    )


def show_roles_over_training(progress: Progress, picked: int, rtl: bool) -> None:
    """Under the replay: every head's role at every snapshot, and the map of the snapshot picked on the slider."""
    roles = snapshot_roles(progress)
    steps = [snapshot.step for snapshot in progress.snapshots]
    st.subheader(_("Roles of the heads over training"))
    chart(roles_over_training(steps, roles, picked=picked, translate=_), "train_roles_over_training")
    st.markdown(
        _("**The heads' roles at step {step:,}** (picked on the slider above, outlined here)").format(
            step=steps[picked]
        )
    )
    chart(role_map(roles[picked], rtl=rtl, translate=_), "train_roles_map")
    st.caption(roles_caption(steps, roles, picked))
    with st.expander(_("How the roles are scored")):
        st.markdown(_(HOW_ROLES_ARE_SCORED))


def show_latest_roles(progress: Progress, rtl: bool) -> None:
    """While training: the roles of the latest snapshot only (one head_roles and one small figure a second)."""
    snapshot = progress.snapshots[-1]
    roles = head_roles(snapshot.weights, probe_special(progress.probe_labels))
    st.markdown(_("**The heads' roles at step {step:,}**").format(step=snapshot.step))
    chart(role_map(roles, rtl=rtl, translate=_), "train_live_roles")
