"""The Train page's roles of the heads: every snapshot of the probe's attention named by head_roles, drawn as the
roles over training (live, and under the replay with the map of the picked snapshot), with captions that say which
heads changed role and from which step."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attention_core.figures.head_maps import role_map, roles_over_training
from attention_core.models.head_roles import POSITIONAL_ROLES, HeadRoles, head_roles
from attention_core.training.emergence import role_changes
from attention_core.training.live import Progress, Snapshot
from ui.head_roles_view import HOW_ROLES_ARE_SCORED
from ui.i18n import _, ngettext, shown_head_name
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


def changes_line(steps: Sequence[int], roles: Sequence[HeadRoles]) -> str:
    """Which heads have another role at the last snapshot than at the first, and from which step they keep it
    (role_changes), e.g. "2 heads have a different role at step 700 than at step 0: L3 H4 broad → previous word
    from step 95; …"."""
    changes = role_changes(steps, roles)
    if not changes:
        return _("No head has a different role at step {end:,} than at step {start:,}.").format(
            start=steps[0], end=steps[-1]
        )
    each = _("; ").join(
        _("{head} {before} → {after} from step {step:,}").format(
            head=shown_head_name(change.name), before=_(change.before), after=_(change.after), step=change.step
        )
        for change in changes
    )
    return ngettext(
        "{n} head has a different role at step {end:,} than at step {start:,}: {changes}.",
        "{n} heads have a different role at step {end:,} than at step {start:,}: {changes}.",
        len(changes),
    ).format(n=len(changes), start=steps[0], end=steps[-1], changes=each)


def roles_caption(steps: Sequence[int], roles: Sequence[HeadRoles], picked: int) -> str:
    """What the two figures show, in numbers: heads with a positional role at the first and last snapshot, which
    heads changed role between them and from which step, and the roles at the picked one."""
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
        ends = " ".join(
            (
                ngettext(
                    "Of the {total} head, {first} at step {start:,} and {last} at step {end:,} read by position "
                    "(previous word, next word, self or sink).",
                    "Of the {total} heads, {first} at step {start:,} and {last} at step {end:,} read by position "
                    "(previous word, next word, self or sink).",
                    total,
                ).format(total=total, first=first, start=steps[0], last=positional_heads(roles[-1]), end=steps[-1]),
                changes_line(steps, roles),
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


def show_latest_roles(progress: Progress) -> None:
    """While training: every head's role at every snapshot so far (each snapshot's roles computed once), and which
    heads have changed role since step 0."""
    roles = snapshot_roles(progress)
    steps = [snapshot.step for snapshot in progress.snapshots]
    st.markdown(_("**The heads' roles so far** (step {start:,} to {end:,})").format(start=steps[0], end=steps[-1]))
    chart(roles_over_training(steps, roles, translate=_), "train_live_roles", table=False)
    st.caption(changes_line(steps, roles) if len(steps) > 1 else _("One snapshot so far: no change to show yet."))
