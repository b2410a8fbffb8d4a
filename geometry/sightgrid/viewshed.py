"""Cumulative viewsheds over a grid of standard-model positions (pure geometry, no rules).

A `StandingGrid` puts one standard model on every cell of a grid over the table: its base centre
stands on the surface beneath the cell centre (table, hill or box top, a ruin's ground floor).
Cells whose foot or eye lies inside solid terrain (a wall, a trunk) cannot hold a model.

`pair_sight` answers "does a model on cell i see a model on cell j" for every pair of a row set
and a column set at once. A pair has sight when at least one of a few segments is clear: from a
source height above i's foot to a target height above j's foot (the standard model's eye to its
eye, torso, legs...). Segments are cast in a handful of batched Embree calls, never per pair:

1. the first (height, height) pair for every unordered pair of cells (an eye-to-eye segment
   serves both directions; cells that are both rows and columns are cast once), each answered
   with what blocked it (`caster.GridCaster`: a column or a ruin's core, whose block
   stays when an end is lowered, or an opening piece's overhang);
2. each further, lower pair (eye to torso) only for the pairs the overhangs blocked.

Area volumes (forest canopies) block by the test's `canopy_limit` (see `caster`).

Cell indices are row-major with y outermost: index = iy * nx + ix, the layout of an (ny, nx)
field whose row 0 lies along y = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from battlesight.geometry.ray import RayScene
from battlesight.geometry.world import World

from .caster import (
    CHUNK,
    CLEAR,
    OPEN,
    GridCaster,
    SightTest,
    crossing_lengths,
    inside_closed,
    is_column,
)

__all__ = ["GridCaster", "PairSight", "SightTest", "StandingGrid", "crossing_lengths",
           "grid_centres", "inside_closed", "is_column", "pair_sight", "stand_surface",
           "standing_grid"]


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


@dataclass
class PairSight:
    """Result of `pair_sight` for rows (r,) and cols (c,) of a grid.

    sees (r, c): row cell sees column cell; seen (r, c): column cell sees row cell;
    segments: how many segments were cast.
    """

    sees: np.ndarray
    seen: np.ndarray
    segments: int


def _sight(caster: GridCaster, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k,) bool each: cell a[i] sees cell b[i], and b[i] sees a[i]."""
    test = caster.test
    hs0, ht0 = test.pairs[0]
    code_ab = caster.codes(a, hs0, b, ht0)
    code_ba = code_ab if hs0 == ht0 else caster.codes(b, hs0, a, ht0)
    ab, ba = code_ab == CLEAR, code_ba == CLEAR
    open_ab, open_ba = code_ab == OPEN, code_ba == OPEN
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
    return _pair_sight(GridCaster(world, foot, test), rows, cols)


def _pair_sight(caster: GridCaster, rows: np.ndarray, cols: np.ndarray) -> PairSight:
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
