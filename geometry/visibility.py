"""How much of a target model an eye sees, and what hides the rest.

For each query the target's silhouette, as the eye sees it, is sampled uniformly over its
projected area (see `sampling`); each sample ray is cast at the target alone to find where it
meets the target, and the segment from the point where the ray leaves the observer's own volume
to just short of that point is tested against everything else. The first blocker along a
blocked segment is the piece or model that hides that share of the target.

All queries of a call go to the ray engine together: one call per distinct target for the
silhouette rays, one per observer volume and turn for leaving the observers, and one for all
segments (`sight_trace`).
Two passes over one sample sequence: the first FIRST_PASS_SAMPLES samples of every query, then
the rest only for the queries whose first samples were not all hidden (the visible share keeps
its 0.02 error bound: tests/test_visibility_fast.py). Queries asking the same of the same
target from the same eye share their silhouette samples.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

import numpy as np

from .placed import first_hits_at
from .sampling import ViewWindows, view_windows
from .sight_trace import TracedRays, trace
from .world import World

#: Samples on the silhouette by default: keeps the error of the visible fraction under 0.02
#: (worst seen 0.010 over 144 wall sweeps against the closed-form reference in
#: tests/test_visibility_analytic.py).
DEFAULT_SAMPLES = 400
_MAX_RAYS_PER_QUERY = 40_000
_CHUNK_QUERIES = 8_000
#: Widest angle (radians) between neighbouring samples on a large, close target.
ANGULAR_SPACING = 0.02
_MAX_SAMPLE_FACTOR = 4


@dataclass
class SightQuery:
    """One line-of-sight question.

    observer: model id whose eye looks (its own volume never blocks); may be None with `eye`.
    target:   model id looked at.
    eye:      (3,) sight point; defaults to the observer's eye.
    parts:    target part labels that count as the target (None: the whole volume).
    skip:     further model ids that do not block this line (a ruleset's choice).
    samples:  silhouette samples wanted.
    """

    observer: str | None
    target: str
    eye: np.ndarray | None = None
    parts: frozenset[str] | None = None
    skip: tuple[str, ...] = ()
    samples: int = DEFAULT_SAMPLES


@dataclass
class Visibility:
    """The answer to a SightQuery.

    points:     (m, 3) sample points on the target's surface.
    blocker_of: (m,) int index into owners of each sample's first blocker, -1 where seen.
    area_of:    (m,) int index into areas of the first area volume (forest) crossed on the
                line to each seen sample, -1 none (and for hidden samples).
    """

    observer: str | None
    target: str
    eye: np.ndarray
    visible: bool
    visible_fraction: float
    blockers: dict[str, float]
    through: dict[str, float]
    rays: int
    points: np.ndarray = field(repr=False)
    blocker_of: np.ndarray = field(repr=False)
    owners: list[str] = field(repr=False)
    area_of: np.ndarray = field(repr=False)
    areas: list[str] = field(repr=False)
    #: samples counted, where the per-sample arrays were let go (`summary`)
    sample_count: int | None = field(default=None, repr=False)

    @property
    def samples(self) -> int:
        return len(self.points) if self.sample_count is None else self.sample_count

    def summary(self) -> Visibility:
        """This answer without its per-sample arrays (points, blocker and area of each
        sample): the fractions, shares and counts only, the same `to_dict`, for holding the
        answers of many pairs (`Battlefield.who_sees_whom`)."""
        return replace(self, points=np.zeros((0, 3)), blocker_of=np.zeros(0, np.int64),
                       area_of=np.zeros(0, np.int64), sample_count=self.samples)

    @property
    def obscured_fraction(self) -> float:
        return 1.0 - self.visible_fraction

    def to_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "observer": self.observer,
            "target": self.target,
            "visible": self.visible,
            "visible_fraction": round(self.visible_fraction, 4),
            "blockers": [{"id": k, "fraction": round(v, 4)} for k, v in self.blockers.items()],
            "through": [{"id": k, "fraction": round(v, 4)} for k, v in self.through.items()],
            "rays": self.rays,
            "samples": self.samples,
        }


def visibility(world: World, observer: str | None, target: str, **options) -> Visibility:
    """Visibility of target from observer's eye; options are SightQuery's fields."""
    return visibility_many(world, [SightQuery(observer, target, **options)])[0]


def points_to_target(
    world: World, sight_points: np.ndarray, target: str, observer: str | None = None, **options
) -> list[Visibility]:
    """Visibility of target from each of sight_points (p, 3), in one batch."""
    queries = [
        SightQuery(observer, target, eye=np.asarray(p, dtype=np.float64), **options)
        for p in np.atleast_2d(sight_points)
    ]
    return visibility_many(world, queries)


def visibility_many(world: World, queries: list[SightQuery]) -> list[Visibility]:
    """Answer many queries with a few batched ray-engine calls per stage.

    Two passes over the same sample sequence: the first FIRST_PASS_SAMPLES samples of every
    query, then the rest of the sequence only for the queries the first pass did not settle
    (`_settled`). Queries are taken in chunks of about _CHUNK_QUERIES so memory stays bounded.
    """
    # by target, so that a chunk holds whole groups (one engine call per target and pass)
    # and the queries that share their samples meet in one chunk
    parts_key: dict[frozenset[str] | None, str] = {}  # str of a frozenset is slow: once each
    order = sorted(range(len(queries)), key=lambda i: (
        queries[i].target, parts_key.get(queries[i].parts)
        or parts_key.setdefault(queries[i].parts, str(queries[i].parts))))
    results: list[Visibility] = [None] * len(queries)  # type: ignore[list-item]
    for lo in range(0, len(queries), _CHUNK_QUERIES):
        rows = order[lo : lo + _CHUNK_QUERIES]
        chunk = [queries[i] for i in rows]
        eyes = np.array(
            [world.models[q.observer].eye if q.eye is None else q.eye for q in chunk],
            dtype=np.float64,
        ).reshape(-1, 3)
        first = _silhouette_samples(world, chunk, eyes, FIRST_PASS_SAMPLES)
        rays = _trace(world, chunk, eyes, first)
        rest = np.flatnonzero(~_settled(first, rays))
        if len(rest):
            sub = [chunk[i] for i in rest]
            more = _silhouette_samples(world, sub, eyes[rest], None, first.take(rest))
            rays = rays.join(_trace(world, sub, eyes[rest], more), rest)
            first.cast[rest] = more.cast
        for i, answer in zip(rows, _summarise(chunk, eyes, rays, first.cast), strict=True):
            results[i] = answer
    return results


#: Samples of the first pass; a query whose first-pass samples are all hidden is settled by
#: them (tests/test_visibility_fast.py: within 0.02 of the full sample).
FIRST_PASS_SAMPLES = 96


@dataclass
class _Samples:
    """Sample rays that met their target, sorted by query: query_of (m,), directions (m, 3),
    distance to the target (m,), sizes (q,) samples per query, cast (q,) window rays cast
    so far, wanted (q,) samples the full pass aims for."""

    query_of: np.ndarray
    directions: np.ndarray
    distance: np.ndarray
    sizes: np.ndarray
    cast: np.ndarray
    wanted: np.ndarray

    def take(self, rows: np.ndarray) -> _Samples:
        """The per-query counts of the given queries only (their rays are left out)."""
        return _Samples(np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros(0), self.sizes[rows],
                        self.cast[rows].copy(), self.wanted[rows])


def _silhouette_samples(world: World, queries: list[SightQuery], eyes: np.ndarray,
                        first: int | None, begun: _Samples | None = None) -> _Samples:
    """Cast each query's window rays at its target alone (one engine call per target and
    cast), extending the sequence where too few rays met the target.

    The samples wanted grow with the target's angular size (at most ANGULAR_SPACING radians
    apart, up to _MAX_SAMPLE_FACTOR times the query's count), so a large, close target is seen
    in as much detail as a distant one. first: aim for at most this many samples (the first
    pass); begun: the first pass's counts, whose sequences this pass continues up to the full
    count. The counts and the directions of every target's rays are worked out in one numpy
    batch per cast, only the engine is called per target (`_cast_windows`)."""
    rep = _same_samples(queries, eyes)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, q in enumerate(queries):
        if rep[i] == i:
            groups[(q.target, q.parts)].append(i)
    cast = np.zeros(len(queries), dtype=np.int64) if begun is None else begun.cast.copy()
    wanted_all = np.zeros(len(queries), dtype=np.int64)
    found_q, found_d, found_t = [], [], []
    asked = np.array([q.samples for q in queries], dtype=np.int64)
    windows = _group_windows(world, groups, eyes)  # one row per member, group after group
    rows = np.array([i for members in groups.values() for i in members], dtype=np.int64)
    spans = np.cumsum([0] + [len(members) for members in groups.values()])
    scenes = [world.models[target].part_scene(parts) for target, parts in groups]
    wanted = _samples_wanted(asked[rows], windows)
    wanted_all[rows] = wanted
    cast_at = (scenes, spans, windows, rows, cast, found_q, found_d, found_t)
    if begun is None:
        aim = wanted if first is None else np.minimum(wanted, first)
        got = _cast_windows(*cast_at, 0, aim)
        done = aim
    else:
        # go on from where the first pass stopped: rows it found nothing of get the rest
        # of their first `wanted` rays, then every row extends at the fill rate it met
        aim, got, done = wanted, begun.sizes[rows].copy(), begun.cast[rows].copy()
        empty = (got == 0) & (done < aim)
        if empty.any():
            got = np.where(empty, _cast_windows(*cast_at, done, np.where(empty, aim - done, 0)),
                           got)
            done = np.where(empty, aim, done)
    fill = np.maximum(got, 1) / done
    extra = np.ceil(aim / fill).astype(np.int64) - done
    extra = np.clip(extra, 0, _MAX_RAYS_PER_QUERY - done)
    extra[(got >= aim) | (got == 0)] = 0
    if extra.any():  # rows continue the sequence where their own earlier casts stopped
        _cast_windows(*cast_at, done, extra)
    query_of = np.concatenate(found_q) if found_q else np.zeros(0, np.int64)
    order = np.argsort(query_of, kind="stable")
    directions = np.concatenate(found_d)[order] if found_d else np.zeros((0, 3))
    distance = np.concatenate(found_t)[order] if found_t else np.zeros(0)
    sizes = np.bincount(query_of, minlength=len(queries))
    if (rep != np.arange(len(queries))).any():
        # queries asking the same of the same target share the representative's samples
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        sizes = sizes[rep]
        take = np.repeat(bounds[rep] - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
        take += np.arange(int(sizes.sum()))
        directions, distance = directions[take], distance[take]
        cast, wanted_all = cast[rep], wanted_all[rep]
    return _Samples(
        query_of=np.repeat(np.arange(len(queries)), sizes),
        directions=directions,
        distance=distance,
        sizes=sizes,
        cast=cast,
        wanted=wanted_all,
    )


#: (eye, vertex) entries of one batch of view windows (`_group_windows`), memory bound
_WINDOW_BATCH = 2_000_000


def _group_windows(world: World, groups: dict[tuple, list[int]], eyes: np.ndarray
                   ) -> ViewWindows:
    """The view windows of every (target, parts) group's eyes, one row per member, group after
    group, in few numpy batches (one call per group cost more in overhead than in work for the
    many small groups of one observer's queries): the same windows as `view_windows` of each
    group alone."""
    keys = list(groups)
    vertices = [world.models[t].part_vertices(parts) for t, parts in keys]
    batches: list[ViewWindows] = []
    lo = 0
    while lo < len(keys):
        hi, width, rows = lo, 0, 0
        while hi < len(keys) and (hi == lo or (rows + len(groups[keys[hi]])) * max(
                width, len(vertices[hi])) <= _WINDOW_BATCH):
            width = max(width, len(vertices[hi]))
            rows += len(groups[keys[hi]])
            hi += 1
        padded = np.empty((rows, width, 3))
        at = 0
        for k in range(lo, hi):
            v, n = vertices[k], len(groups[keys[k]])
            padded[at:at + n, :len(v)] = v
            padded[at:at + n, len(v):] = v[0]  # a repeated vertex moves no bound
            at += n
        batches.append(view_windows(
            eyes[np.concatenate([groups[keys[k]] for k in range(lo, hi)])], padded))
        lo = hi
    return batches[0] if len(batches) == 1 else ViewWindows.concatenate(batches)


def _same_samples(queries: list[SightQuery], eyes: np.ndarray) -> np.ndarray:
    """(q,) index of the first query with the same target, parts, eye and sample count as
    each query (the silhouette samples depend on nothing else: e.g. a verdict's plain line
    and its rule line from the same eye)."""
    key: dict[tuple, int] = {}
    return np.array([key.setdefault((q.target, q.parts, q.samples, eyes[i].tobytes()), i)
                     for i, q in enumerate(queries)], dtype=np.int64)


def _samples_wanted(asked: np.ndarray, windows) -> np.ndarray:
    """(g,) samples to aim for: the asked count, raised for windows wider than
    ANGULAR_SPACING allows (the whole-sphere fallback keeps the asked count)."""
    most = np.asarray(asked) * _MAX_SAMPLE_FACTOR
    with np.errstate(invalid="ignore", over="ignore"):  # a degenerate window (bases touching)
        area = np.prod(windows.hi - windows.lo, axis=1)
    area = np.where(np.isfinite(area), area, 0.0)  # ... keeps the asked count, as a wide one
    by_angle = np.ceil(np.minimum(area / ANGULAR_SPACING**2, most)).astype(np.int64)
    wanted = np.clip(by_angle, asked, most)
    return np.where(windows.wide, asked, wanted)


def _cast_windows(scenes, spans, windows, rows, cast, found_q, found_d, found_t, start, counts
                  ) -> np.ndarray:
    """Cast counts[i] rays of windows row i (its sequence from start, one for all rows or
    (g,)), each group's rows (spans[k]:spans[k + 1]) at its own target's scenes[k]; keep the
    hits. The directions of all rows are worked out in one batch (each ray on its own, so the
    same as row by row), and the targets of one volume take theirs in one engine call
    (`first_hits_at`). Returns (g,) hits per row."""
    counts = np.broadcast_to(np.asarray(counts, dtype=np.int64), rows.shape)
    flat_dirs = windows.ragged_directions(start, counts)
    origins = np.repeat(windows.eyes, counts, axis=0)
    bounds = np.concatenate([[0], np.cumsum(counts)])[spans]
    dist, geom = first_hits_at(scenes, np.diff(bounds), origins, flat_dirs)
    hit = geom >= 0
    cast[rows] += counts
    found_q.append(np.repeat(rows, counts)[hit])
    found_d.append(flat_dirs[hit])
    found_t.append(dist[hit])
    return np.bincount(np.repeat(np.arange(len(rows)), counts)[hit], minlength=len(rows))


def _settled(samples: _Samples, rays: TracedRays) -> np.ndarray:
    """(q,) bool: queries the first pass answers: nothing more to cast, or samples that are all
    hidden (most pairs of a table). A target all of whose first samples are seen still gets
    the full sample: its sample points, cover shares and counts are those of the full pass."""
    m = samples.sizes
    seen = np.bincount(rays.query_of, weights=rays.blocker < 0, minlength=len(m))
    return (m >= samples.wanted) | ((m > 0) & (seen == 0))


def _trace(world: World, queries: list[SightQuery], eyes: np.ndarray,
           samples: _Samples) -> TracedRays:
    """`sight_trace.trace` of the samples' rays."""
    return trace(world, queries, eyes, samples.query_of, samples.directions, samples.distance)


def _summarise(queries: list[SightQuery], eyes: np.ndarray, rays: TracedRays,
               cast: np.ndarray) -> list[Visibility]:
    """One Visibility per query from its traced rays and its count of window rays cast."""
    query_of, blocker, area = rays.query_of, rays.blocker, rays.area
    blockers = _shares(query_of, blocker, rays.owners, len(queries))
    through = _shares(query_of, area, rays.areas, len(queries))
    sizes = np.bincount(query_of, minlength=len(queries))
    seen = np.bincount(query_of, weights=blocker < 0, minlength=len(queries))
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    results = []
    for i, q in enumerate(queries):
        lo, hi = bounds[i], bounds[i + 1]
        m = hi - lo
        results.append(
            Visibility(
                observer=q.observer, target=q.target, eye=eyes[i], visible=bool(seen[i] > 0),
                visible_fraction=float(seen[i] / m) if m else 0.0, blockers=blockers[i],
                through=through[i], rays=int(cast[i] + m), points=rays.points[lo:hi],
                blocker_of=blocker[lo:hi], owners=rays.owners, area_of=area[lo:hi],
                areas=rays.areas,
            )
        )
    return results


def _shares(query_of, owner_of, names, n_queries) -> list[dict[str, float]]:
    """Per query, {name: share of its samples} for the owner index of each sample (-1 none),
    largest first."""
    out: list[dict[str, float]] = [{} for _ in range(n_queries)]
    mask = owner_of >= 0
    if not mask.any():
        return out
    width = len(names)
    keys, counts = np.unique(query_of[mask] * width + owner_of[mask], return_counts=True)
    sizes = np.bincount(query_of, minlength=n_queries)
    order = np.lexsort((-counts, keys // width))
    for key, count in zip(keys[order], counts[order], strict=True):
        q = int(key // width)
        out[q][names[int(key % width)]] = float(count / sizes[q])
    return out
