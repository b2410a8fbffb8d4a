"""MK II line of sight (wmh2 §5.1-§5.6): an existential search over straight lines from any
point of A's volume in its front arc to any point of B's volume.

A line passes when (step 2) it crosses no terrain in 3D (the standard volumes against the
terrain meshes, forests and clouds excepted), (step 3) its plan projection enters the base disc
of no intervening model whose base is at least as large as B's (after the elevation, Stealth,
Incorporeal and knocked-down exemptions), (§5.6) it passes at most 3" of a forest it starts or
ends in and never through one, and (step 4) it goes into or out of a cloud, never through.
Candidate lines are pairs of points on the two cylinders (rims at several heights, the
shoulder chord); they are tested all at once: terrain through one ray-engine occlusion call,
bases and clouds as numpy arrays. A coarse set is tried first, a dense one only if it finds
no line. The answer names the line that proves sight, or what stopped the lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from battlesight.geometry.ray import segments
from battlesight.geometry.world import World
from battlesight.rulesets.core.groups import groups_of

from .ambiguities import A1
from .bodies import Body
from .rules import ELEVATION_STEP, FOREST_DEPTH, TOL, beyond_stealth, gap, higher
from .terrain import TerrainIndex, terrain_index

RULE_LOS = "wmh2 §5.2"
RULE_ARC = "wmh2 §4"
RULE_ELEVATION = "wmh2 §5.4"
RULE_FOREST = "wmh2 §5.6"
END_TRIM = 1e-3  # keep segment ends off the volumes' skins and the ground
INSET = 1e-3
COARSE = (13, 24, 3)  # (front rim points of A, rim points of B, height levels)
DENSE = (25, 48, 4)


@dataclass(frozen=True)
class Cloud:
    """A cloud effect in play: a vertical cylinder over a plan disc (unbounded height unless
    `height`), blocking lines that pass through it (wmh2 §5.1 step 4, §5.6)."""

    id: str
    center: tuple[float, float]
    radius: float
    height: float | None = None


@dataclass
class Sight:
    """The MK II answer for one ordered pair (line of sight is not symmetric, wmh2 §5.2)."""

    observer: str
    target: str
    visible: bool
    rule: str
    reason: str
    line: np.ndarray | None = None
    lines: int = 0
    clear: int = 0
    blocked_by: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)
    in_arc: bool = True
    heights: tuple[float, float] = (0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        total = max(1, self.lines)
        return {
            "observer": self.observer, "target": self.target,
            "visible_by_rule": self.visible, "rule": self.rule, "reason": self.reason,
            "line": None if self.line is None else np.round(self.line, 4).tolist(),
            "in_front_arc": self.in_arc, "lines_tested": self.lines, "lines_clear": self.clear,
            "blocked_by": [{"id": k, "kind": self.kinds.get(k, ""), "share": round(v / total, 4)}
                           for k, v in sorted(self.blocked_by.items(), key=lambda kv: -kv[1])],
            "ignored_models": dict(self.ignored),
            "elevation": {"observer": round(self.heights[0], 4),
                          "target": round(self.heights[1], 4)},
        }


def exemption(a: Body, b: Body, m: Body, step: float = ELEVATION_STEP) -> str | None:
    """Why model m cannot stop a line from a to b, or None if it may (wmh2 §5.1 step 3, §5.4,
    §5.6, §8.5)."""
    if m.incorporeal:
        return "Incorporeal: never an intervening model (wmh2 §5.6)"
    if m.knocked_down:
        return "knocked down: does not block line of sight (wmh2 §8.5)"
    if m.stealth and beyond_stealth(gap(a.xy, a.radius, m.xy, m.radius)):
        return "Stealth, more than 5\" from the viewer (wmh2 §5.6)"
    if m.size < b.size:
        return f"{m.size_name} base, smaller than the target's (wmh2 §5.1 step 3)"
    if higher(a.z - b.z, step) and higher(a.z - m.z, step):
        if gap(m.xy, m.radius, b.xy, b.radius) > 1.0 + TOL:
            return "viewer 1\" higher; model 1\" lower and not within 1\" of the target " \
                   "(wmh2 §5.4)"
        if m.size <= a.size:
            return "viewer 1\" higher; model 1\" lower with a base no larger than the " \
                   "viewer's (wmh2 §5.4)"
    if higher(b.z - a.z, step) and higher(b.z - m.z, step):
        return "viewer 1\" lower; model 1\" lower than the target (wmh2 §5.4)"
    return None


def _near_corridor(a: Body, b: Body, m: Body) -> bool:
    """Whether m's base can touch any line between a's and b's bases (all of them lie within
    max(ra, rb) of the segment between the two centres)."""
    d = b.xy - a.xy
    t = float(np.clip((m.xy - a.xy) @ d / max(float(d @ d), 1e-12), 0.0, 1.0))
    off = float(np.linalg.norm(m.xy - (a.xy + t * d)))
    return off < max(a.radius, b.radius) + m.radius + 1e-6


def _levels(body: Body, n: int) -> np.ndarray:
    lo, hi = body.z + 0.02, body.top - INSET
    return np.linspace(lo, hi, n) if n > 1 else np.array([hi])


def _ring(body: Body, angles: np.ndarray, levels: np.ndarray) -> np.ndarray:
    r = body.radius - INSET
    xy = body.xy + r * np.column_stack([np.cos(angles), np.sin(angles)])
    return np.concatenate([np.column_stack([xy, np.full(len(xy), z)]) for z in levels])


def _chord(center: np.ndarray, direction: np.ndarray, half: float, count: int,
           levels: np.ndarray) -> np.ndarray:
    t = np.linspace(-half, half, count)
    xy = center + t[:, None] * direction
    return np.concatenate([np.column_stack([xy, np.full(len(xy), z)]) for z in levels])


def viewer_points(a: Body, n_rim: int, n_levels: int) -> np.ndarray:
    """(k, 3) points of the front half of a's volume (the whole rim for a 360 degree arc)."""
    levels = _levels(a, n_levels)
    if a.arc >= 360.0:
        angles = np.linspace(0, 2 * np.pi, 2 * n_rim, endpoint=False)
        return np.vstack([_ring(a, angles, levels), np.column_stack(
            [np.tile(a.xy, (len(levels), 1)), levels])])
    ahead = np.arctan2(a.forward[1], a.forward[0])
    angles = ahead + np.linspace(-np.pi / 2, np.pi / 2, n_rim)
    side = np.array([a.forward[1], -a.forward[0]])
    return np.vstack([_ring(a, angles, levels),
                      _chord(a.xy, side, a.radius - INSET, 5, levels)])


