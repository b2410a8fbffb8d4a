"""Sight between pairs of grid cells as a layout refinement shares it (`refine`): the
`pair_sight` test of each pair as an int8 code, its two answers and whether a neighbouring cell
may take them (sure), take them with a check (VERIFY) or not at all (unsure)."""

from __future__ import annotations

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.primitives import prism
from battlesight.geometry.ray import RayScene
from battlesight.geometry.ruins import PIER, WINDOW_WIDTH
from battlesight.geometry.sightgrid.caster import (
    CLEAR,
    FINAL,
    OPEN,
    GridCaster,
    SightTest,
    inside_closed,
)
from battlesight.geometry.world import World

#: Narrowest window or pier of a ruin in inches (`geometry.ruins`: windows 1.5", piers 1"): a
#: lattice step wider than this can hold one between two lattice cells.
OPENING = min(WINDOW_WIDTH, PIER)

#: Bins of plan direction (over 180 degrees) a thin piece's width is told over (`_thin_ways`).
WAYS = 64

SEES, SEEN = 1, 4  # code bits: source sees target, target sees source
UNSURE = 2 | 8  # either direction's answer may differ at a neighbouring cell
VERIFY = 16  # blocked through openings: a neighbour taking it checks with its first segment
NEAR = 32  # near a thin, several-part or mesh piece: checked as VERIFY, and never skipped
ANSWER = SEES | SEEN
NOT_SHARED = UNSURE | -128  # unsure, or no answer yet (-1: the sign bit)


