"""Tracing the sample rays of sight queries: each segment, from where the ray leaves its
observer's volume to just short of the point where it meets its target, is tested against
everything else for its first blocker (past the models the query skips) and the first area
volume (forest) it crosses. Every stage is one batch of ray-engine calls for all the rays of a
call (`visibility.visibility_many` samples the rays and sums up the answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .placed import EPSILON, volume_scene
from .world import World


@dataclass
class TracedRays:
    """Every traced sample ray, grouped by query: query_of (m,), first blocker (m,) (index
    into owners, -1 seen), area (m,) (index into areas, -1 none), points (m, 3) on the target."""

    query_of: np.ndarray
    blocker: np.ndarray
    owners: list[str]
    area: np.ndarray
    areas: list[str]
    points: np.ndarray

    def join(self, other: TracedRays, rows: np.ndarray) -> TracedRays:
        """These rays and other's, whose query i is this set's query rows[i], by query (each
        query's own rays first): both sets are by query already, so every ray's place is
        counted out, not sorted."""
        n = int(self.query_of.max()) + 1 if len(self.query_of) else 0
        n = max(n, int(rows.max()) + 1 if len(rows) else 0)
        mine = np.bincount(self.query_of, minlength=n)
        theirs = np.bincount(rows[other.query_of], minlength=n)
        start = np.cumsum(mine + theirs) - mine - theirs  # each query's first place
        place = np.empty(len(self.query_of) + len(other.query_of), dtype=np.int64)
        at = len(self.query_of)
        place[:at] = _rank(self.query_of, mine) + start[self.query_of]
        other_q = rows[other.query_of]
        place[at:] = _rank(other_q, theirs) + (start + mine)[other_q]

        def merged(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            out = np.empty((len(place), *a.shape[1:]), dtype=np.result_type(a, b))
            out[place[:at]] = a
            out[place[at:]] = b
            return out

        return TracedRays(merged(self.query_of, other_q), merged(self.blocker, other.blocker),
                     self.owners, merged(self.area, other.area), self.areas,
                     merged(self.points, other.points))


def _rank(query_of: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(m,) place of each ray among its query's rays, for rays grouped by query (query_of
    non-decreasing, sizes (q,) rays per query)."""
    return np.arange(len(query_of)) - (np.cumsum(sizes) - sizes)[query_of]


def trace(world: World, queries: Sequence, eyes: np.ndarray, query_of: np.ndarray,
          directions: np.ndarray, distance: np.ndarray) -> TracedRays:
    """Test every sample segment against the world: first blocker and area crossed. Ray i
    looks from eyes[query_of[i]] along directions[i] (unit, float32) and meets its target at
    distance[i]; queries (q,) are `SightQuery`s (observer, target, eye, skip)."""
    origins = eyes[query_of]
    leave = leave_observers(world, queries, eyes, directions, query_of)
    starts = origins + directions * (leave + EPSILON)[:, None]
    lengths = distance - leave - 2 * EPSILON
    blocker = np.full(len(query_of), -1, dtype=np.int64)
    owners = world.solid_ids + world.model_ids
    positive = lengths > 0
    if positive.all():
        blocker, owners = world.first_blockers(
            starts, directions, lengths, (skip_table(world, queries), query_of)
        )
    elif positive.any():
        idx = np.flatnonzero(positive)
        blocker[idx], owners = world.first_blockers(
            starts[idx], directions[idx], lengths[idx],
            (skip_table(world, queries), query_of[idx]),
        )
    # forest canopies and other area volumes crossed, on the lines that reach the target
    area = np.full(len(query_of), -1, dtype=np.int64)
    areas = world.area_ids
    seen_idx = np.flatnonzero((blocker < 0) & positive)
    if areas and len(seen_idx):
        area[seen_idx], _ = world.areas_crossed(
            starts[seen_idx], directions[seen_idx], lengths[seen_idx]
        )
    points = origins + directions * distance[:, None]
    return TracedRays(query_of, blocker, owners, area, areas, points)


def leave_observers(world: World, queries: Sequence, eyes: np.ndarray, directions: np.ndarray,
                    query_of: np.ndarray) -> np.ndarray:
    """(n,) distance along each ray (from its query's eye, eyes (q, 3)) at which it leaves its
    observer's volume (0 if outside)."""
    leave = np.zeros(len(query_of))
    observers = sorted({q.observer for q in queries if q.observer is not None})
    if not observers:
        return leave
    number = {name: k for k, name in enumerate(observers)}
    models = [world.models[name] for name in observers]
    observer_of = np.array([-1 if q.observer is None else number[q.observer] for q in queries],
                           dtype=np.int64)
    has_observer = observer_of >= 0
    # a query looking from its observer's own eye: the observer's one inside test
    own_eyes = np.array([m.eye for m in models]).reshape(-1, 3)
    at_own = has_observer & (eyes == own_eyes[np.maximum(observer_of, 0)]).all(axis=1)
    inside = np.zeros(len(queries), dtype=bool)
    inside[at_own] = np.array([m.eye_inside for m in models])[observer_of[at_own]]
    given = np.flatnonzero(has_observer & ~at_own)
    for k in np.unique(observer_of[given]):  # sight points given: one inside test per observer
        rows = given[observer_of[given] == k]
        inside[rows] = models[k].contains(eyes[rows])
    ray_observer = np.where(inside[query_of], observer_of[query_of], -1)
    rays = np.flatnonzero(ray_observer >= 0)
    if not len(rays):
        return leave
    # every ray in its observer's frame, then one engine call per volume and turn (models
    # of one shape share their volume's scene; a placed model turns about z only): each
    # query's sight point is moved once, each ray's direction turned by its group's matrix
    groups: dict[tuple, tuple[Any, np.ndarray, list[int]]] = {}
    for k, m in enumerate(models):
        scene = volume_scene(m.volume, None)
        turn = np.ascontiguousarray(m.transform[:2, :2], dtype=np.float64)
        groups.setdefault((id(scene), turn.tobytes()), (scene, turn, []))[2].append(k)
    group_of = np.full(len(models), -1, dtype=np.int64)
    for g, (_, _, ks) in enumerate(groups.values()):
        group_of[ks] = g
    positions = np.array([m.position for m in models], dtype=np.float64).reshape(-1, 3)
    local_eyes = np.zeros((len(queries), 3))
    ray_group = group_of[ray_observer[rays]]
    every = len(rays) == len(query_of)
    for g, (scene, turn, _) in enumerate(groups.values()):
        mine = has_observer & (group_of[np.maximum(observer_of, 0)] == g)
        local_eyes[mine] = _turned(eyes[mine] - positions[observer_of[mine]], turn)
        sel = rays if len(groups) == 1 else rays[ray_group == g]
        if len(sel):
            at = slice(None) if every and len(groups) == 1 else sel
            dist, geom = scene.first_hit(local_eyes[query_of[at]],
                                         _turned(directions[at], turn))
            leave[at] = np.where(geom >= 0, dist, 0.0)
    return leave


def _turned(points: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """(n, 3) points (or directions) turned by the transpose of a 2x2 matrix about z: a
    placed model's frame."""
    x, y = points[:, 0], points[:, 1]
    return np.column_stack([x * turn[0, 0] + y * turn[1, 0], x * turn[0, 1] + y * turn[1, 1],
                            points[:, 2]])


def skip_table(world: World, queries: Sequence) -> np.ndarray:
    """(q, k) model indices that may not block each query: observer, target, q.skip."""
    rows = []
    index = {m: world.model_index(m) for m in world.models}
    skips: dict[tuple, list[int]] = {}  # many queries skip the same models
    for q in queries:
        if q.skip not in skips:
            skips[q.skip] = [index[m] for m in q.skip if m in index]
        own = [index[m] for m in (q.target, q.observer) if m in index]
        rows.append(own[:1] + skips[q.skip] + own[1:])
    width = max(len(r) for r in rows)
    table = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        table[i, : len(r)] = r
    return table