def target_points(a: Body, b: Body, n_rim: int, n_levels: int) -> np.ndarray:
    """(k, 3) points of b's volume in a's front half-space (rim, axis, and the part of the
    shoulder line that crosses b's base)."""
    levels = _levels(b, n_levels)
    angles = np.linspace(0, 2 * np.pi, n_rim, endpoint=False)
    pts = [_ring(b, angles, levels),
           np.column_stack([np.tile(b.xy, (len(levels), 1)), levels])]
    if a.arc < 360.0:
        side = np.array([a.forward[1], -a.forward[0]])
        d = float((b.xy - a.xy) @ a.forward)
        if abs(d) < b.radius:
            half = np.sqrt(b.radius**2 - d * d) - INSET
            foot = b.xy - d * a.forward
            pts.append(_chord(foot, side, half, 5, levels))
    q = np.vstack(pts)
    return q[a.in_front(q)]


def crosses_discs(p: np.ndarray, q: np.ndarray, centers: np.ndarray,
                  radii: np.ndarray) -> np.ndarray:
    """(L, K) bool: plan segment p_i -> q_i enters the open disc k (tangency does not count,
    wmh2 §5.2 A6)."""
    if len(centers) == 0:
        return np.zeros((len(p), 0), dtype=bool)
    d = q[:, None, :2] - p[:, None, :2]
    w = centers[None, :, :] - p[:, None, :2]
    dd = np.maximum(np.einsum("lkj,lkj->lk", d, d), 1e-30)
    t = np.clip(np.einsum("lkj,lkj->lk", w, d) / dd, 0.0, 1.0)
    off = w - t[..., None] * d
    return np.einsum("lkj,lkj->lk", off, off) < (radii[None, :] - 1e-6) ** 2


