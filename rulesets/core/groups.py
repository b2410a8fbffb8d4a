"""Terrain pieces as the rules count them: shapes that share a `group` are one piece
(docs/scene-format.md, "Grouped pieces").

Every rule that asks which piece a model is in, behind or on, and every name a verdict reports
(a cover source, a blocker), goes through `Groups`, so the four systems, the set-up checks and
the layout figures agree. A shape without `group` is a piece of its own, named by its id; a
shape named like a group belongs to it. A grouped piece's outline is the union of its shapes'
footprints (`planar.union_outline`); its kind is any of its shapes' ("the group is woods when
one of its shapes is"), read by the rule with `first`, and its rules keys are its shapes' own,
which `validate` makes agree (`scenes.groups.conflicts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
from battlesight.geometry import planar
from battlesight.scenes.groups import group_name

if TYPE_CHECKING:
    from battlesight.geometry.placed import TerrainEntry
    from battlesight.geometry.world import World
    from shapely.geometry.base import BaseGeometry


class Groups:
    """The pieces of a world's terrain: which shapes make each one, and its outline."""

    def __init__(self, terrain: Mapping[str, TerrainEntry]):
        self._terrain = terrain
        self._piece: dict[str, str] = {}
        self._members: dict[str, list[str]] = {}
        for entry_id, entry in terrain.items():
            name = group_name(entry_id, entry.data)
            self._piece[entry_id] = name
            self._members.setdefault(name, []).append(entry_id)
        self._outlines: dict[str, BaseGeometry] = {}
        self._index: planar.FootprintIndex | None = None

    def names(self) -> list[str]:
        """Every piece, in the scene order of its first shape."""
        return list(self._members)

    def piece_of(self, owner: str) -> str:
        """The piece a terrain shape belongs to; any other id (a model) as it is."""
        return self._piece.get(owner, owner)

    def members(self, name: str) -> list[TerrainEntry]:
        """The shapes of a piece, in scene order (empty for an unknown name)."""
        return [self._terrain[i] for i in self._members.get(name, [])]

    def is_group(self, name: str) -> bool:
        return len(self._members.get(name, ())) > 1

    def outline(self, name: str) -> BaseGeometry:
        """The piece's plan outline (prepared): a shape's own footprint, or a group's union."""
        if name not in self._outlines:
            feet = [e.geometry.shape for e in self.members(name)]
            out = feet[0] if len(feet) == 1 else planar.shape(planar.union_outline(feet))
            self._outlines[name] = out
        return self._outlines[name]

    def footprint(self, name: str) -> np.ndarray:
        """The piece's outline as a (k, 2) ring (a shape's own footprint array as it is)."""
        members = self.members(name)
        if len(members) == 1:
            return np.asarray(members[0].geometry.footprint, float)
        ring = self.outline(name)
        return np.asarray(ring.exterior.coords, float)[:-1] if not ring.is_empty \
            else np.zeros((0, 2))

    def under(self, outline: planar.PolygonLike) -> list[str]:
        """Pieces whose outline the base (or any plan shape) meets, in scene order: a model
        between two wall boxes of a grouped ruin is on that ruin."""
        if self._index is None:
            names = self.names()
            self._index = planar.FootprintIndex(names, [self.outline(n) for n in names])
        return self._index.under(outline)

    def at(self, point) -> list[str]:
        """Pieces whose outline holds the plan point."""
        import shapely

        return self.under(shapely.Point(*map(float, list(point)[:2])))

    def first(self, name: str, test: Callable[[TerrainEntry], bool]) -> TerrainEntry | None:
        """The piece's first shape (scene order) for which `test` holds: the shape whose kind
        and values a rule reads for the whole piece (None: the piece is not of that kind)."""
        return next((e for e in self.members(name) if test(e)), None)

    def shares(self, shares: Mapping[str, float]) -> dict[str, float]:
        """Shares by owner (a blocker's hidden share) summed by piece, largest first (ties in
        first-seen order, so shares without groups come back as they were)."""
        out: dict[str, float] = {}
        for owner, share in shares.items():
            name = self.piece_of(owner)
            out[name] = out.get(name, 0.0) + float(share)
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def groups_of(world: World) -> Groups:
    """The world's pieces (`Groups`), kept on the world until a terrain piece is added (the
    one cache that boards and the world-level rules, wmh2's, share)."""
    key = len(world.terrain)  # pieces are only ever added
    hit = world.__dict__.get("_rules_groups")
    if hit is None or hit[0] != key:
        hit = (key, Groups(world.terrain))
        world.__dict__["_rules_groups"] = hit
    return hit[1]
