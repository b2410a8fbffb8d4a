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
cell (first the squares' centres, then the cells between two lattice cells) takes the answer of
the four or two cells around it when they all agree and are sure (a missing corner of a square
is bridged by the whole other diagonal), and is cast otherwise; cells standing at another
height (a box top beside the table), that cannot hold a model, or at the table's edge share
nothing. An answer is unsure when a lower segment decided it (the torso seen through a
window). A block by a piece with openings (a ruin's windows, a mesh), and an answer that
passes within a lattice step of a piece thinner than two steps (a trunk), of one made of
several parts or of a mesh, is taken with a check: the new cell casts its own first segment
(eye to eye), and is cast in full where that one disagrees (a window, a thin shadow between
the neighbours). A cell between two lattice cells skips the check where the four cells half a
step around it (its two ends, the two centres beside it) all give the answer: a strip of light
through a window that misses all four is narrower than half a lattice step. Where the lattice
step is wider than a ruin's windows and piers, its walls and floors make every answer near
them unsure instead, and no check is skipped (see `_Sight`). So the answer differs from the
exhaustive one only where a shadow edge slips between sure, agreeing neighbours, a narrow
strip of light between checked ones, or the torso alone is seen through an opening that no
neighbour sees through;
`tests/test_layout_refine.py` and `battlesight bench` compare the fields with `analyze --exact`.

At a stride of 1 (grids of COARSE_INCHES or coarser) nothing is shared and every pair is cast
(`forked.exhaustive_pair_sight`), and so is it by default where a sample of pairs shows too few
sure answers to share (MIN_SURE: tables crowded with ruins). Either way the work is split over
forked worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.primitives import prism
from battlesight.geometry.ray import RayScene
from battlesight.geometry.ruins import PIER, WINDOW_WIDTH
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
#: Jobs per worker process of each refinement step.
JOBS = 4
#: Narrowest window or pier of a ruin in inches (`geometry.ruins`: windows 1.5", piers 1"): a
#: lattice step wider than this can hold one between two lattice cells.
OPENING = min(WINDOW_WIDTH, PIER)



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
                known = (lattice_at, lattice_codes[part])  # the workers fill in the box
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
    sees = (code & _SEES).view(bool)  # 0 or 1 in each byte: a bool view, no copy
    code >>= 2
    code &= 1
    return PairSight(sees, code.view(bool), segments)


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

    def levels(self, valid: np.ndarray, z: np.ndarray, stride: int) -> list[tuple]:
        """Per level, coarse to fine: (slots, parents, backing, last). slots: those new at the
        level (valid cells only); parents (k, 4): the corners of the coarser square around
        each (twice the two ends for a cell between two lattice cells); backing (k, 4): for
        a cell between two lattice cells, its four neighbours half a step away (its ends,
        and the squares' centres beside it, filled at the level before; else an empty (0, 0)
        array); a parent or neighbour outside the box, invalid or standing at another height
        (z: the foot's, per grid cell) is -1; last: the level is of the last halving. Level 0
        (the lattice) has no parents ((k, 0)). Each halving has two levels: the squares'
        centres, then the cells between two lattice cells."""
        y, x = np.divmod(np.arange(self.size), self.nx)
        ok = valid[self.cells()]
        zs = z[self.cells()]
        none = np.empty((0, 0), dtype=np.int64)

        def slot_of(slots, a, b):
            inside = (a >= 0) & (a < self.ny) & (b >= 0) & (b < self.nx)
            slot = np.where(inside, a * self.nx + b, 0)
            good = inside & ok[slot] & (np.abs(zs[slot] - zs[slots]) <= STEP_Z)
            return np.where(good, slot, -1)

        s = stride
        top = np.flatnonzero(ok & (y % s == 0) & (x % s == 0))
        out = [(top, np.empty((len(top), 0), dtype=np.int64), none, False)]
        while s > 1:
            h = s // 2
            on_y, on_x = y % s == 0, x % s == 0
            fine = ok & (y % h == 0) & (x % h == 0)
            for centre in (True, False):
                slots = np.flatnonzero(fine & (~on_y & ~on_x if centre else on_y ^ on_x))
                py, px = y[slots], x[slots]
                ylo, xlo = py - py % s, px - px % s
                yhi = np.where(py % s == 0, ylo, ylo + s)
                xhi = np.where(px % s == 0, xlo, xlo + s)
                parents = np.column_stack([slot_of(slots, a, b) for a in (ylo, yhi)
                                           for b in (xlo, xhi)])
                backing = none
                if not centre:
                    backing = np.column_stack([slot_of(slots, py + dy, px + dx) for dy, dx
                                               in ((-h, 0), (h, 0), (0, -h), (0, h))])
                out.append((slots, _bridged(parents), backing, h == 1))
            s = h
        return out


def _bridged(parents: np.ndarray) -> np.ndarray:
    """Parents (k, 4) (corners lo-lo, lo-hi, hi-lo, hi-hi) with a missing corner replaced by
    a corner of the other diagonal where that diagonal is whole: the cell lies on it, between
    two known cells (a square's centre beside a wall or the table's edge)."""
    parents = parents.copy()
    for a, b, c, d in ((0, 3, 1, 2), (1, 2, 0, 3)):  # diagonal (a, b) whole, (c, d) not
        whole = (parents[:, a] >= 0) & (parents[:, b] >= 0)
        for m in (c, d):
            fill = whole & (parents[:, m] < 0)
            parents[fill, m] = parents[fill, a]
    return parents


_SEES, _SEEN = 1, 4  # code bits: source sees target, target sees source
_UNSURE = 2 | 8  # either direction's answer may differ at a neighbouring cell
_VERIFY = 16  # blocked by a piece with openings: a neighbour casts its first segment to check
_ANSWER = _SEES | _SEEN
_NOT_SHARED = _UNSURE | -128  # unsure, or no answer yet (-1: the sign bit)


class _Sight:
    """The `pair_sight` test of one pair of cells, with whether its answer can be shared.

    An answer is unsure (never copied to a neighbour) when a lower segment decided it. It is
    copied with a check (_VERIFY: the neighbour casts its own first segment, and is cast in
    full where that disagrees) when its first segment was blocked by a piece with openings or
    overhangs (a ruin's windows, a mesh: sight flips within a cell there), or when that segment
    crosses (or lies wholly in) the hull, grown by one lattice step in plan, of a mesh, of a
    piece made of several parts (the gaps between a forest's trunks) or of one thinner than two
    lattice steps (whose shadow could fall between lattice cells): every segment that such a
    piece could block between two lattice neighbours passes within a step of it. Where the
    step is wider than a ruin's narrowest window or pier (OPENING), one fits between two
    lattice cells: then the hulls of a ruin's walls and floors join them, and answers near any
    such hull are unsure.
    """

    def __init__(self, world: World, foot: np.ndarray, test: SightTest, spacing: float):
        self.caster = _Caster(world, foot, test)
        self.test = test
        self.wide = spacing > OPENING  # a window or pier fits between lattice cells
        hulls = []
        for entry in world.terrain.values():
            solid = entry.geometry.solid
            if solid is None:
                continue
            parts = _parts(solid)
            if entry.floors and not is_column(solid):  # a ruin: walls and floor slabs
                if self.wide:
                    hulls += [_grown_hull(p, spacing) for p in parts]
            elif not is_column(solid) or len(parts) > 1 or _width(solid) < 2.0 * spacing:
                hulls.append(_grown_hull(solid.vertices, spacing))
        self.hulls = RayScene(hulls) if hulls else None
        hs0, ht0 = test.pairs[0]
        self.near = {h: inside_closed(self.hulls, self.caster.foot + [0.0, 0.0, h])
                     if hulls else np.zeros(len(foot), dtype=bool) for h in {hs0, ht0}}

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
        """(k,) int8 codes of the pairs (a[i], b[i]): _SEES, _SEEN, the unsure bits (set for
        every pair when shared is False: answers no neighbour will read skip the hull test)
        and _VERIFY (a neighbour taking the answer checks it with its first segment). known:
        whether the first segment of every pair is clear, where a check cast it already (its
        heights equal: one segment both ways); it is not cast again."""
        hs0, ht0 = self.test.pairs[0]
        there = self._first(a, b, hs0, ht0, shared, known)
        back = there if hs0 == ht0 else self._first(b, a, hs0, ht0, shared)
        ab, unsure_ab, check_ab = self._lower(a, b, *there)
        ba, unsure_ba, check_ba = self._lower(b, a, *back)
        if self.test.symmetric:
            ab = ba = ab | ba
            unsure_ab = unsure_ba = unsure_ab | unsure_ba
        bits = [(ab, _SEES), (unsure_ab, 2), (ba, _SEEN), (unsure_ba, 8),
                (check_ab | check_ba, _VERIFY)]
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
        a column); unsure (every answer when not shared); near a risky piece's hull."""
        if known is None:
            code = self.caster.codes(a, hs0, b, ht0)
        elif known:
            code = np.full(len(a), _CLEAR, dtype=np.int8)
        else:
            code = self.caster.classify_blocked(a, hs0, b, ht0)
        clear = code == _CLEAR
        opened = (code != _CLEAR) & (code != _FINAL)
        unsure = np.full(len(code), not shared)
        near = np.zeros(len(code), dtype=bool)
        if shared and self.hulls is not None:
            idx = np.flatnonzero(~opened)
            origins, delta, far = self.caster._rays(a[idx], hs0, b[idx], ht0)
            near[idx[self.hulls.occluded(origins, delta, far)]] = True
            near |= self.near[hs0][a] & self.near[ht0][b]  # wholly inside: no crossing seen
            if self.wide:
                unsure |= near
        return clear, opened, unsure, near & ~unsure

    def _lower(self, a, b, clear, opened, unsure, near) -> tuple[np.ndarray, ...]:
        """Whether a sees b (the test's further segments after the first, as `pair_sight`
        casts them), whether that answer is unsure (a lower segment decided it), and whether
        it is to be checked (blocked by a piece with openings, or near a risky piece)."""
        seen, unsure = clear.copy(), unsure.copy()
        hs0, ht0 = self.test.pairs[0]
        for hs, ht in self.test.pairs[1:]:
            lower = hs <= hs0 and ht <= ht0  # columns still block a lower segment
            todo = np.flatnonzero(~seen & opened) if lower else np.flatnonzero(~seen)
            found = self.caster.clear(a[todo], hs, b[todo], ht)
            seen[todo] = found
            unsure[todo[found]] = True
        return seen, unsure, (opened & ~seen) | near


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


def _backed(values: np.ndarray, slots: np.ndarray, backing: np.ndarray, first: np.ndarray,
            agree: np.ndarray, check: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """New cells from their four neighbours half a step away (`_Box.levels` backing: a cell
    between two lattice cells, its ends and the centres beside it), where all four are known
    and give one answer: where the parents agree on it too, their answer is taken unchecked;
    where the parents do not agree, the neighbours' answer is taken (unsure: no cell shares
    it); where they agree on another answer, the cell is cast. values: (slots, images) codes;
    first, agree, check: (new slots, images). Returns agree and check."""
    nb0 = values[backing[:, 0]]
    cross = ~(backing < 0).any(axis=1)[:, None] & (nb0 >= 0)
    for j in range(1, backing.shape[1]):
        nb = values[backing[:, j]]
        cross &= (nb >= 0) & (((nb ^ nb0) & _ANSWER) == 0)
    same = ((nb0 ^ first) & _ANSWER) == 0
    take = cross & ~agree
    against = cross & agree & ~same
    new = np.where(take, (nb0 & _ANSWER) | _UNSURE, values[slots])
    new[against] = -1
    values[slots] = new
    return (agree | take) & ~against, check & ~(cross & same)


def _refine_split(pool: Forked, box: _Box, valid: np.ndarray, z: np.ndarray,
                  images: np.ndarray, stride: int, targets_vary: bool, known: tuple | None,
                  share_last: bool) -> tuple[np.ndarray, int]:
    """`_refine` of the images split over the pool's workers (known: as `_refine` takes it, for
    all the images): (len(images), box.size) codes and the segments cast."""
    levels = box.levels(valid, z, stride)
    cells = box.cells()
    # a few jobs per worker, taken as they come free: no worker waits on a slow region
    parts = np.array_split(np.arange(len(images)), JOBS * pool.workers if pool.parallel else 1)
    jobs = [(cells, levels, images[p], targets_vary,
             None if known is None else (known[0], known[1][p]), share_last)
            for p in parts if len(p)]
    results = pool.starmap(_refine, jobs)
    return np.concatenate([r[0] for r in results]), sum(r[1] for r in results)


def _refine(caster: _Sight, cells: np.ndarray, levels: list, images: np.ndarray,
            targets_vary: bool, known: tuple | None,
            share_last: bool) -> tuple[np.ndarray, int]:
    """Codes (`_Sight.codes`) of each image over the
    box's slots, -1 where the slot holds no valid cell.

    images: the fixed end of each image (a target cell when targets_vary is False: the slots
    are sources; a source cell otherwise); known: codes already set, (slots (s,), codes
    (len(images), s): the lattice's), or None;
    share_last: the last level's answers are shared later (else they skip the unsure test).
    Returns the codes (images, slots) and the segments cast.
    """
    before = caster.segments
    k = len(images)
    # (slots, images): a slot's codes lie together, so gathering parents copies whole rows
    values = np.full((len(cells), k), -1, dtype=np.int8)
    if known is not None:
        values[known[0]] = known[1].T
    for slots, parents, backing, last in levels:
        shared = share_last or not last
        if parents.shape[1]:
            first = values[parents[:, 0]]  # a missing parent reads the last slot: masked
            agree = (first & _NOT_SHARED) == 0
            agree[(parents < 0).any(axis=1)] = False
            for j in range(1, parents.shape[1]):
                agree &= values[parents[:, j]] == first
            values[slots] = np.where(agree, first, np.int8(-1))
            check = agree & ((first & _VERIFY) != 0)
            if backing.shape[1] and not caster.wide:  # four neighbours half a step away
                agree, check = _backed(values, slots, backing, first, agree, check)
            at, img = np.nonzero(check | ~agree)  # one pass: those to check and to cast
            checked = check[at, img]
            cast = ~checked
            if checked.any():  # a window or a thin piece may flip it: the first segment checks
                ca, ci = at[checked], img[checked]
                here, there = images[ci], cells[slots[ca]]
                src, dst = (here, there) if targets_vary else (there, here)
                found = caster.first_clear(src, dst)
                flip = found != ((first[ca, ci] & _ANSWER) != 0)
                if caster.symmetric_first:  # the check's segment serves both ways
                    for known_clear in (True, False):
                        redo = flip & (found == known_clear)
                        here, there = images[ci[redo]], cells[slots[ca[redo]]]
                        src, dst = (here, there) if targets_vary else (there, here)
                        values[slots[ca[redo]], ci[redo]] = caster.codes(src, dst, shared,
                                                                         known_clear)
                else:
                    cast[np.flatnonzero(checked)[flip]] = True
            at, img = at[cast], img[cast]
        else:
            at, img = np.nonzero(values[slots] < 0)
        if not len(img):
            continue
        here, there = images[img], cells[slots[at]]
        src, dst = (here, there) if targets_vary else (there, here)
        values[slots[at], img] = caster.codes(src, dst, shared)
    return values.T, caster.segments - before


def field_difference(field: np.ndarray, reference: np.ndarray, over: float = 0.05) -> dict:
    """How a field matches a reference cell by cell (cells where both are numbers):
    mean_abs, the mean |difference|, and share_over, the share of cells off by more than
    `over` (the refined field's bounds against the exhaustive one: 0.004 and 0.5%)."""
    diff = np.abs(np.asarray(field, dtype=np.float64) - np.asarray(reference, dtype=np.float64))
    diff = diff[~np.isnan(diff)]
    if not len(diff):
        return {"mean_abs": 0.0, "share_over": 0.0}
    return {"mean_abs": float(diff.mean()), "share_over": float(np.mean(diff > over))}
