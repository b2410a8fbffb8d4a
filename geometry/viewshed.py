"""Cumulative viewsheds over a grid of standard-model positions (pure geometry, no rules).

A `StandingGrid` puts one standard model on every cell of a grid over the table: its base centre
stands on the surface beneath the cell centre (table, hill or box top, a ruin's ground floor).
Cells whose foot or eye lies inside solid terrain (a wall, a trunk) cannot hold a model.

`pair_sight` answers "does a model on cell i see a model on cell j" for every pair of a row set
and a column set at once. A pair has sight when at least one of a few segments is clear: from a
source height above i's foot to a target height above j's foot (the standard model's eye to its
eye, torso, legs...). Segments are cast in a handful of batched Embree calls, never per pair:

1. the first (height, height) pair for every unordered pair of cells (an eye-to-eye segment
   serves both directions; cells that are both rows and columns are cast once);
2. blocked segments are cast again against the "column" pieces alone (solids whose only
   downward faces lie on the table: walls, boxes, hills, trunks). A segment a column blocks
   stays blocked when either end is lowered, so
3. each further, lower pair (eye to torso) is cast only for the pairs blocked by something
   else (ruin walls with windows, upper floors, meshes).

Area volumes (forest canopies) do not block unless `canopy_limit` is given: then a segment
may see into or out of a canopy (one end inside) through at most that many inches of it,
measured on the table (in plan), and never through one (both ends outside, more than a graze
of canopy between). A lower segment crosses at least as much, so this counts as a column block.

Cell indices are row-major with y outermost: index = iy * nx + ix, the layout of an (ny, nx)
field whose row 0 lies along y = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ray import RayScene
from .world import World

#: Largest number of segments prepared and cast in one engine call.
CHUNK = 1 << 20
_PARITY_ROUNDS = 64
_STEP = 1e-4
_GRAZE = 0.01  # inches of canopy a line between two points outside may clip


def grid_centres(table: tuple[float, float], cell: float) -> tuple[np.ndarray, np.ndarray]:
    """x (nx,) and y (ny,) of the centres of about cell x cell squares covering the table
    (the squares are stretched slightly when cell does not divide the table)."""
    if not cell > 0:
        raise ValueError(f"grid cell must be positive, got {cell!r}")
    nx = max(1, int(np.ceil(table[0] / cell - 1e-9)))
    ny = max(1, int(np.ceil(table[1] / cell - 1e-9)))
    return (np.arange(nx) + 0.5) * table[0] / nx, (np.arange(ny) + 0.5) * table[1] / ny


@dataclass
class StandingGrid:
    """Standard-model positions on a grid.

    xs (nx,), ys (ny,): cell centres; foot (n, 3): base centre on the surface, n = nx * ny;
    standable (n,) bool: a model can stand there (foot and eye clear of solid terrain).
    """

    xs: np.ndarray
    ys: np.ndarray
    foot: np.ndarray
    standable: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """(ny, nx) of a field over the grid."""
        return len(self.ys), len(self.xs)

    @property
    def plan(self) -> np.ndarray:
        """(n, 2) cell centres."""
        return self.foot[:, :2]

    def field(self, values: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """(ny, nx) float field of per-cell values (n,); NaN where not standable (or not where)."""
        mask = self.standable if where is None else self.standable & where
        out = np.where(mask, np.asarray(values, dtype=np.float64), np.nan)
        return out.reshape(self.shape)


def standing_grid(world: World, cell: float, heights: tuple[float, ...] = (0.05,)) -> StandingGrid:
    """A StandingGrid over the world's table; a cell is standable when every point `heights`
    (inches) above its foot lies outside all solid terrain."""
    xs, ys = grid_centres(world.table, cell)
    gx, gy = np.meshgrid(xs, ys)
    plan = np.column_stack([gx.ravel(), gy.ravel()])
    foot = np.column_stack([plan, stand_surface(world, plan)])
    standable = np.ones(len(foot), dtype=bool)
    for h in heights:
        standable &= ~inside_closed(world.solid_scene, foot + [0.0, 0.0, h])
    return StandingGrid(xs, ys, foot, standable)


def stand_surface(world: World, plan: np.ndarray) -> np.ndarray:
    """(n,) z where a model stands at plan points (n, 2): vectorised `World.stand_height` at
    ground level (floor 0 of a ruin, the top of a hill or box, else the table)."""
    entries = [e for e in world.terrain.values() if e.geometry.stand is not None]
    z = np.zeros(len(plan))
    if not entries or not len(plan):
        return z
    scene = RayScene([e.geometry.stand for e in entries])
    top = 1e4
    origins = np.column_stack([plan, np.full(len(plan), top)])
    down = np.tile([0.0, 0.0, -1.0], (len(plan), 1))
    dist, geom = scene.first_hit(origins, down)
    floors = np.array([e.floors[0] if e.floors else np.nan for e in entries])
    hit = geom >= 0
    level = floors[np.where(hit, geom, 0)]
    z[hit] = np.where(np.isnan(level[hit]), top - dist[hit], level[hit])
    return z


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
) -> np.ndarray:
    """(n,) inches of each segment that lie inside the closed meshes of scene.

    origins (n, 3), unit directions (n, 3), lengths (n,); start_inside (n,) bool: whether each
    origin starts inside (see `inside_closed`). Overlapping meshes are counted by parity.
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


