"""Terrain as the MK II rules read it (wmh2 §6, §7): rules data per piece with defaults per
terrain type, and a per-world ray index for the sight and cover tests.

Scene keys on a piece override the defaults: `cover: cover | concealment | none`,
`concealment: true`, `obstacle: true`, `obstruction: true`, `rough: true`,
`impassable: true`, `cloud: true`, `elevation: true`.

The index holds the solid terrain that blocks lines (a forest's trunks are left out: a forest
blocks by the 3" rule of wmh2 §5.6, not by its models of trees), one ray scene per piece (for
"does this feature obscure the target"), and the forest and cloud volumes with a batched walk
that measures how far each line runs inside each of them.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.ray import RayScene
from battlesight.geometry.world import World
from battlesight.rulesets.core.groups import groups_of

RULE_TERRAIN = "wmh2 §7"
OBSTACLE_MAX_HEIGHT = 1.0  # wmh2 §7: obstacles are up to 1" tall, obstructions taller

#: Defaults per scene terrain type: cover kind, movement and sight roles (wmh2 §6, §7).
DEFAULTS: dict[str, dict[str, Any]] = {
    "wall": {"cover": "cover"},
    "box": {"cover": "cover", "obstruction": True},
    "ruin": {"cover": "cover", "obstruction": True},
    "mesh": {"cover": "cover"},
    "forest": {"cover": "concealment", "rough": True, "forest": True},
    "hill": {"cover": None, "elevation": True},
    "crater": {"cover": None},
    "area": {"cover": None},  # a marked patch: open ground unless its keys say rough, forest...
}


@dataclass(frozen=True)
class PieceRules:
    """What a piece is for the rules."""

    id: str
    kind: str
    cover: str | None  # 'cover' (+4), 'concealment' (+2) or None
    obstacle: bool
    obstruction: bool
    rough: bool
    impassable: bool
    forest: bool
    cloud: bool
    elevation: bool
    height: float

    @property
    def area(self) -> bool:
        """Area terrain protects only the models inside it (wmh2 §6)."""
        return self.forest or self.cloud

    @property
    def solid_obstacle(self) -> bool:
        """Stops a charge and may not be overlapped by a placed base (wmh2 §8.3, §8.4)."""
        return self.obstacle or self.obstruction or self.impassable


#: what a piece's `cover:` may name (wmh2 §6: cover +4 DEF, concealment +2 DEF)
COVER_KINDS = ("cover", "concealment")


def parse_cover(raw: Any) -> str | None:
    """A `cover:` value: 'cover' (true) or 'concealment'; None for none, no or false.
    ValueError for anything else (the scene check reports it with this message)."""
    if raw is None or raw is False or raw in ("none", "no"):
        return None
    if raw is True:
        return "cover"
    if isinstance(raw, str) and raw in COVER_KINDS:
        return raw
    raise ValueError(f"must be {' or '.join(COVER_KINDS)} (or true, none)")


def piece_rules(world: World, piece_id: str) -> PieceRules:
    """Rules data of one piece: defaults of its type, overridden by its scene keys."""
    entry = world.terrain[piece_id]
    data = {**DEFAULTS.get(entry.kind, {}), **entry.data}
    geo = entry.geometry
    mesh = geo.solid if geo.solid is not None else geo.area
    height = float(mesh.bounds[1][2]) if mesh is not None else 0.0
    cover = parse_cover(data.get("cover"))
    if data.get("concealment") and cover is None:
        cover = "concealment"
    cloud = bool(data.get("cloud"))
    forest = bool(data.get("forest")) and not cloud
    solid_kind = entry.kind in ("wall", "box", "ruin", "mesh")
    obstruction = bool(data.get("obstruction", solid_kind and not data.get("obstacle")
                                and height > OBSTACLE_MAX_HEIGHT))
    obstacle = bool(data.get("obstacle", solid_kind and not obstruction))
    return PieceRules(piece_id, entry.kind, None if cover is None else str(cover), obstacle,
                      obstruction, bool(data.get("rough")), bool(data.get("impassable")),
                      forest, cloud, bool(data.get("elevation")), height)


def rough_outline(world: World, rules: dict[str, PieceRules], piece_id: str) -> np.ndarray | None:
    """The outline a rough shape is crossed by: its own footprint, or for the first rough
    shape of a group the group's outline (the whole piece is rough ground, between its
    shapes too); None for a group's other shapes (the piece counts once)."""
    groups = groups_of(world)
    name = groups.piece_of(piece_id)
    first = groups.first(name, lambda e: rules[e.id].rough)
    return groups.footprint(name) if first is not None and first.id == piece_id else None


@dataclass
class Area:
    """A forest or cloud volume: plan footprint and vertical extent."""

    id: str
    forest: bool
    footprint: np.ndarray
    zmin: float
    zmax: float


