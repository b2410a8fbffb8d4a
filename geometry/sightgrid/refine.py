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
the neighbours). A cell between two lattice cells skips the check of a block through openings
where the four cells half a step around it (its two ends, the two centres beside it) all give
the answer: a strip of light through a window that misses all four is narrower than half a
lattice step (the check of an answer near a thin piece, whose shadow may be that narrow, is
always made). Where the lattice step is wider than a ruin's windows and piers, its walls and
floors make every answer near them unsure instead, and no check is skipped (see
`shared_sight.SharedSight`). So the answer differs from the exhaustive one only where a shadow
edge slips between sure, agreeing neighbours, a narrow strip of light between checked ones, or
the torso alone is seen through an opening that no neighbour sees through;
`tests/test_layout_refine.py` and `battlesight bench` compare the fields with `analyze --exact`.

At a stride of 1 (grids of COARSE_INCHES or coarser) nothing is shared and every pair is cast
(`forked.exhaustive_pair_sight`), and so is it by default where a sample of pairs shows too few
sure answers to share (MIN_SURE: tables crowded with ruins). Either way the work is split over
forked worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from battlesight.geometry.sightgrid.viewshed import PairSight, SightTest, StandingGrid
from battlesight.geometry.world import World

from .forked import Forked, default_workers, exhaustive_pair_sight, shared_zeros
from .lattice import LatticeBox
from .shared_sight import ANSWER, NEAR, NOT_SHARED, SEEN, SEES, UNSURE, VERIFY, SharedSight

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
#: Largest (slots, images) array of int8 codes one job refines (8 MB): a refinement step is
#: split into at least that many jobs.
JOB_CELLS = 1 << 23
#: Jobs per worker process of each refinement step (taken as workers come free).
JOBS = 8


@dataclass
class _Box:
    """A box of cells one refinement step fills: its cells (slot -> grid cell), levels
    (`LatticeBox.levels`), the slots its answers are read from, and the slots of the lattice
    codes it starts from (None: it starts from nothing)."""

    cells: np.ndarray
    levels: list
    out: np.ndarray
    known: np.ndarray | None = None


@dataclass
class _Work:
    """What the refinement's jobs share, made before the workers fork (inherited, never
    pickled): the caster, the boxes, and the arrays the jobs write their answers into in place
    (`forked.shared_zeros`).

    code: (rows, cols) the pairs' codes (stage 2); lattice: per group, (rows, the group's
    lattice cells) the codes of stage 1, which stage 2 starts from; sources: the box of source
    rows (stage 1, every group); boxes: per group, the box of its cells (stage 2).
    """

    caster: SharedSight
    code: np.ndarray
    lattice: list[np.ndarray]
    sources: _Box
    boxes: list[_Box | None]


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
    caster = SharedSight(world, grid.foot, test, stride * cell)
    if not chosen and _sure_share(caster, rows, np.concatenate(groups)) < MIN_SURE:
        sight = exhaustive_pair_sight(world, grid.foot, rows, groups, test, workers)
        return PairSight(sight.sees, sight.seen, sight.segments + caster.segments)
    report.update(method="refined", stride=stride)
    shape = grid.shape
    n = shape[0] * shape[1]
    z = grid.foot[:, 2]
    is_row = np.zeros(n, dtype=bool)
    is_row[rows] = True
    box_rows = LatticeBox.around(rows, shape, stride)
    row_at = box_rows.index(rows)
    group_of = np.full(n, -1)
    for g, cells in enumerate(groups):
        group_of[cells] = g
    where = np.full(n, -1)
    where[rows] = np.arange(len(rows))
    lattices, boxes = [], []
    for cells in groups:
        iy, ix = np.divmod(cells, shape[1])
        lattice = cells[(iy % stride == 0) & (ix % stride == 0)]
        lattices.append(lattice)
        if not len(cells):
            boxes.append(None)
            continue
        is_col = np.zeros(n, dtype=bool)
        is_col[cells] = True
        box = LatticeBox.around(cells, shape, stride)
        boxes.append(_Box(box.cells(), box.levels(is_col, z, stride), box.index(cells),
                          box.index(lattice)))
    sources = _Box(box_rows.cells(), box_rows.levels(is_row, z, stride), row_at)
    # the workers write into these (made before they fork): no answer is pickled back
    work = _Work(caster, shared_zeros((len(rows), bounds[-1]), np.int8),
                 [shared_zeros((len(rows), len(lat)), np.int8) for lat in lattices],
                 sources, boxes)
    code = work.code
    segments = caster.segments  # the sample's, when one was cast
    with Forked(work, workers) as pool:
        for g, cells in enumerate(groups):
            if not len(cells):
                continue
            lattice = lattices[g]
            # stage 1: the group's lattice cells as targets, refined over the source grid
            jobs = [(g, lattice[p], p) for p in _parts(pool, len(lattice), len(sources.cells))]
            segments += sum(pool.starmap(_lattice_job, jobs))
            # stage 2: each source row (but those of later groups) over the group's cells
            covered = len(cells) and (where[cells] >= 0).all()  # later rows take the transpose
            todo = np.flatnonzero(group_of[rows] <= g) if covered else np.arange(len(rows))
            span = (int(bounds[g]), int(bounds[g + 1]))
            jobs = [(g, rows[todo[p]], todo[p], span)
                    for p in _parts(pool, len(todo), len(boxes[g].cells))]
            segments += sum(pool.starmap(_cells_job, jobs))
    for g, cells in enumerate(groups):  # later groups' rows, from the earlier group's rows
        if not len(cells) or (where[cells] < 0).any():
            continue
        for h in range(g + 1, len(groups)):
            q = np.flatnonzero(where[groups[h]] >= 0)
            block = code[np.ix_(where[cells], bounds[h] + q)].T  # (h's rows, g's cells)
            swapped = ((block & SEES) << 2) | ((block & SEEN) >> 2)
            code[np.ix_(where[groups[h][q]], bounds[g] + np.arange(len(cells)))] = swapped
    sees = (code & SEES).view(bool)  # 0 or 1 in each byte: a bool view, no copy
    code >>= 2
    code &= 1
    return PairSight(sees, code.view(bool), segments)