@dataclass
class PairSight:
    """Result of `pair_sight` for rows (r,) and cols (c,) of a grid.

    sees (r, c): row cell sees column cell; seen (r, c): column cell sees row cell;
    segments: how many segments were cast.
    """

    sees: np.ndarray
    seen: np.ndarray
    segments: int


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
_CLEAR, _FINAL, _OPEN, _CORE = 0, 1, 2, 3


class _Caster:
    """Casts segments between grid points against solid terrain (and canopies by rule)."""

    def __init__(self, world: World, foot: np.ndarray, test: SightTest):
        self.solid = world.solid_scene
        self.test = test
        self.foot = np.asarray(foot, dtype=np.float64)
        self.foot32 = self.foot.astype(np.float32)
        self._raised: dict[float, np.ndarray] = {}  # float32 points h above every foot
        geoms = [e.geometry for e in world.terrain.values() if e.geometry.solid is not None]
        column = [is_column(g.solid) for g in geoms]
        columns = [g.solid for g, c in zip(geoms, column, strict=True) if c]
        opens = [g for g, c in zip(geoms, column, strict=True) if not c]
        cores = [g.core for g in opens if g.core is not None and len(g.core.faces)]
        self.open = bool(opens)  # some pieces have openings or overhangs
        # classifying: what blocks a segment lowered at either end too (the columns and the
        # open pieces' cores), cast first; the open pieces' solids for the segments it lets by;
        # the columns alone to tell a core's block (_CORE) from a column's where asked
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

    def _rays(self, src, hs, dst, ht, count: bool = True):
        """Origins (k, 3) and directions (k, 3) float32 of the segments from hs above
        foot[src] to ht above foot[dst], and their far distances (k,): the directions run to
        the far end unnormalised (Embree takes any length), so every far distance is 1 but
        for a segment of no length (0, its direction straight up)."""
        origins = self._points(hs).take(src, axis=0)
        delta = self._points(ht).take(dst, axis=0)
        delta -= origins
        far = np.ones(len(src), dtype=np.float32)
        if hs == ht:  # only a cell to itself has no length (no two cells share a foot)
            same = np.flatnonzero(src == dst)
            far[same] = 0.0
            delta[same] = (0.0, 0.0, 1.0)
        if count:
            self.segments += len(src)
        return origins, delta, far

    def codes(self, src: np.ndarray, hs: float, dst: np.ndarray, ht: float,
              classify: bool = True, cores: bool = False) -> np.ndarray:
        """(k,) int8 per segment from hs above foot[src] to ht above foot[dst]: _CLEAR,
        _FINAL (blocked by a column or a canopy: lower segments are blocked too), _CORE
        (blocked by the core of a piece with openings and no column: lower segments are
        blocked too; _FINAL unless cores is True) or _OPEN (blocked otherwise; every block is
        _OPEN when classify is False)."""
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
            return np.full(len(src), _FINAL, dtype=np.int8)
        code = np.full(len(src), _OPEN, dtype=np.int8)
        if len(src) and self.lowering is not None:
            origins, delta, far = self._rays(src, hs, dst, ht, count=False)
            low = self._lowered(origins, delta, far, cores)
            code[low != _CLEAR] = low[low != _CLEAR]
        return code

    def _lowered(self, origins: np.ndarray, delta: np.ndarray, far: np.ndarray,
                 cores: bool) -> np.ndarray:
        """(k,) int8 of rays (k, 3) (k, 3) (k,) against what blocks a lowered segment too:
        _CLEAR where nothing of it does; _FINAL where a column does; _CORE where only an open
        piece's core does, when cores are told apart (else _FINAL)."""
        low = self.lowering.occluded(origins, delta, far)
        cores = cores and self.has_cores
        code = low.view(np.int8) * np.int8(_CORE if cores and self.columns is None else _FINAL)
        if cores and self.columns is not None:
            idx = np.flatnonzero(low)
            column = self.columns.occluded(origins[idx], delta[idx], far[idx])
            code[idx[~column]] = _CORE
        return code

    def clear(self, src: np.ndarray, hs: float, dst: np.ndarray, ht: float) -> np.ndarray:
        """(k,) bool: whether those segments are clear."""
        return self.codes(src, hs, dst, ht, classify=False) == _CLEAR

    def _codes(self, src, hs, dst, ht, classify: bool, cores: bool) -> np.ndarray:
        origins, delta, lengths = self._rays(src, hs, dst, ht)
        if classify and self.open:
            # what blocks lowered segments too first, then the open pieces for what it lets by
            if self.lowering is not None:
                code = self._lowered(origins, delta, lengths, cores)
                if self.opens is not None:
                    rest = np.flatnonzero(code == _CLEAR)
                    by_open = self.opens.occluded(origins[rest], delta[rest], lengths[rest])
                    code[rest[by_open]] = _OPEN
            else:
                code = self.opens.occluded(origins, delta, lengths).view(np.int8) * np.int8(_OPEN)
            blocked = code != _CLEAR
        else:
            blocked = self.solid.occluded(origins, delta, lengths)
            final = _FINAL if classify else _OPEN
            code = blocked.view(np.int8) * np.int8(final)  # _CLEAR is 0
        if self.area is not None:
            todo = np.flatnonzero(~blocked)
            inside = self.inside[hs][src[todo]]
            maybe = inside | self.area.occluded(origins[todo], delta[todo], lengths[todo])
            todo, inside = todo[maybe], inside[maybe]
            if len(todo):
                direction = delta[todo].astype(np.float64) * lengths[todo, None]
                span = np.linalg.norm(direction, axis=1)
                direction /= np.where(span > 0, span, 1.0)[:, None]
                crossed = crossing_lengths(
                    self.area, origins[todo].astype(np.float64), direction, span, inside,
                ) * np.hypot(direction[:, 0], direction[:, 1])  # measured on the table
                through = ~(inside | self.inside[ht][dst[todo]])  # neither end in a canopy
                hidden = (crossed > self.test.canopy_limit) | (through & (crossed > _GRAZE))
                code[todo[hidden]] = _FINAL
        return code