def _areas(index: TerrainIndex, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(L,) bool: lines stopped by a forest (more than 3" inside, or through it) or a cloud
    piece (through it); and the id of the area that stopped each (or '')."""
    blocked = np.zeros(len(p), dtype=bool)
    who = [""] * len(p)
    if not index.areas or not len(p):
        return blocked, who
    inside, start_in, end_in = index.area_lengths(p, q)
    for k, area in enumerate(index.areas):
        crossed = inside[:, k] > 1e-6
        through = crossed & ~start_in[:, k] & ~end_in[:, k]
        deep = crossed & (inside[:, k] > FOREST_DEPTH + 1e-6) if area.forest else \
            np.zeros(len(p), dtype=bool)
        stop = (through | deep) & ~blocked
        for i in np.flatnonzero(stop):
            who[i] = area.id
        blocked |= stop
    return blocked, who


def _clouds(clouds: list[Cloud], p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, list[str]]:
    blocked = np.zeros(len(p), dtype=bool)
    who = [""] * len(p)
    for c in clouds:
        center = np.asarray(c.center, float)[None]
        cross = crosses_discs(p, q, center, np.array([c.radius]))[:, 0]
        if c.height is not None:
            cross &= np.minimum(p[:, 2], q[:, 2]) < c.height
        p_in = np.hypot(*(p[:, :2] - center).T) < c.radius
        q_in = np.hypot(*(q[:, :2] - center).T) < c.radius
        stop = cross & ~p_in & ~q_in & ~blocked
        for i in np.flatnonzero(stop):
            who[i] = c.id
        blocked |= stop
    return blocked, who


def _pairs(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.repeat(p, len(q), axis=0), np.tile(q, (len(p), 1))


def _judge_many(index: TerrainIndex, batch: list[tuple[Body, list[Body], np.ndarray,
                                                     np.ndarray]],
                clouds: list[Cloud]) -> list[dict[str, Any]]:
    """Every step for every line of every pair of a batch (viewer, intervening models, line
    starts, line ends): which pass and who stopped each. Terrain is one occlusion call (and
    one first-hit call for the blocked lines) for the whole batch, forests and clouds one walk
    each; bases are plan tests per pair."""
    sizes = [len(p) for _, _, p, _ in batch]
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    p = np.concatenate([p for _, _, p, _ in batch]) if batch else np.zeros((0, 3))
    q = np.concatenate([q for _, _, _, q in batch]) if batch else np.zeros((0, 3))
    d, length = segments(p, q)
    start = p + d * END_TRIM
    span = np.maximum(length - 2 * END_TRIM, 0.0)
    # one first-hit call says both whether terrain stops each line and which piece (most
    # lines of a table are stopped: an occlusion call first would cast them twice)
    stopped = index.first_owner(start, d, span)
    hit = stopped != ""
    ok = ~hit
    looks = np.zeros(len(p), dtype=bool)  # lines of viewers with eyes (forests, clouds)
    for k, (a, blockers, _, _) in enumerate(batch):
        lo, hi = bounds[k], bounds[k + 1]
        looks[lo:hi] = not a.eyeless
        if not blockers:
            continue
        pk, qk = p[lo:hi], q[lo:hi]
        centers = np.array([m.xy for m in blockers])
        radii = np.array([m.radius for m in blockers])
        cross = crosses_discs(pk, qk, centers, radii)
        if A1.means("every-line"):  # only a model whose base every line crosses intervenes
            cross = cross & cross.all(axis=0)[None, :]
        any_cross = cross.any(axis=1)
        if any_cross.any():
            # the first base along the line is the one named
            along = ((centers[None] - pk[:, None, :2]) * (qk - pk)[:, None, :2]).sum(axis=2)
            along = np.where(cross, along, np.inf)
            first = np.argmin(along, axis=1)
            idx = np.flatnonzero(any_cross & ok[lo:hi])
            stopped[lo + idx] = np.array([m.id for m in blockers], dtype=object)[first[idx]]
        ok[lo:hi] &= ~any_cross
    for stop_of in (lambda a, b: _areas(index, a, b), lambda a, b: _clouds(clouds, a, b)):
        sub = np.flatnonzero(ok & looks)
        stop, who = stop_of(p[sub], q[sub])
        stopped[sub[stop]] = [w for w, x in zip(who, stop, strict=True) if x]
        ok[sub[stop]] = False
    return [{"ok": ok[bounds[k]:bounds[k + 1]], "stopped": stopped[bounds[k]:bounds[k + 1]]}
            for k in range(len(batch))]


def line_of_sight(world: World, all_bodies: dict[str, Body], observer: str, target: str,
                  clouds: list[Cloud] | None = None, step: float = ELEVATION_STEP,
                  dense: bool = True) -> Sight:
    """Can `observer` see `target` under the MK II rule (wmh2 §5.2)?"""
    return lines_of_sight(world, all_bodies, [(observer, target)], clouds, step, dense)[0]


def lines_of_sight(world: World, all_bodies: dict[str, Body], pairs: list[tuple[str, str]],
                   clouds: list[Cloud] | None = None, step: float = ELEVATION_STEP,
                   dense: bool = True, models_block: bool = True) -> list[Sight]:
    """`line_of_sight` for many ordered pairs: the coarse lines of every pair in one batch,
    then the dense lines of the pairs the coarse ones could not prove, in another.
    `models_block=False`: only terrain and clouds block (a spray ignores intervening models,
    wmh2 §9.2)."""
    index = terrain_index(world)
    out: list[Sight | None] = [None] * len(pairs)
    prep: dict[int, tuple[Body, Body, list[Body], dict[str, str]]] = {}
    for i, (observer, target) in enumerate(pairs):
        a, b = all_bodies[observer], all_bodies[target]
        if not a.faces(b):
            out[i] = Sight(observer, target, False, RULE_ARC, f"{target} is entirely behind "
                           f"{observer}'s shoulder line (outside its front arc)",
                           in_arc=False, heights=(a.z, b.z))
            continue
        ignored: dict[str, str] = {}
        blockers: list[Body] = []
        for mid, m in all_bodies.items():
            if mid in (observer, target) or not models_block or not _near_corridor(a, b, m):
                continue
            why = exemption(a, b, m, step)
            if why is None:
                blockers.append(m)
            else:
                ignored[mid] = why
        prep[i] = (a, b, blockers, ignored)
    found: dict[int, tuple[dict[str, Any], np.ndarray, np.ndarray]] = {}
    pending = list(prep)
    for n_a, n_b, n_lv in (COARSE, DENSE) if dense else (COARSE,):
        batch, ids = [], []
        for i in pending:
            a, b, blockers, _ = prep[i]
            pts_a, pts_b = viewer_points(a, n_a, n_lv), target_points(a, b, n_b, n_lv)
            if len(pts_b):
                p, q = _pairs(pts_a, pts_b)
                batch.append((a, blockers, p, q))
                ids.append(i)
        for i, result, (_, _, p, q) in zip(ids, _judge_many(index, batch, clouds or []),
                                           batch, strict=True):
            found[i] = (result, p, q)
        pending = [i for i in ids if not found[i][0]["ok"].any()]
    for i, (a, b, _, ignored) in prep.items():
        out[i] = _sight(world, pairs[i], a, b, ignored, *found[i]) if i in found else Sight(
            pairs[i][0], pairs[i][1], False, RULE_ARC, f"no point of {pairs[i][1]}'s volume "
            f"lies in {pairs[i][0]}'s front arc", in_arc=False, heights=(a.z, b.z))
    return out


def _sight(world: World, pair: tuple[str, str], a: Body, b: Body, ignored: dict[str, str],
           result: dict[str, Any], p: np.ndarray, q: np.ndarray) -> Sight:
    """The Sight of one pair from the judged lines: the line that proves it, or what stopped
    every line."""
    observer, target = pair
    ok, stopped = result["ok"], result["stopped"]
    names, first_at, tally = np.unique(stopped[~ok].astype(str), return_index=True,
                                       return_counts=True)
    order = np.argsort(first_at)  # in the order the lines met them, as ties are broken
    groups = groups_of(world)  # a grouped piece is named once, its shapes' lines together
    counts: dict[str, int] = {}
    kinds: dict[str, str] = {}  # a group's kind: that of its shape that stopped a line first
    for i in order:
        k = str(names[i])
        name = groups.piece_of(k)
        counts[name] = counts.get(name, 0) + int(tally[i])
        kinds.setdefault(name, world.kind_of(k) if (k in world.terrain or k in world.models)
                         else ("terrain" if not k else "cloud"))
    sight = Sight(observer, target, bool(ok.any()), RULE_LOS, "", None, len(ok),
                  int(ok.sum()), counts, kinds, ignored, True, (a.z, b.z))
    if sight.visible:
        sight.line = _best_line(a, b, p[ok], q[ok])
        sight.reason = (f"a line from {observer}'s volume in its front arc reaches "
                        f"{target}'s volume crossing no terrain, no base of a {b.size_name} or "
                        f"larger intervening model and no forest or cloud it may not cross")
    else:
        parts = ", ".join(f"{k} ({kinds[k]}) {v / len(ok):.0%}" for k, v in
                          sorted(counts.items(), key=lambda kv: -kv[1]))
        sight.reason = f"every line from {observer} to {target} is blocked: {parts}"
        main = kinds[max(counts, key=lambda k: counts[k])]
        sight.rule = {"model": "wmh2 §5.1", "forest": RULE_FOREST, "cloud": RULE_FOREST}.get(
            main, RULE_LOS)
    return sight


def _best_line(a: Body, b: Body, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The passing line nearest the two axes and tops (a stable line to draw)."""
    score = (np.hypot(*(p[:, :2] - a.xy).T) + np.hypot(*(q[:, :2] - b.xy).T)
             + 0.25 * ((a.top - p[:, 2]) + (b.top - q[:, 2])))
    i = int(np.argmin(score))
    return np.array([p[i], q[i]])