class SharedSight:
    """The `pair_sight` test of one pair of cells, with whether its answer can be shared.

    An answer is unsure (never copied to a neighbour) when a lower segment decided it. It is
    copied with a check (VERIFY: the neighbour casts its own first segment, and is cast in
    full where that disagrees) when its first segment was blocked by a piece with openings or
    overhangs (a ruin's windows, a mesh: sight flips within a cell there), or when that segment
    crosses (or lies wholly in) the hull, grown by one lattice step in plan, of a mesh, of a
    piece made of several parts (the gaps between a forest's trunks) or of one thinner than two
    lattice steps across the segment's way (whose shadow could fall between lattice cells: a
    trunk every way, a wall seen along its length): every segment that such a piece could
    block between two lattice neighbours passes within a step of it. Where the
    step is wider than a ruin's narrowest window or pier (OPENING), one fits between two
    lattice cells: then the hulls of a ruin's walls and floors join them, and answers near any
    such hull are unsure.
    """

    def __init__(self, world: World, foot: np.ndarray, test: SightTest, spacing: float):
        self.caster = GridCaster(world, foot, test)
        self.test = test
        self.wide = spacing > OPENING  # a window or pier fits between lattice cells
        hulls, thin = [], []  # hulls near which every segment is checked; (hull, bins) by way
        for entry in world.terrain.values():
            solid = entry.geometry.solid
            if solid is None:
                continue
            parts = _parts(solid)
            column = self.caster.column[entry.id]
            if entry.floors and not column:  # a ruin: walls and floor slabs
                if self.wide:
                    hulls += [_grown_hull(p, spacing) for p in parts]
            elif not column or len(parts) > 1:
                hulls.append(_grown_hull(solid.vertices, spacing))
            elif (bins := _thin_ways(solid, 2.0 * spacing)).all():  # a trunk: thin every way
                hulls.append(_grown_hull(solid.vertices, spacing))
            elif bins.any():  # a wall: thin seen along its length only
                thin.append((_grown_hull(solid.vertices, spacing), bins))
        self.hulls = RayScene(hulls) if hulls else None
        # per plan direction of a segment, the scene of the pieces thin across it (one scene
        # for the directions that share their pieces): id per direction bin, -1 for none
        self.way_scene = np.full(WAYS, -1)
        self.way_scenes: list[RayScene] = []
        members: dict[tuple, int] = {}
        for way in range(WAYS):
            key = tuple(i for i, (_, bins) in enumerate(thin) if bins[way])
            if key and key not in members:
                members[key] = len(self.way_scenes)
                self.way_scenes.append(RayScene([thin[i][0] for i in key]))
            self.way_scene[way] = members.get(key, -1)
        hs0, ht0 = test.pairs[0]
        every = hulls + [h for h, _ in thin]
        inside = RayScene(every) if every else None
        self.near = {h: inside_closed(inside, self.caster.foot + [0.0, 0.0, h])
                     if every else np.zeros(len(foot), dtype=bool) for h in {hs0, ht0}}
        self.any_near = bool(every)

    @property
    def segments(self) -> int:
        return self.caster.segments

    @property
    def symmetric_first(self) -> bool:
        """Whether the first segment serves both directions (its two heights equal)."""
        hs0, ht0 = self.test.pairs[0]
        return hs0 == ht0

    def codes(self, a: np.ndarray, b: np.ndarray, shared: bool = True,
              known: bool | None = None) -> np.ndarray:
        """(k,) int8 codes of the pairs (a[i], b[i]): SEES, SEEN, the unsure bits (set for
        every pair when shared is False: answers no neighbour will read skip the hull test)
        and VERIFY (a neighbour taking the answer checks it with its first segment). known:
        whether the first segment of every pair is clear, where a check cast it already (its
        heights equal: one segment both ways); it is not cast again."""
        hs0, ht0 = self.test.pairs[0]
        there = self._first(a, b, hs0, ht0, shared, known)
        back = there if hs0 == ht0 else self._first(b, a, hs0, ht0, shared)
        ab, unsure_ab, check_ab = self._lower(a, b, *there)
        ba, unsure_ba, check_ba = self._lower(b, a, *back)
        near = there[4] | back[4]
        if self.test.symmetric:
            ab = ba = ab | ba
            unsure_ab = unsure_ba = unsure_ab | unsure_ba
        bits = [(ab, SEES), (unsure_ab, 2), (ba, SEEN), (unsure_ba, 8),
                (check_ab | check_ba, VERIFY), (near, NEAR)]
        code = np.zeros(len(a), dtype=np.int8)
        for flag, bit in bits:  # int8 throughout: the codes of millions of pairs
            code |= flag.view(np.int8) * np.int8(bit)
        return code

    def first_clear(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(k,) bool: whether the test's first segment is clear either way between a[i] and
        b[i] (one segment when its heights are equal)."""
        hs0, ht0 = self.test.pairs[0]
        clear = self.caster.clear(a, hs0, b, ht0)
        if hs0 != ht0:
            clear |= self.caster.clear(b, hs0, a, ht0)
        return clear

    def _first(self, a, b, hs0, ht0, shared: bool,
               known: bool | None = None) -> tuple[np.ndarray, ...]:
        """The test's first segments a -> b: clear; blocked by a piece with openings (not by
        a column); so blocked but not by its core (lower segments may pass); unsure (every
        answer when not shared); near a risky piece's hull."""
        # a core's block is told from a column's (VERIFY) only where a neighbour reads it
        if known is None:
            code = self.caster.codes(a, hs0, b, ht0, cores=shared)
        elif known:
            code = np.full(len(a), CLEAR, dtype=np.int8)
        else:
            code = self.caster.classify_blocked(a, hs0, b, ht0, cores=shared)
        clear = code == CLEAR
        opened = (code != CLEAR) & (code != FINAL)  # by a piece with openings
        lowered = code == OPEN  # and not by its core: a lower segment may pass
        unsure = np.full(len(code), not shared)
        near = np.zeros(len(code), dtype=bool)
        if shared and self.any_near:
            idx = np.flatnonzero(~opened)
            origins, delta, far, _ = self.caster._rays(a[idx], hs0, b[idx], ht0)
            if self.hulls is not None:
                near[idx[self.hulls.occluded(origins, delta, far)]] = True
            if self.way_scenes:  # the pieces thin across each segment's way
                ways = self.way_scene[_ways(delta)]
                for k, scene in enumerate(self.way_scenes):
                    sel = np.flatnonzero(ways == k)
                    near[idx[sel[scene.occluded(origins[sel], delta[sel], far[sel])]]] = True
            near |= self.near[hs0][a] & self.near[ht0][b]  # wholly inside: no crossing seen
            if self.wide:
                unsure |= near
        return clear, opened, lowered, unsure, near & ~unsure

    def _lower(self, a, b, clear, opened, lowered, unsure, _near) -> tuple[np.ndarray, ...]:
        """Whether a sees b (the test's further segments after the first, as `pair_sight`
        casts them), whether that answer is unsure (a lower segment decided it), and whether
        it is blocked by a piece with openings (to be checked)."""
        seen, unsure = clear.copy(), unsure.copy()
        hs0, ht0 = self.test.pairs[0]
        for hs, ht in self.test.pairs[1:]:
            lower = hs <= hs0 and ht <= ht0  # columns still block a lower segment
            todo = np.flatnonzero(~seen & lowered) if lower else np.flatnonzero(~seen)
            found = self.caster.clear(a[todo], hs, b[todo], ht)
            seen[todo] = found
            unsure[todo[found]] = True
        return seen, unsure, opened & ~seen


