"""Adaptive pair sight over a standing grid: the `pair_sight` matrices with fewer segments,
for layout analyses at fine grids.

Sight between standard models changes from one cell to the next only along shadow edges. So the
matrices are filled coarse to fine, per group of target cells (a deployment zone), in two stages
that each refine over one end of the pair:

1. for the group's cells on a coarse lattice (every `stride`-th cell in x and y), the sight to
   and from every source cell, refined over the source grid;
2. for every source cell, the sight to and from every cell of the group, refined over the
   group's cells from the lattice answers of stage 1. A source that is itself a cell of a later
   group takes these answers from that group's stage 2 (the pair the other way round).

Each stage refines the same way: the lattice cells are cast; at each halving of the step a new
cell takes the answer of the two or four cells around it when they all agree and are sure, and
is cast otherwise; cells standing at another height (a box top beside the table), that cannot
hold a model, or at the table's edge share nothing. An answer is unsure when a lower segment
decided it, when a piece with openings or overhangs (a ruin, a mesh) blocked it, or when it
passes within a lattice step of such a piece, of a piece thinner than two steps (a trunk) or of
one made of several parts (see `_Sight`): there sight can flip between neighbouring cells
(windows, thin shadows). So the answer differs from the exhaustive one only where a shadow
edge slips between sure, agreeing neighbours; `tests/test_layout_refine.py` and
`battlesight bench` compare the fields with `analyze --exact`.

At a stride of 1 (grids of COARSE_INCHES or coarser) nothing is shared and every pair is cast
(`forked.exhaustive_pair_sight`), and so is it by default where a sample of pairs shows too few
sure answers to share (MIN_SURE: tables crowded with ruins). Either way the work is split over
forked worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import trimesh
from battlesight.geometry.mesh import as_trimesh
from battlesight.geometry.ray import RayScene
from battlesight.geometry.viewshed import (
    _CLEAR,
    _FINAL,
    PairSight,
    SightTest,
    StandingGrid,
    _Caster,
    inside_closed,
    is_column,
)
from battlesight.geometry.world import World

from .forked import Forked, default_workers, exhaustive_pair_sight

#: Coarse lattice spacing in inches (rounded to a power of two of cells): wider lattices share
#: more answers but make more of them unsure (the margin around ruins grows with the step).
COARSE_INCHES = 1.0
#: How a layout analysis casts its pairs (the `method` figure): refined adaptively, every pair
#: split over processes, or `pair_sight` in one process (`analyze --exact`).
METHODS = ("refined", "every pair", "exact")
#: Least share of sure answers among sampled pairs for the default to refine.
MIN_SURE = 0.4
#: Pairs sampled for that share.
SAMPLE = 4096
#: Largest step (inches) of the foot's height between cells that share answers (a box's top
#: and the table beside it do not).
STEP_Z = 0.1
#: Sources (stage 2) refined in one block, bounding the block's (sources, cells) array.
BLOCK_CELLS = 1 << 23



def default_stride(cell: float) -> int:
    """Cells between lattice points: the power of two nearest COARSE_INCHES / cell (>= 1)."""
    ratio = max(COARSE_INCHES / cell, 1.0)
    return 1 << int(round(np.log2(ratio)))


def refined_pair_sight(world: World, grid: StandingGrid, rows: np.ndarray,
                       groups: Sequence[np.ndarray], test: SightTest, stride: int | None = None,
                       workers: int | None = None, report: dict | None = None) -> PairSight:
    """Sight between every row cell and every column cell of the grid, refined adaptively (see
    the module docstring); the PairSight `pair_sight(world, grid.foot, rows, cols, test)` gives
    for cols = the groups one after the other (each group, a deployment zone, is refined over its
    own box of cells; a row in a later group takes its sight to an earlier group's cells from
    that group's, not cast twice).

    stride: lattice spacing in cells, a power of two (1 casts every pair). By default
    `default_stride`, and every pair is cast as well when fewer than MIN_SURE of a sample of
    pairs have answers a neighbour could share (a table crowded with ruins: refining would cast
    nearly every pair anyway, and pay for the unsure tests on top). workers: processes to share
    the casting (default `default_workers`). report: a dict given here gets `method`: METHODS'
    "refined" or "every pair", and `stride`.
    """
    report = {} if report is None else report
    rows = np.asarray(rows, dtype=np.int64)
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    cell = float(grid.xs[1] - grid.xs[0]) if len(grid.xs) > 1 else 1.0
    workers = default_workers() if workers is None else max(1, int(workers))
    chosen = stride is not None
    stride = default_stride(cell) if stride is None else int(stride)
    if stride < 1 or stride & (stride - 1):
        raise ValueError(f"stride must be a power of two, got {stride}")
    bounds = np.cumsum([0] + [len(g) for g in groups])
    report.update(method="every pair", stride=1)
    if stride == 1 or not (len(rows) and bounds[-1]):  # nothing to share: every pair cast
        return exhaustive_pair_sight(world, grid.foot, rows, groups, test, workers)
    caster = _Sight(world, grid.foot, test, stride * cell)
    if not chosen and _sure_share(caster, rows, np.concatenate(groups)) < MIN_SURE:
        sight = exhaustive_pair_sight(world, grid.foot, rows, groups, test, workers)
        return PairSight(sight.sees, sight.seen, sight.segments + caster.segments)
    report.update(method="refined", stride=stride)
    shape = grid.shape
    n = shape[0] * shape[1]
    code = np.zeros((len(rows), bounds[-1]), dtype=np.int8)
    z = grid.foot[:, 2]
    is_row = np.zeros(n, dtype=bool)
    is_row[rows] = True
    box_rows = _Box.around(rows, shape, stride)
    row_at = box_rows.index(rows)
    group_of = np.full(n, -1)
    for g, cells in enumerate(groups):
        group_of[cells] = g
    where = np.full(n, -1)
    where[rows] = np.arange(len(rows))
    segments = caster.segments  # the sample's, when one was cast
    with Forked(caster, workers) as pool:
        for g, cells in enumerate(groups):
            if not len(cells):
                continue
            iy, ix = np.divmod(cells, shape[1])
            lattice = cells[(iy % stride == 0) & (ix % stride == 0)]
            # stage 1: the group's lattice cells as targets, refined over the source grid
            first, cast = _refine_split(pool, box_rows, is_row, z, lattice, stride,
                                        targets_vary=False, known=None, share_last=True)
            segments += cast
            lattice_codes = first[:, row_at].T  # (rows, lattice targets)
            # stage 2: each source row (but those of later groups) over the group's cells
            is_col = np.zeros(n, dtype=bool)
            is_col[cells] = True
            box = _Box.around(cells, shape, stride)
            col_at, lattice_at = box.index(cells), box.index(lattice)
            covered = len(cells) and (where[cells] >= 0).all()  # later rows take the transpose
            todo = np.flatnonzero(group_of[rows] <= g) if covered else np.arange(len(rows))
            step = max(1, BLOCK_CELLS // box.size)
            for lo in range(0, len(todo), step):
                part = todo[lo:lo + step]
                known = np.full((len(part), box.size), -1, dtype=np.int8)
                known[:, lattice_at] = lattice_codes[part]
                block, cast = _refine_split(pool, box, is_col, z, rows[part], stride,
                                            targets_vary=True, known=known, share_last=False)
                code[part, bounds[g]:bounds[g + 1]] = block[:, col_at]
                segments += cast
    for g, cells in enumerate(groups):  # later groups' rows, from the earlier group's rows
        if not len(cells) or (where[cells] < 0).any():
            continue
        for h in range(g + 1, len(groups)):
            q = np.flatnonzero(where[groups[h]] >= 0)
            block = code[np.ix_(where[cells], bounds[h] + q)].T  # (h's rows, g's cells)
            swapped = ((block & _SEES) << 2) | ((block & _SEEN) >> 2)
            code[np.ix_(where[groups[h][q]], bounds[g] + np.arange(len(cells)))] = swapped
    return PairSight((code & _SEES).astype(bool), (code & _SEEN).astype(bool), segments)


class _Box:
    """A rectangle of grid cells, its lower corner on the lattice, with cell <-> slot maps."""

    def __init__(self, y0: int, x0: int, ny: int, nx: int, shape: tuple[int, int]):
        self.y0, self.x0, self.ny, self.nx, self.shape = y0, x0, ny, nx, shape

    @classmethod
    def around(cls, cells: np.ndarray, shape: tuple[int, int], stride: int) -> _Box:
        iy, ix = np.divmod(cells, shape[1])
        y0 = int(iy.min()) // stride * stride
        x0 = int(ix.min()) // stride * stride
        return cls(y0, x0, int(iy.max()) - y0 + 1, int(ix.max()) - x0 + 1, shape)

    @property
    def size(self) -> int:
        return self.ny * self.nx

    def index(self, cells: np.ndarray) -> np.ndarray:
        """Slots of grid cells (which must lie in the box)."""
        iy, ix = np.divmod(np.asarray(cells, dtype=np.int64), self.shape[1])
        return (iy - self.y0) * self.nx + (ix - self.x0)

    def cells(self) -> np.ndarray:
        """Grid cell of every slot."""
        y, x = np.divmod(np.arange(self.size), self.nx)
        return (y + self.y0) * self.shape[1] + (x + self.x0)

    def levels(self, valid: np.ndarray, z: np.ndarray,
               stride: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per level, coarse to fine: the slots new at that level (valid cells only) and their
        parent slots (k, 4); a parent outside the box, invalid or standing at another height
        (z: the foot's, per grid cell) is -1. Level 0 (the lattice) has no parents (an empty
        (k, 0) array)."""
        y, x = np.divmod(np.arange(self.size), self.nx)
        ok = valid[self.cells()]
        zs = z[self.cells()]
        out = []
        s = stride
        top = ok & (y % s == 0) & (x % s == 0)
        out.append((np.flatnonzero(top), np.empty((int(top.sum()), 0), dtype=np.int64)))
        while s > 1:
            h = s // 2
            new = ok & (y % h == 0) & (x % h == 0) & ~((y % s == 0) & (x % s == 0))
            slots = np.flatnonzero(new)
            py, px = y[slots], x[slots]
            ylo, xlo = py - py % s, px - px % s
            yhi = np.where(py % s == 0, ylo, ylo + s)
            xhi = np.where(px % s == 0, xlo, xlo + s)
            parents = []
            for a in (ylo, yhi):
                for b in (xlo, xhi):
                    inside = (a < self.ny) & (b < self.nx)
                    slot = np.where(inside, a * self.nx + b, 0)
                    good = inside & ok[slot] & (np.abs(zs[slot] - zs[slots]) <= STEP_Z)
                    parents.append(np.where(good, slot, -1))
            out.append((slots, np.column_stack(parents)))
            s = h
        return out


_SEES, _SEEN = 1, 4  # code bits: source sees target, target sees source
_UNSURE = 2 | 8  # either direction's answer may differ at a neighbouring cell


class _Sight:
    """The `pair_sight` test of one pair of cells, with whether its answer can be shared.

    An answer is unsure (never copied to a neighbour) when its segment was blocked by a piece
    with openings or overhangs (a ruin's windows and floors, a mesh: sight flips within a cell
    there) or decided by a lower segment, or when it crosses (or lies wholly in) the hull, grown
    by one lattice step in plan, of a ruin's wall or floor, of such a piece, of a piece made of
    several parts (the gaps between a forest's trunks) or of one thinner than two lattice steps
    (whose shadow could fall between lattice cells): every segment that such a piece could
    block between two lattice neighbours passes within a step of it.
    """

    def __init__(self, world: World, foot: np.ndarray, test: SightTest, spacing: float):
        self.caster = _Caster(world, foot, test)
        self.test = test
        hulls = []
        for entry in world.terrain.values():
            solid = entry.geometry.solid
            if solid is None:
                continue
            parts = as_trimesh(solid).split(only_watertight=False)
            if entry.floors and not is_column(solid):  # a ruin: walls and floor slabs
                hulls += [_grown_hull(p, spacing) for p in parts]
            elif not is_column(solid) or len(parts) > 1 or _width(solid) < 2.0 * spacing:
                hulls.append(_grown_hull(solid, spacing))
        self.hulls = RayScene(hulls) if hulls else None
        hs0, ht0 = test.pairs[0]
        self.near = {h: inside_closed(self.hulls, self.caster.foot + [0.0, 0.0, h])
                     if hulls else np.zeros(len(foot), dtype=bool) for h in {hs0, ht0}}

    @property
    def segments(self) -> int:
        return self.caster.segments

    def codes(self, a: np.ndarray, b: np.ndarray, shared: bool = True) -> np.ndarray:
        """(k,) int8 codes of the pairs (a[i], b[i]): _SEES, _SEEN and the unsure bits (set for
        every pair when shared is False: answers no neighbour will read skip that test)."""
        hs0, ht0 = self.test.pairs[0]
        ab, unsure_ab = self._one_way(a, b, hs0, ht0, shared)
        ba, unsure_ba = (ab, unsure_ab) if hs0 == ht0 else self._one_way(b, a, hs0, ht0, shared)
        if self.test.symmetric:
            ab = ba = ab | ba
            unsure_ab = unsure_ba = unsure_ab | unsure_ba
        return (ab * _SEES | unsure_ab * 2 | ba * _SEEN | unsure_ba * 8).astype(np.int8)

    def _one_way(self, a, b, hs0, ht0, shared: bool) -> tuple[np.ndarray, np.ndarray]:
        """Whether a sees b (the test's segments in order, as `pair_sight` casts them) and
        whether that answer is unsure."""
        caster = self.caster
        code = caster.codes(a, hs0, b, ht0)
        seen = code == _CLEAR
        opened = (code != _CLEAR) & (code != _FINAL)  # blocked, not by a column
        unsure = opened.copy() if shared else np.ones(len(code), dtype=bool)
        if shared and self.hulls is not None:
            idx = np.flatnonzero(~opened)
            origins, delta, lengths = caster._rays(a[idx], hs0, b[idx], ht0)
            unsure[idx[self.hulls.occluded(origins, delta, lengths)]] = True
            unsure |= self.near[hs0][a] & self.near[ht0][b]  # wholly inside: no crossing seen
        for hs, ht in self.test.pairs[1:]:
            lower = hs <= hs0 and ht <= ht0  # columns still block a lower segment
            todo = np.flatnonzero(~seen & opened) if lower else np.flatnonzero(~seen)
            seen[todo] = caster.clear(a[todo], hs, b[todo], ht)
            unsure[todo] = True
        return seen, unsure


def _grown_hull(mesh, by: float) -> trimesh.Trimesh:
    """The convex hull of a mesh grown by `by` inches each way in plan: every sight line that
    passes within a lattice step of the mesh crosses it."""
    offsets = np.array([[dx, dy, 0.0] for dx in (-by, by) for dy in (-by, by)])
    points = (mesh.vertices[None, :, :] + offsets[:, None, :]).reshape(-1, 3)
    return trimesh.Trimesh(vertices=points).convex_hull


def _width(mesh) -> float:
    """Smallest width of a mesh in plan (over 16 directions)."""
    xy = mesh.vertices[:, :2]
    angles = np.linspace(0.0, np.pi, 16, endpoint=False)
    spans = xy @ np.stack([np.cos(angles), np.sin(angles)])
    return float((spans.max(axis=0) - spans.min(axis=0)).min())


def _sure_share(caster: _Sight, rows: np.ndarray, cols: np.ndarray) -> float:
    """Share of sure answers (both ways) over SAMPLE pairs drawn with a fixed seed."""
    rng = np.random.default_rng(0)
    a, b = rng.choice(rows, SAMPLE), rng.choice(cols, SAMPLE)
    return float(np.mean(caster.codes(a, b) & _UNSURE == 0))


def _refine_split(pool: Forked, box: _Box, valid: np.ndarray, z: np.ndarray,
                  images: np.ndarray, stride: int, targets_vary: bool, known: np.ndarray | None,
                  share_last: bool) -> tuple[np.ndarray, int]:
    """`_refine` of the images split over the pool's workers: (len(images), box.size) codes and
    the segments cast."""
    levels = box.levels(valid, z, stride)
    cells = box.cells()
    parts = np.array_split(np.arange(len(images)), pool.workers if pool.parallel else 1)
    jobs = [(cells, levels, images[p], targets_vary, None if known is None else known[p],
             share_last) for p in parts if len(p)]
    results = pool.starmap(_refine, jobs)
    return np.concatenate([r[0] for r in results]), sum(r[1] for r in results)


def _refine(caster: _Sight, cells: np.ndarray, levels: list, images: np.ndarray,
            targets_vary: bool, known: np.ndarray | None,
            share_last: bool) -> tuple[np.ndarray, int]:
    """Codes (`_Sight.codes`) of each image over the
    box's slots, -1 where the slot holds no valid cell.

    images: the fixed end of each image (a target cell when targets_vary is False: the slots
    are sources; a source cell otherwise); known: codes already set (lattice), or None;
    share_last: the last level's answers are shared later (else they skip the unsure test).
    Returns the codes and the segments cast.
    """
    before = caster.segments
    k = len(images)
    values = np.full((k, len(cells)), -1, dtype=np.int8) if known is None else known.copy()
    for level, (slots, parents) in enumerate(levels):
        if parents.shape[1] == 0:
            todo = values[:, slots] < 0
        else:
            pv = values[:, parents]  # (k, p, 4); a missing parent reads slot 0, masked below
            missing = (parents < 0).any(axis=1)
            first = pv[:, :, 0]
            agree = ((pv == first[:, :, None]).all(axis=2) & (first >= 0)
                     & (first & _UNSURE == 0) & ~missing[None, :])
            values[:, slots] = np.where(agree, first, -1)
            todo = ~agree
        img, at = np.nonzero(todo)
        if not len(img):
            continue
        here, there = images[img], cells[slots[at]]
        src, dst = (here, there) if targets_vary else (there, here)
        values[img, slots[at]] = caster.codes(src, dst, share_last or level < len(levels) - 1)
    return values, caster.segments - before


def field_difference(field: np.ndarray, reference: np.ndarray, over: float = 0.05) -> dict:
    """How a field matches a reference cell by cell (cells where both are numbers):
    mean_abs, the mean |difference|, and share_over, the share of cells off by more than
    `over` (the refined field's bounds against the exhaustive one: 0.004 and 0.5%)."""
    diff = np.abs(np.asarray(field, dtype=np.float64) - np.asarray(reference, dtype=np.float64))
    diff = diff[~np.isnan(diff)]
    if not len(diff):
        return {"mean_abs": 0.0, "share_over": 0.0}
    return {"mean_abs": float(diff.mean()), "share_over": float(np.mean(diff > over))}
