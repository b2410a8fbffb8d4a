"""Sight segments between the points of a grid (standard models' feet), cast in batches against
solid terrain, each answered with a code that says what blocked it.

A segment blocked by a "column" (a solid whose only downward faces lie on the table: walls,
boxes, hills, trunks) stays blocked when either end is lowered, and so does one blocked by the
core of a piece with openings (`TerrainGeometry.core`: a ruin's ground slab and its walls below
their lowest windows). So the caster casts the columns and cores first (FINAL, or CORE where the
caller tells a core from a column), then the rest of the pieces with openings (their overhangs:
lintels, upper walls and floors; a mesh's whole solid) for what those let by (OPEN): only an
OPEN block needs the lower segments (eye to torso) cast. A segment's ends lie outside the solid
terrain (a standing grid's eyes do), so core and overhang together block what the solid does.

Area volumes (forest canopies) do not block unless the test's `canopy_limit` is given: then a
segment may see into or out of a canopy (one end inside) through at most that many inches of
it, measured on the table (in plan), and never through one (both ends outside, more than a
graze of canopy between). A lower segment crosses at least as much, so this counts as FINAL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from battlesight.geometry.ray import RayScene
from battlesight.geometry.world import World

#: Largest number of segments prepared and cast in one engine call.
CHUNK = 1 << 20
_PARITY_ROUNDS = 64
_STEP = 1e-4
_GRAZE = 0.01  # inches of canopy a line between two points outside may clip


def inside_closed(scene: RayScene, points: np.ndarray) -> np.ndarray:
    """(n,) bool: which points (n, 3) lie inside the closed meshes of scene (parity of the
    crossings of a ray straight up)."""
    pts = np.array(points, dtype=np.float64).reshape(-1, 3)
    count = np.zeros(len(pts), dtype=np.int64)
    up = np.tile([0.0, 0.0, 1.0], (len(pts), 1))
    alive = np.arange(len(pts))
    for _ in range(_PARITY_ROUNDS):
        if not len(alive):
            break
        dist, geom = scene.first_hit(pts[alive], up[alive])
        hit = geom >= 0
        count[alive[hit]] += 1
        pts[alive[hit], 2] += dist[hit] + _STEP
        alive = alive[hit]
    return count % 2 == 1


def crossing_lengths(
    scene: RayScene,
    origins: np.ndarray,
    directions: np.ndarray,
    lengths: np.ndarray,
    start_inside: np.ndarray,
    enough: np.ndarray | None = None,
) -> np.ndarray:
    """(n,) inches of each segment that lie inside the closed meshes of scene.

    origins (n, 3), unit directions (n, 3), lengths (n,); start_inside (n,) bool: whether each
    origin starts inside (see `inside_closed`). Overlapping meshes are counted by parity.
    enough (n,): where given, a segment is followed no further once more than that lies inside
    (its figure is then more than `enough`, not all of it: a caller that only compares it with
    `enough` casts fewer rounds).
    """
    n = len(origins)
    total = np.zeros(n)
    offset = np.zeros(n)
    inside = np.asarray(start_inside, dtype=bool).copy()
    pending = np.arange(n)
    for _ in range(_PARITY_ROUNDS):
        if not len(pending):
            break
        remaining = lengths[pending] - offset[pending]
        start = origins[pending] + directions[pending] * offset[pending, None]
        dist, geom = scene.first_hit(start, directions[pending], np.maximum(remaining, 0.0))
        hit = (geom >= 0) & (remaining > 0)
        span = np.where(hit, dist, np.maximum(remaining, 0.0))
        total[pending] += np.where(inside[pending], span, 0.0)
        offset[pending] += span + _STEP
        inside[pending[hit]] ^= True
        if enough is not None:
            hit &= total[pending] <= enough[pending]
        pending = pending[hit]
    return total


@dataclass(frozen=True)
class SightTest:
    """How a standard model at one cell sees one at another.

    pairs: (source height, target height) above the feet, tried in order; a pair of cells has
        sight when any segment source -> target is clear. The first pair is cast for every pair
        of cells, the others only for the pairs still blocked.
    canopy_limit: inches (in plan) of area volume a segment with an end inside one may cross;
        a segment with both ends outside may not cross any (None: area volumes never block).
    symmetric: sight either way counts both ways (volume-to-volume rules).
    """

    pairs: tuple[tuple[float, float], ...]
    canopy_limit: float | None = None
    symmetric: bool = False

    @property
    def heights(self) -> tuple[float, ...]:
        """Every source and target height, sorted."""
        return tuple(sorted({h for pair in self.pairs for h in pair}))


def is_column(mesh, eps: float = 1e-6) -> bool:
    """Whether a closed mesh is a union of columns standing on the table: its only faces that
    look down lie on z = 0, so above each plan point it fills [0, top]. A segment lowered at
    either end then stays blocked by it (walls, boxes, hills, trunks; not ruins with windows)."""
    normals = mesh.face_normals
    down = normals[:, 2] < -eps
    if not down.any():
        return True
    return bool(np.all(np.abs(mesh.vertices[mesh.faces[down]][..., 2]) <= 1e-4))


#: Stage-1 codes of a segment: clear; blocked by a column or a canopy (lower segments are
#: blocked too); blocked otherwise; blocked by the core of a piece with openings (lower segments
#: are blocked too, but a neighbouring segment may pass the piece's openings).
CLEAR, FINAL, OPEN, CORE = 0, 1, 2, 3


class GridCaster:
    """Casts segments between grid points against solid terrain (and canopies by rule)."""

    def __init__(self, world: World, foot: np.ndarray, test: SightTest):
        self.solid = world.solid_scene
        self.test = test
        self.foot = np.asarray(foot, dtype=np.float64)
        self.foot32 = self.foot.astype(np.float32)
        self._raised: dict[float, np.ndarray] = {}  # float32 points h above every foot
        self._pairs: dict[tuple[float, float], np.ndarray] = {}  # `_pair_points`
        solid = [e for e in world.terrain.values() if e.geometry.solid is not None]
        #: piece id -> whether its solid is a column (`is_column`), for every solid piece
        self.column = {e.id: is_column(e.geometry.solid) for e in solid}
        geoms = [e.geometry for e in solid]
        column = list(self.column.values())
        columns = [g.solid for g, c in zip(geoms, column, strict=True) if c]
        opens = [g for g, c in zip(geoms, column, strict=True) if not c]
        cores = [g.core for g in opens if g.core is not None and len(g.core.faces)]
        self.open = bool(opens)  # some pieces have openings or overhangs
        # classifying: what blocks a segment lowered at either end too (the columns and the
        # open pieces' cores), cast first; the open pieces' solids for the segments it lets by;
        # the columns alone to tell a core's block (CORE) from a column's where asked
        self.lowering = RayScene(columns + cores) if self.open and (columns or cores) else None
        # past the cores, an open piece blocks with its overhang (its solid is the two)
        rest = [g.solid if g.core is None or not len(g.core.faces) else g.overhang
                for g in opens]
        rest = [m for m in rest if m is not None and len(m.faces)]
        self.opens = RayScene(rest) if self.open and (rest or not cores) else None
        self.columns = RayScene(columns) if self.open and columns and cores else None
        self.has_cores = bool(cores)
        self.area = world.area_scene if test.canopy_limit is not None else None
        if self.area is not None and self.area.size == 0:
            self.area = None
        self.inside: dict[float, np.ndarray] = {}
        if self.area is not None:
            for h in test.heights:
                self.inside[h] = inside_closed(self.area, self.foot + [0.0, 0.0, h])
        self.segments = 0

    def _points(self, h: float) -> np.ndarray:
        """(n, 3) float32 points h above every foot, made once per height (gathered per batch
        of segments)."""
        if h not in self._raised:
            self._raised[h] = self.foot32 + np.array([0.0, 0.0, h], dtype=np.float32)
        return self._raised[h]

    def _pair_points(self, hs: float, ht: float) -> np.ndarray:
        """(2n, 3) float32: the points hs above every foot, then those ht above (made once per
        pair of heights)."""
        key = (hs, ht)
        if key not in self._pairs:
            self._pairs[key] = np.concatenate([self._points(hs), self._points(ht)])
        return self._pairs[key]

    def _rays(self, src, hs, dst, ht, count: bool = True):
        """Origins (k, 3) and directions (k, 3) float32 of the segments between hs above
        foot[src] and ht above foot[dst], their far distances (k,), and (k,) bool: which run
        from the dst end. Each segment is cast from its end of lower (cell, height), so one
        segment gets one answer whichever way a caller names it (the ray engine's rounding
        may answer a ray through a wall's or window's very edge differently from either
        end). The directions run to the far end unnormalised (Embree takes any length), so
        every far distance is 1 but for a segment of no length (0, its direction straight
        up)."""
        flip = (src > dst) | ((src == dst) & (hs > ht)) if hs != ht else src > dst
        both = self._pair_points(hs, ht)  # the hs points, then the ht points
        n = len(self.foot)
        origins = both.take(np.where(flip, dst + n, src), axis=0)
        delta = both.take(np.where(flip, src, dst + n), axis=0)
        delta -= origins
        far = np.ones(len(src), dtype=np.float32)
        if hs == ht:  # only a cell to itself has no length (no two cells share a foot)
            same = np.flatnonzero(src == dst)
            far[same] = 0.0
            delta[same] = (0.0, 0.0, 1.0)
        if count:
            self.segments += len(src)
        return origins, delta, far, flip

    def codes(self, src: np.ndarray, hs: float, dst: np.ndarray, ht: float,
              classify: bool = True, cores: bool = False) -> np.ndarray:
        """(k,) int8 per segment from hs above foot[src] to ht above foot[dst]: CLEAR,
        FINAL (blocked by a column or a canopy: lower segments are blocked too), CORE
        (blocked by the core of a piece with openings and no column: lower segments are
        blocked too; FINAL unless cores is True) or OPEN (blocked otherwise; every block is
        OPEN when classify is False)."""
        out = np.empty(len(src), dtype=np.int8)
        for lo in range(0, len(src), CHUNK):
            hi = lo + CHUNK
            out[lo:hi] = self._codes(src[lo:hi], hs, dst[lo:hi], ht, classify, cores)
        return out

    def classify_blocked(self, src: np.ndarray, hs: float, dst: np.ndarray, ht: float,
                         cores: bool = False) -> np.ndarray:
        """`codes` of segments already known to be blocked by solid terrain (a `clear` that
        said no): not counted again as segments."""
        if not self.open:
            return np.full(len(src), FINAL, dtype=np.int8)
        code = np.full(len(src), OPEN, dtype=np.int8)
        if len(src) and self.lowering is not None:
            origins, delta, far, _ = self._rays(src, hs, dst, ht, count=False)
            low = self._lowered(origins, delta, far, cores)
            code[low != CLEAR] = low[low != CLEAR]
        return code

    def _lowered(self, origins: np.ndarray, delta: np.ndarray, far: np.ndarray,
                 cores: bool) -> np.ndarray:
        """(k,) int8 of rays (k, 3) (k, 3) (k,) against what blocks a lowered segment too:
        CLEAR where nothing of it does; FINAL where a column does; CORE where only an open
        piece's core does, when cores are told apart (else FINAL)."""
        low = self.lowering.occluded(origins, delta, far)
        cores = cores and self.has_cores
        code = low.view(np.int8) * np.int8(CORE if cores and self.columns is None else FINAL)
        if cores and self.columns is not None:
            idx = np.flatnonzero(low)
            column = self.columns.occluded(origins[idx], delta[idx], far[idx])
            code[idx[~column]] = CORE
        return code

    def clear(self, src: np.ndarray, hs: float, dst: np.ndarray, ht: float) -> np.ndarray:
        """(k,) bool: whether those segments are clear."""
        return self.codes(src, hs, dst, ht, classify=False) == CLEAR

    def _codes(self, src, hs, dst, ht, classify: bool, cores: bool) -> np.ndarray:
        origins, delta, lengths, flip = self._rays(src, hs, dst, ht)
        if classify and self.open:
            # what blocks lowered segments too first, then the open pieces for what it lets by
            if self.lowering is not None:
                code = self._lowered(origins, delta, lengths, cores)
                if self.opens is not None:
                    rest = np.flatnonzero(code == CLEAR)
                    by_open = self.opens.occluded(origins[rest], delta[rest], lengths[rest])
                    code[rest[by_open]] = OPEN
            else:
                code = self.opens.occluded(origins, delta, lengths).view(np.int8) * np.int8(OPEN)
            blocked = code != CLEAR
        else:
            blocked = self.solid.occluded(origins, delta, lengths)
            final = FINAL if classify else OPEN
            code = blocked.view(np.int8) * np.int8(final)  # CLEAR is 0
        if self.area is not None:
            todo = np.flatnonzero(~blocked)
            near, end = self.inside[hs][src[todo]], self.inside[ht][dst[todo]]
            inside = np.where(flip[todo], end, near)  # the cast's start in a canopy
            maybe = inside | self.area.occluded(origins[todo], delta[todo], lengths[todo])
            todo, inside, ends = todo[maybe], inside[maybe], (near | end)[maybe]
            if len(todo):
                direction = delta[todo].astype(np.float64) * lengths[todo, None]
                span = np.linalg.norm(direction, axis=1)
                direction /= np.where(span > 0, span, 1.0)[:, None]
                plan = np.hypot(direction[:, 0], direction[:, 1])  # measured on the table
                through = ~ends  # neither end in a canopy
                limit = np.where(through, min(_GRAZE, self.test.canopy_limit),
                                 self.test.canopy_limit)  # crossing more of canopy: hidden
                crossed = crossing_lengths(
                    self.area, origins[todo].astype(np.float64), direction, span, inside,
                    enough=limit / np.maximum(plan, 1e-9),
                ) * plan
                hidden = crossed > limit
                code[todo[hidden]] = FINAL
        return code
