"""Casting shared over worker processes forked from this one, and the exhaustive pair sight
split over them.

The workers inherit what they cast against (the terrain world and its Embree scenes, built once
here) instead of rebuilding it; only the jobs' index arrays and their answers are pickled.
embreex holds the GIL while it traces, so threads would not help. Where fork is missing, or in a
daemonic process (a Dask worker may not start children), the jobs run here one after another.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
from collections.abc import Callable, Sequence

import numpy as np
from battlesight.geometry.sightgrid.caster import GridCaster, SightTest
from battlesight.geometry.sightgrid.viewshed import PairSight, _pair_sight, pair_sight
from battlesight.geometry.world import World

_INHERITED: object = None  # what the forked workers read
_OUTER_CHUNK = 256  # outer rows per job of `exhaustive_pair_sight` (small: the last jobs balance)


def default_workers() -> int:
    """Worker processes for one analysis: the CPUs this process may use, at most two."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(2, cpus or 1))


def shared_zeros(shape: tuple[int, ...], dtype) -> np.ndarray:
    """A zeroed array in memory shared with the processes forked after it is made (an
    anonymous shared mapping): workers write their answers into it in place, nothing pickled
    back. Freed with its last view."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not size:
        return np.zeros(shape, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, size), dtype=dtype).reshape(shape)


def forks(workers: int) -> bool:
    """Whether `workers` jobs would run on forked processes here (more than one asked, fork
    available, and this process not a daemon)."""
    daemon = multiprocessing.current_process().daemon
    return workers > 1 and not daemon and "fork" in multiprocessing.get_all_start_methods()


class Forked:
    """`with Forked(shared, workers) as pool: pool.starmap(fn, jobs)` runs fn(shared, *job) for
    each job on `workers` forked processes (here, in order, for one worker or without fork)."""

    def __init__(self, shared: object, workers: int):
        self.shared, self.workers, self.pool = shared, max(1, int(workers)), None

    def __enter__(self) -> Forked:
        if forks(self.workers):
            global _INHERITED
            _INHERITED = self.shared
            self.pool = multiprocessing.get_context("fork").Pool(self.workers)
        return self

    def __exit__(self, *exc) -> None:
        global _INHERITED
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
        _INHERITED = None

    @property
    def parallel(self) -> bool:
        return self.pool is not None

    def starmap(self, fn: Callable, jobs: Sequence[tuple]) -> list:
        """[fn(shared, *job) for job in jobs], in job order."""
        if self.pool is None or len(jobs) < 2:
            return [fn(self.shared, *job) for job in jobs]
        return self.pool.starmap(_call, [(fn, *job) for job in jobs], chunksize=1)


def _call(fn: Callable, *job):
    return fn(_INHERITED, *job)


def exhaustive_pair_sight(world: World, foot: np.ndarray, rows: np.ndarray,
                          groups: Sequence[np.ndarray], test: SightTest,
                          workers: int | None = None) -> PairSight:
    """`pair_sight(world, foot, rows, cols, test)` for cols = the groups one after the other,
    every pair cast, the work split over `workers` processes (default `default_workers`).

    Each group's square of pairs is cast once per unordered pair as `pair_sight` does; a row in
    an earlier group takes its sight to a later group's cells from the later group's jobs (which
    cast it as an outer row), so no pair is cast twice.
    """
    rows = np.asarray(rows, dtype=np.int64)
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    workers = workers or default_workers()
    if not forks(workers):  # one process: one call, one caster
        cols = np.concatenate(groups) if groups else np.empty(0, dtype=np.int64)
        return pair_sight(world, foot, rows, cols, test)
    bounds = np.cumsum([0] + [len(g) for g in groups])
    # the workers write into these (made before they fork): no answer is pickled back
    sees = shared_zeros((len(rows), int(bounds[-1])), bool)
    seen = shared_zeros((len(rows), int(bounds[-1])), bool)
    group_of = np.full(len(foot), -1)
    for g, cells in enumerate(groups):
        group_of[cells] = g
    where = np.full(len(foot), -1)
    where[rows] = np.arange(len(rows))
    covered = [bool(len(c)) and bool((where[c] >= 0).all()) for c in groups]
    jobs = []
    for g in range(len(groups)):
        of = group_of[rows]
        earlier = (of >= 0) & (of < g) & covered[g]  # cast as outer rows of their own group
        inner = np.flatnonzero(of == g)
        outer = np.flatnonzero((of != g) & ~earlier)
        parts = ([inner] if len(inner) else []) + [outer[i:i + _OUTER_CHUNK]
                                                   for i in range(0, len(outer), _OUTER_CHUNK)]
        jobs += [(rows[part], g, part) for part in parts]
    work = _Exhaustive(GridCaster(world, foot, test), groups, bounds, sees, seen)
    with Forked(work, workers) as pool:  # one caster and the answers' arrays, inherited
        segments = sum(pool.starmap(_cast, jobs))
    position = np.full(len(foot), -1)
    for g, cells in enumerate(groups):  # earlier groups' rows, from their own group's jobs
        if not covered[g]:
            continue
        position[cells] = np.arange(len(cells))
        back = where[cells]  # group g's cells as rows
        span = bounds[g] + np.arange(len(cells))
        for h in range(g):
            mine = np.flatnonzero(group_of[rows] == h)
            position[groups[h]] = np.arange(len(groups[h]))
            col = bounds[h] + position[rows[mine]]
            sees[np.ix_(mine, span)] = seen[np.ix_(back, col)].T
            seen[np.ix_(mine, span)] = sees[np.ix_(back, col)].T
    return PairSight(sees, seen, segments)


class _Exhaustive:
    """What the jobs of `exhaustive_pair_sight` share (inherited by the forked workers): the
    caster, the column groups and their bounds, and the answers' arrays they write into."""

    def __init__(self, caster: GridCaster, groups: list[np.ndarray], bounds: np.ndarray,
                 sees: np.ndarray, seen: np.ndarray):
        self.caster, self.groups, self.bounds = caster, groups, bounds
        self.sees, self.seen = sees, seen


def _cast(work: _Exhaustive, rows: np.ndarray, group: int, at: np.ndarray) -> int:
    """Sight between rows (at: their places among all rows) and one group's cells, written
    into the shared answers; the segments cast."""
    sight = _pair_sight(work.caster, rows, work.groups[group])
    span = slice(int(work.bounds[group]), int(work.bounds[group + 1]))
    work.sees[at, span] = sight.sees
    work.seen[at, span] = sight.seen
    return sight.segments