def _parts(mesh) -> list[np.ndarray]:
    """The vertices (k, 3) of each connected part of a mesh (faces meeting at a corner, corners
    at the same point one corner): a ruin's walls and slabs, a forest's trunks. Labels spread
    over the faces with pointer jumping (a few passes; no graph library to import)."""
    faces = np.asarray(mesh.faces)
    if not len(faces):
        return []
    vertices = np.asarray(mesh.vertices)
    _, corner = np.unique(np.round(vertices, 6), axis=0, return_inverse=True)
    corner = corner.ravel()[faces]  # (m, 3) merged corner of every face corner
    label = np.arange(int(corner.max()) + 1)
    while True:
        new = label.copy()
        np.minimum.at(new, corner.ravel(), np.repeat(label[corner].min(axis=1), 3))
        new = new[new]
        if np.array_equal(new, label):
            break
        label = new
    face_label = label[corner[:, 0]]
    out = []
    for k in np.unique(face_label):
        used = np.unique(faces[face_label == k])
        out.append(vertices[used])
    return out


def _grown_hull(points: np.ndarray, by: float):
    """A closed prism around points (k, 3) (a mesh's vertices): their convex hull in plan grown
    by `by` inches each way, from their lowest to their highest z (their 3D hull so grown lies
    inside it): every sight line that passes within a lattice step of them crosses it."""
    points = np.asarray(points, dtype=np.float64)
    offsets = np.array([[dx, dy] for dx in (-by, by) for dy in (-by, by)])
    grown = (points[None, :, :2] + offsets[:, None, :]).reshape(-1, 2)
    ring = np.asarray(planar.hull_shape(grown).exterior.coords)[:-1]
    low, high = float(points[:, 2].min()), float(points[:, 2].max())
    return prism(ring, low, max(high, low + 1e-3))


def _thin_ways(mesh, limit: float) -> np.ndarray:
    """(WAYS,) bool: for each way (a bin of plan directions), whether a mesh may look thinner
    than `limit` across a segment running that way: its width across the bin's middle
    direction, less what the width can change within the bin (at most the mesh's diameter
    per radian), is under the limit. A wall is thin seen along its length only."""
    xy = np.asarray(mesh.vertices, dtype=np.float64)[:, :2]
    middle = (np.arange(WAYS) + 0.5) * np.pi / WAYS
    across = np.stack([-np.sin(middle), np.cos(middle)])  # normals of the middle directions
    spans = xy @ across
    width = spans.max(axis=0) - spans.min(axis=0)
    diameter = float(np.hypot(*(xy.max(axis=0) - xy.min(axis=0))))
    return width - diameter * (0.5 * np.pi / WAYS) < limit


def _ways(delta: np.ndarray) -> np.ndarray:
    """(k,) way (bin of plan direction, `_thin_ways`) of each segment (delta (k, 3))."""
    angle = np.arctan2(delta[:, 1], delta[:, 0]) % np.pi
    return np.minimum((angle * (WAYS / np.pi)).astype(np.int64), WAYS - 1)
