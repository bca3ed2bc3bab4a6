"""Which heads changed role over a training run, and at which step: read from the roles of its snapshots.

A head's role is named on the probe sentence at every snapshot (`head_roles`). Its *timeline* is the role at the
first snapshot and every later snapshot where the role differs from the one before. A head *changed* when its role
at the last snapshot differs from its role at the first; it *settled* at the snapshot from which it keeps its last
role to the end (a head may pass through other roles on the way: broad → mixed → next word).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from attention_core.head_names import head_name
from attention_core.models.head_roles import HeadRoles


@dataclass(frozen=True)
class RoleChange:
    """One head whose role at the end of a run differs from its role at the start."""

    layer: int  # 0-based, as in the weights (n_layers, n_heads, n, n)
    head: int
    before: str  # its role at the first snapshot
    after: str  # its role at the last snapshot
    step: int  # the first snapshot's step from which it keeps `after` to the end

    @property
    def name(self) -> str:
        return head_name(self.layer, self.head)


def timeline(steps: Sequence[int], roles: Sequence[HeadRoles], layer: int, head: int) -> list[tuple[int, str]]:
    """(step, role) at the first snapshot and at every snapshot where the head's role changed."""
    changes: list[tuple[int, str]] = []
    for step, named in zip(steps, roles, strict=True):
        role = named.roles[layer][head]
        if not changes or changes[-1][1] != role:
            changes.append((step, role))
    return changes


def role_changes(steps: Sequence[int], roles: Sequence[HeadRoles]) -> list[RoleChange]:
    """Every head whose last role differs from its first, in the order they settled (then layer, head)."""
    if not roles:
        return []
    n_layers, n_heads = roles[0].scores.shape[:2]
    changed = []
    for layer in range(n_layers):
        for head in range(n_heads):
            line = timeline(steps, roles, layer, head)
            (_, before), (settled, after) = line[0], line[-1]
            if after != before:
                changed.append(RoleChange(layer, head, before, after, settled))
    return sorted(changed, key=lambda change: (change.step, change.layer, change.head))