def _sure_share(caster: SharedSight, rows: np.ndarray, cols: np.ndarray) -> float:
    """Share of sure answers (both ways) over SAMPLE pairs drawn with a fixed seed."""
    rng = np.random.default_rng(0)
    a, b = rng.choice(rows, SAMPLE), rng.choice(cols, SAMPLE)
    return float(np.mean(caster.codes(a, b) & UNSURE == 0))


def _backed(values: np.ndarray, slots: np.ndarray, backing: np.ndarray, first: np.ndarray,
            agree: np.ndarray, check: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """New cells from their four neighbours half a step away (`LatticeBox.levels` backing: a cell
    between two lattice cells, its ends and the centres beside it), where all four are known
    and give one answer: where the parents agree on it too, their answer is taken unchecked;
    where the parents do not agree, the neighbours' answer is taken (unsure: no cell shares
    it); where they agree on another answer, the cell is cast. values: (slots, images) codes;
    first, agree, check: (new slots, images). Returns agree and check."""
    nb0 = values[backing[:, 0]]
    cross = ~(backing < 0).any(axis=1)[:, None] & (nb0 >= 0)
    for j in range(1, backing.shape[1]):
        nb = values[backing[:, j]]
        cross &= (nb >= 0) & (((nb ^ nb0) & ANSWER) == 0)
    same = ((nb0 ^ first) & ANSWER) == 0
    take = cross & ~agree
    against = cross & agree & ~same
    new = np.where(take, (nb0 & ANSWER) | UNSURE, values[slots])
    new[against] = -1
    values[slots] = new
    return (agree | take) & ~against, check & ~(cross & same & ((first & NEAR) == 0))


def _parts(pool: Forked, count: int, slots: int) -> list[np.ndarray]:
    """The images of a refinement step split into jobs: a few per worker, taken as they come
    free (no worker waits on a slow region), each refining at most JOB_CELLS codes."""
    jobs = max(JOBS * pool.workers if pool.parallel else 1, -(-count * slots // JOB_CELLS))
    return [p for p in np.array_split(np.arange(count), min(jobs, max(count, 1))) if len(p)]


def _lattice_job(work: _Work, group: int, targets: np.ndarray, at: np.ndarray) -> int:
    """Stage 1 for some of a group's lattice cells (targets, columns `at` of its lattice
    codes), refined over the box of source rows; the segments cast."""
    box = work.sources
    values, cast = _refine(work.caster, box.cells, box.levels, targets, False, None, True)
    work.lattice[group][:, at] = values[box.out]
    return cast


def _cells_job(work: _Work, group: int, sources: np.ndarray, at: np.ndarray,
               span: tuple[int, int]) -> int:
    """Stage 2 for some source rows (`at` of them), refined over the group's box from their
    lattice codes, written to the code columns `span`; the segments cast."""
    box = work.boxes[group]
    known = (box.known, work.lattice[group][at])
    values, cast = _refine(work.caster, box.cells, box.levels, sources, True, known, False)
    work.code[at, span[0]:span[1]] = values[box.out].T
    return cast


def _refine(caster: SharedSight, cells: np.ndarray, levels: list, images: np.ndarray,
            targets_vary: bool, known: tuple | None,
            share_last: bool) -> tuple[np.ndarray, int]:
    """Codes (`SharedSight.codes`) of each image over the
    box's slots, -1 where the slot holds no valid cell.

    images: the fixed end of each image (a target cell when targets_vary is False: the slots
    are sources; a source cell otherwise); known: codes already set, (slots (s,), codes
    (len(images), s): the lattice's), or None;
    share_last: the last level's answers are shared later (else they skip the unsure test).
    Returns the codes (slots, images) and the segments cast.
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
            agree = (first & NOT_SHARED) == 0
            agree[(parents < 0).any(axis=1)] = False
            for j in range(1, parents.shape[1]):
                agree &= values[parents[:, j]] == first
            values[slots] = np.where(agree, first, np.int8(-1))
            check = agree & ((first & (VERIFY | NEAR)) != 0)
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
                flip = found != ((first[ca, ci] & ANSWER) != 0)
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