class TerrainIndex:
    """Ray scenes over one world's terrain for the MK II tests."""

    def __init__(self, world: World):
        # weak: `_INDEX` is keyed weakly by the world, so a strong reference from its value
        # would keep every world (and its Embree scenes) alive for good
        self._world = weakref.ref(world)
        self.rules = {pid: piece_rules(world, pid) for pid in world.terrain}
        solid = [pid for pid, e in world.terrain.items()
                 if e.geometry.solid is not None and not self.rules[pid].area]
        self.solid_ids = solid
        self.solid = RayScene([world.terrain[pid].geometry.solid for pid in solid])
        self._pieces: dict[str, RayScene] = {}
        self.areas: list[Area] = []
        meshes = []
        for pid, e in world.terrain.items():
            r = self.rules[pid]
            mesh = e.geometry.area if e.geometry.area is not None else None
            if r.area and mesh is None:
                mesh = e.geometry.solid
            if r.area and mesh is not None:
                lo, hi = mesh.bounds
                self.areas.append(Area(pid, r.forest, np.asarray(e.geometry.footprint, float),
                                       float(lo[2]), float(hi[2])))
                meshes.append(mesh)
        self.area_scene = RayScene(meshes)

    @property
    def world(self) -> World:
        world = self._world()
        if world is None:
            raise ReferenceError("the world of this terrain index is gone")
        return world

    def occluded(self, origins: np.ndarray, directions: np.ndarray,
                 lengths: np.ndarray) -> np.ndarray:
        return self.solid.occluded(origins, directions, lengths)

    def first_owner(self, origins: np.ndarray, directions: np.ndarray,
                    lengths: np.ndarray) -> np.ndarray:
        """(n,) object array: id of the first solid piece along each ray ('' where none)."""
        _, geom = self.solid.first_hit(origins, directions, lengths)
        names = np.array([*self.solid_ids, ""], dtype=object)  # -1 (none) takes the last
        return names[np.where(geom >= 0, geom, len(self.solid_ids))]

    def piece_scene(self, piece_id: str) -> RayScene:
        if piece_id not in self._pieces:
            geo = self.world.terrain[piece_id].geometry
            mesh = geo.solid if geo.solid is not None else geo.area
            self._pieces[piece_id] = RayScene([mesh] if mesh is not None else [])
        return self._pieces[piece_id]

    def area_lengths(self, p: np.ndarray, q: np.ndarray,
                     rounds: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For segments p -> q: (L, K) length inside each area, and whether each end lies
        inside it (a batched walk: one first-hit call per crossing for all lines)."""
        n, k = len(p), len(self.areas)
        total = np.zeros((n, k))
        lo = np.minimum(p.min(axis=0), q.min(axis=0))[:2]
        hi = np.maximum(p.max(axis=0), q.max(axis=0))[:2]
        near = [i for i, a in enumerate(self.areas) if len(a.footprint) >= 3 and
                (a.footprint.min(axis=0) <= hi).all() and (a.footprint.max(axis=0) >= lo).all()]
        start_in = np.zeros((n, k), dtype=bool)
        end_in = np.zeros((n, k), dtype=bool)
        if not near:
            return total, start_in, end_in
        for i in near:
            start_in[:, i] = self._inside(self.areas[i], p)
            end_in[:, i] = self._inside(self.areas[i], q)
        inside = start_in.copy()
        d = q - p
        length = np.linalg.norm(d, axis=1)
        d = d / np.maximum(length, 1e-30)[:, None]
        t = np.zeros(n)
        alive = np.arange(n)
        for _ in range(rounds):
            if not len(alive):
                break
            left = length[alive] - t[alive]
            dist, geom = self.area_scene.first_hit(p[alive] + d[alive] * t[alive, None],
                                                   d[alive], np.maximum(left, 0.0))
            hit = geom >= 0
            seg = np.where(hit, dist, left)
            total[alive] += inside[alive] * np.maximum(seg, 0.0)[:, None]
            rows = alive[hit]
            inside[rows, geom[hit]] = ~inside[rows, geom[hit]]
            t[rows] += dist[hit] + 1e-5
            alive = rows
        return total, start_in, end_in

    @staticmethod
    def _inside(area: Area, pts: np.ndarray) -> np.ndarray:
        if len(area.footprint) < 3:
            return np.zeros(len(pts), dtype=bool)
        z_ok = (pts[:, 2] >= area.zmin - 1e-9) & (pts[:, 2] <= area.zmax + 1e-9)
        # sight lines repeat their end points: test each distinct point once
        flat, back = np.unique(pts[:, 0] + 1j * pts[:, 1], return_inverse=True)
        inside = planar.covers(np.column_stack([flat.real, flat.imag]), area.footprint)
        return z_ok & inside[back.reshape(-1)]

    def footprint_gap(self, piece_id: str, center: np.ndarray, radius: float) -> float:
        """Plan distance from a base (centre, radius) to a piece's footprint (0 if overlapping)."""
        geometry = self.world.terrain[piece_id].geometry
        if len(geometry.footprint) < 3:
            return float("inf")
        c = np.asarray(center, float)[None, :2]
        return max(0.0, float(planar.distance(c, geometry.shape)[0]) - radius)


_INDEX: weakref.WeakKeyDictionary[World, tuple[tuple, TerrainIndex]] = \
    weakref.WeakKeyDictionary()


def terrain_index(world: World) -> TerrainIndex:
    """The (cached) index of a world's terrain; rebuilt when pieces are added."""
    key = (tuple(world.terrain), world.terrain_builds)
    cached = _INDEX.get(world)
    if cached is None or cached[0] != key:
        cached = (key, TerrainIndex(world))
        _INDEX[world] = cached
    return cached[1]