def _sight(caster: _Caster, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k,) bool each: cell a[i] sees cell b[i], and b[i] sees a[i]."""
    test = caster.test
    hs0, ht0 = test.pairs[0]
    code_ab = caster.codes(a, hs0, b, ht0)
    code_ba = code_ab if hs0 == ht0 else caster.codes(b, hs0, a, ht0)
    ab, ba = code_ab == _CLEAR, code_ba == _CLEAR
    open_ab, open_ba = code_ab == _OPEN, code_ba == _OPEN
    for hs, ht in test.pairs[1:]:
        lower = hs <= hs0 and ht <= ht0  # every point of the segment is lower: columns still block
        todo = np.flatnonzero(~ab & open_ab) if lower else np.flatnonzero(~ab)
        ab[todo] = caster.clear(a[todo], hs, b[todo], ht)
        todo = np.flatnonzero(~ba & open_ba) if lower else np.flatnonzero(~ba)
        ba[todo] = caster.clear(b[todo], hs, a[todo], ht)
    if test.symmetric:
        ab |= ba
        ba = ab
    return ab, ba


def pair_sight(
    world: World, foot: np.ndarray, rows: np.ndarray, cols: np.ndarray, test: SightTest
) -> PairSight:
    """Sight between every row cell and every column cell (indices into foot (n, 3)).

    Each unordered pair of cells is cast once: rows that are also columns share the square
    block of column pairs. Returns PairSight with (len(rows), len(cols)) boolean matrices.
    """
    return _pair_sight(_Caster(world, foot, test), rows, cols)


def _pair_sight(caster: _Caster, rows: np.ndarray, cols: np.ndarray) -> PairSight:
    """`pair_sight` on a caster made before (a forked worker's, shared by its jobs); the
    segments are those this call cast."""
    before = caster.segments
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    foot = caster.foot
    r, c = len(rows), len(cols)
    sees = np.zeros((r, c), dtype=bool)
    seen = np.zeros((r, c), dtype=bool)
    if not (r and c):
        return PairSight(sees, seen, 0)
    pos = np.full(len(foot), -1, dtype=np.int64)
    pos[cols] = np.arange(c)
    where = pos[rows]
    outer = np.flatnonzero(where < 0)
    step = max(1, CHUNK // c)
    for lo in range(0, len(outer), step):
        block = outer[lo:lo + step]
        ab, ba = _sight(caster, np.repeat(rows[block], c), np.tile(cols, len(block)))
        sees[block] = ab.reshape(len(block), c)
        seen[block] = ba.reshape(len(block), c)
    inner = np.flatnonzero(where >= 0)
    if len(inner):
        square = np.eye(c, dtype=bool)  # square[a, b]: column a sees column b
        for lo in range(0, c, step):
            i, j = _upper(c, lo, lo + step)
            ab, ba = _sight(caster, cols[i], cols[j])
            square[i, j] = ab
            square[j, i] = ba
        sees[inner] = square[where[inner]]
        seen[inner] = square[:, where[inner]].T
    return PairSight(sees, seen, caster.segments - before)


def _upper(c: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) with lo <= i < min(hi, c) and i < j < c, in row-major order."""
    first = np.arange(lo, min(hi, c))
    counts = c - 1 - first
    i = np.repeat(first, counts)
    j = i + 1 + np.arange(len(i)) - np.repeat(np.cumsum(counts) - counts, counts)
    return i, j
