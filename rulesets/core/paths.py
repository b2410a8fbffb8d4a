"""Movement by paths: one model's move checked along its whole length, for every system.

`check_path(board, model, path, allowance, rules)` walks the straight legs from where the model
stands through `path` (the end point alone, or waypoints) and answers how far it gets and at
what chance: the bases it would cross, the impassable pieces it would enter, the difficult and
dangerous pieces it enters, the height it climbs where the system's seed counts it, and the
enemies it would come too near. A system says what its seed counts in a `PathRules`; `play`,
the window's drags and the move planner all ask this one function.

Units: inches on the table plan (x, y), z up; distances along the path are plan inches plus the
vertical inches the system counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from battlesight.geometry import planar

from .dice import Dist
from .measure import Outline
from .moves import Dest, outline_at

if TYPE_CHECKING:
    from battlesight.geometry.placed import TerrainEntry

    from .board import Board

#: inches between the samples a path is checked at
STEP = 0.05
#: overlap below this (inches) is base contact, not crossing
TOUCH = 0.02
#: models whose bases stand this far apart in height are on different levels (a ruin floor)
LEVEL = 1.0


def _never(entry: TerrainEntry) -> bool:
    return False


def no_climb(board: Board, model: str, start: Outline, end: Outline, floor: int | None,
             waypoints: np.ndarray) -> float:
    """Vertical inches a system that measures in plan counts: none."""
    return 0.0


@dataclass(frozen=True)
class PathRules:
    """What a system's seed checks along a move, and the sections it cites.

    enemy_gap: inches kept from enemy models (not those in `may_near`); 0 for none.
    enemy_gap_whole_path: the gap holds at every point of the path (40k "不能移动到敌方模型
        周围的1英寸内", AoS normal moves), else only where the move ends (AoS retreats).
    enemy_gap_inclusive: exactly `enemy_gap` away is too near (AoS "3 英寸范围外": outside 3").
    climb(board, model, start, end, floor, waypoints) -> vertical inches counted in the
        distance (start and end outlines, the end's floor, the (k, 2) waypoints from the start).
    over_models(profile): the model passes over other models' bases (flyers, jump packs).
    difficult_roll(profile): the dice whose result caps a move that enters or starts in
        difficult terrain (40k: 2D6 keep the highest), None where terrain does not slow it.
    """

    system: str
    rule_move: str
    rule_bases: str
    rule_impassable: str
    rule_enemy: str = ""
    rule_difficult: str = ""
    enemy_gap: float = 0.0
    enemy_gap_whole_path: bool = True
    enemy_gap_inclusive: bool = False
    climb: Callable[[Board, str, Outline, Outline, int | None, np.ndarray], float] = no_climb
    impassable: Callable[[TerrainEntry], bool] = _never
    difficult: Callable[[TerrainEntry], bool] = _never
    dangerous: Callable[[TerrainEntry], bool] = _never
    over_models: Callable[[Any], bool] = lambda profile: False
    difficult_roll: Callable[[Any], Dist | None] = lambda profile: None


@dataclass(frozen=True)
class MoveCheck:
    """One model's move along a path.

    allowed:  the whole path may be moved (before any dice); False names `rule` and `blocker`.
    reach:    plan inches along the path the model gets before what stops it (the whole plan
              length when allowed).
    chance:   exact probability (a Fraction) that the dice let it finish the path: 1 with no
              dice, P(2D6 keep the highest >= used) entering 40k difficult terrain, 0 refused.
    used:     inches the path costs: plan length plus the vertical inches counted.
    left:     allowance - used (negative when the path is too long).
    rule:     the section that decided (system and section, e.g. "wh40k6 §7.2").
    blocker:  the model id or terrain piece that blocked, None when none did.
    reason:   one sentence a player can check.
    end:      plan point (x, y) where the model stands at `reach`.
    climb:    vertical inches counted in `used`.
    difficult, dangerous: pieces (group names) the path starts in or enters, in path order.
    """

    allowed: bool
    reach: float
    chance: Fraction
    used: float
    left: float
    rule: str
    blocker: str | None = None
    reason: str = ""
    end: tuple[float, float] = (0.0, 0.0)
    climb: float = 0.0
    difficult: tuple[str, ...] = ()
    dangerous: tuple[str, ...] = ()
    geometry: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.allowed

    def to_dict(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "reach": round(self.reach, 4),
                "chance": float(self.chance), "used": round(self.used, 4),
                "left": round(self.left, 4), "rule": self.rule, "blocker": self.blocker,
                "reason": self.reason, "end": [round(v, 4) for v in self.end],
                "climb": round(self.climb, 4), "difficult": list(self.difficult),
                "dangerous": list(self.dangerous)}


def _samples(waypoints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points every STEP along the legs (the start first, each waypoint included) and their
    plan distance along the path."""
    pts, along, run = [waypoints[:1]], [np.zeros(1)], 0.0
    for a, b in zip(waypoints[:-1], waypoints[1:], strict=True):
        leg = float(np.linalg.norm(b - a))
        n = max(1, math.ceil(leg / STEP))
        t = np.linspace(0.0, 1.0, n + 1)[1:]
        pts.append(a + t[:, None] * (b - a))
        along.append(run + t * leg)
        run += leg
    return np.vstack(pts), np.concatenate(along)


def _point_at(pts: np.ndarray, along: np.ndarray, s: float) -> tuple[float, float]:
    x = float(np.interp(s, along, pts[:, 0]))
    y = float(np.interp(s, along, pts[:, 1]))
    return x, y


@dataclass(frozen=True)
class Crowd:
    """The other models a move must keep clear of, as arrays (m models): ids, outlines,
    which are enemies it must keep away from, centres (m, 2), radii (m,) of round bases
    (NaN for hulls and ovals, measured through shapely) and base heights z (m,). Built by
    `crowd` once per (model, movers, may_near) and reused across many `check_path` calls
    while nothing else moves (the move planner's thousands of cells)."""

    ids: tuple[str, ...]
    outlines: tuple[Outline, ...]
    enemy: np.ndarray
    centres: np.ndarray
    radii: np.ndarray
    z: np.ndarray


def crowd(board: Board, model: str, movers: Collection[str] = (),
          may_near: Collection[str] = ()) -> Crowd:
    """Every other model on the table not in `movers`; enemies not in `may_near` units."""
    player = board.model(model).player
    ids, outlines, enemy = [], [], []
    for other, state in board.models.items():
        if other == model or other in movers or not state.alive or not state.on_table:
            continue
        ids.append(other)
        outlines.append(board.outline(other))
        enemy.append(state.player != player and state.unit not in may_near)
    centres = np.asarray([o.center for o in outlines], float).reshape(-1, 2)
    radii = np.asarray([o.radii[0] if o.is_circle else np.nan for o in outlines], float)
    z = np.asarray([o.z for o in outlines], float)
    return Crowd(tuple(ids), tuple(outlines), np.asarray(enemy, bool), centres, radii, z)


def _gaps(pts: np.ndarray, radius: float, others: Crowd) -> np.ndarray:
    """(n, m) plan gap between a round base of `radius` centred at each point and each of
    the crowd's models (round ones in one numpy batch, others through shapely)."""
    d = np.hypot(pts[:, None, 0] - others.centres[None, :, 0],
                 pts[:, None, 1] - others.centres[None, :, 1])
    out = d - radius - others.radii[None, :]
    for i in np.flatnonzero(np.isnan(others.radii)):
        out[:, i] = planar.distance(pts, others.outlines[i].shape) - radius
    return out


def _refused(rule: str, blocker: str | None, reason: str, reach: float, used: float,
             allowance: float, end: tuple[float, float], climb: float = 0.0,
             **extra: Any) -> MoveCheck:
    return MoveCheck(False, max(0.0, reach), Fraction(0), used, allowance - used, rule,
                     blocker, reason, end, climb, **extra)


def check_path(board: Board, model: str, path: Sequence[tuple[float, float]] | Dest,
               allowance: float, rules: PathRules, *, floor: int | None = None,
               movers: Collection[str] = (), may_near: Collection[str] = (),
               verb: str = "move", others: Crowd | None = None) -> MoveCheck:
    """How far `model` gets along `path` and at what chance, under `rules`.

    path: a `Dest` (straight to its point, on its floor) or plan waypoints [(x, y), ...] in
    inches, the last one the end. allowance: the inches the move may cost. movers: the models
    moving with it (their bases are not in its way: they move too). may_near: units whose
    models the move may come near and touch (a charge's targets). Refusals, in path order:
    off the table, through another model's base, into an impassable piece, nearer an enemy
    than the exclusion distance, then longer than the allowance. others: a `crowd` made once
    for many calls with the same model, movers and may_near (made here when None).

    The base is swept as a circle: a round base's radius, an oval's or a hull's smaller
    semi-axis (so a hull's corners may clip what it passes); "off the table" is its centre
    leaving the table, as `moves.placement` judges the end."""
    if isinstance(path, Dest):
        floor, points = path.floor, [path.at]
    else:
        points = list(path)
    if not points:
        raise ValueError("a path needs at least its end point")
    start = board.outline(model)
    waypoints = np.vstack([np.asarray(start.center, float)[None],
                           np.asarray(points, float).reshape(-1, 2)])
    pts, along = _samples(waypoints)
    length = float(along[-1])
    end_xy = (float(waypoints[-1, 0]), float(waypoints[-1, 1]))
    width, depth = board.world.table
    off = np.flatnonzero((pts[:, 0] < 0) | (pts[:, 0] > width) | (pts[:, 1] < 0) |
                         (pts[:, 1] > depth))
    if len(off):
        s = float(along[max(off[0] - 1, 0)])
        return _refused(rules.rule_move, None, f"{model} would leave the table at "
                        f"{_point_at(pts, along, float(along[off[0]]))}", s, length,
                        allowance, _point_at(pts, along, s))
    try:
        end = outline_at(board, model, Dest(end_xy, floor))
    except ValueError as exc:
        return _refused(rules.rule_move, None, f"{model}: {exc}", 0.0, length, allowance,
                        start.center)
    climb = float(rules.climb(board, model, start, end, floor, waypoints))
    used = length + climb
    radius = float(min(start.radii)) if not start.is_circle else float(start.radii[0])
    profile = board.profile(model)
    stops: list[tuple[float, str, str, str]] = []  # (plan inches, rule, blocker, reason)
    others = crowd(board, model, movers, may_near) if others is None else others
    _models_in_way(model, pts, along, radius, start, end, rules, others, profile, verb, stops)
    difficult, dangerous = _terrain_on_path(board, pts, along, waypoints, radius, rules, stops)
    too_long = used > allowance + 1e-6
    first = min(stops, key=lambda x: x[0]) if stops else None
    # what stands past the inches the allowance reaches is not what stops the move: its
    # length is (a 30" move refused for its length, not for a base 27" along)
    if first is not None and not (too_long and first[0] > max(0.0, allowance - climb) + 1e-6):
        s, rule, who, why = first
        return _refused(rule, who, why, s, used, allowance, _point_at(pts, along, s), climb,
                        difficult=difficult, dangerous=dangerous)
    if too_long:
        s = min(length, max(0.0, allowance - climb))
        what = f" ({climb:.2f}\" of it climbing)" if climb else ""
        return _refused(rules.rule_move, None, f"{model} would {verb} {used:.2f}\"{what} but "
                        f"may {verb} at most {allowance:g}\"", s, used, allowance,
                        _point_at(pts, along, s), climb, difficult=difficult,
                        dangerous=dangerous, geometry={"model": model, "distance": used})
    chance, rule, reason = Fraction(1), rules.rule_move, ""
    roll = rules.difficult_roll(profile) if difficult else None
    if roll is not None:
        chance = roll.at_least(max(0, math.ceil(used - 1e-9)))
        rule = rules.rule_difficult or rule
        reason = (f"{model} enters difficult terrain ({', '.join(difficult)}): the dice must "
                  f"give {used:.2f}\"")
    return MoveCheck(True, length, chance, used, allowance - used, rule, None, reason, end_xy,
                     climb, difficult, dangerous, {"model": model, "distance": used})


def _models_in_way(model: str, pts: np.ndarray, along: np.ndarray, radius: float,
                   start: Outline, end: Outline, rules: PathRules, others: Crowd,
                   profile: Any, verb: str, stops: list) -> None:
    """Where the path first crosses another model's base, or comes nearer an enemy than
    `rules.enemy_gap`: appended to `stops` as (plan inches, rule, model id, reason)."""
    if not others.ids:
        return
    gaps = _gaps(pts, radius, others)  # (n, m)
    z, ids = others.z, others.ids
    level = np.abs(z - start.z) < LEVEL
    crossed = np.zeros(len(ids), dtype=bool)
    if not rules.over_models(profile) and len(pts) > 1:
        inside = gaps[1:] < -TOUCH
        crossed = level & (gaps[0] > -TOUCH) & inside.any(axis=0)
        for k in np.flatnonzero(crossed):
            i = int(np.argmax(inside[:, k])) + 1
            where = "stand on" if gaps[-1, k] < -TOUCH else "move through"
            stops.append((float(along[i - 1]), rules.rule_bases, ids[k],
                          f"{model} would {where} {ids[k]}'s base"))
    watch = others.enemy & ~crossed
    if rules.enemy_gap <= 0.0 or not watch.any():
        return
    cols = np.flatnonzero(watch)
    vertical = np.repeat(np.abs(z[cols] - start.z)[None, :], len(pts), axis=0)
    vertical[-1] = np.abs(z[cols] - end.z)
    near = np.hypot(np.maximum(gaps[:, cols], 0.0), vertical)
    whole = rules.enemy_gap_whole_path
    limit = np.full(len(cols), rules.enemy_gap)
    if whole:  # a move may start near an enemy, never come nearer
        limit = np.minimum(limit, near[0])
    rows = near[1:] if whole else near[-1:]
    close = rows <= limit + 1e-9 if rules.enemy_gap_inclusive else rows < limit - 1e-6
    more = "more than " if rules.enemy_gap_inclusive else ""
    for j in np.flatnonzero(close.any(axis=0)):
        i = int(np.argmax(close[:, j])) + 1 if whole else len(pts) - 1
        other = ids[cols[j]]
        stops.append((float(along[i - 1]), rules.rule_enemy, other,
                      f"{model} would {'come' if whole else 'end'} {float(near[i, j]):.2f}\" "
                      f"from enemy {other} ({rules.enemy_gap:g}\" rule: a {verb} "
                      f"{'keeps' if whole else 'ends'} {more}{rules.enemy_gap:g}\" away)"))


def _terrain_on_path(board: Board, pts: np.ndarray, along: np.ndarray, waypoints: np.ndarray,
                     radius: float, rules: PathRules, stops: list
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Difficult and dangerous pieces the swept base starts in or enters (path order; a
    grouped piece by its whole outline, entered between its shapes too), and the first
    impassable shape it would enter (appended to `stops`; the gap between two shapes of a
    group is open ground)."""
    corridor = shapely.buffer(shapely.linestrings(waypoints) if len(waypoints) > 1
                              else shapely.points(waypoints[0]), radius)
    for pid in board.world.footprints.under(corridor):
        entry = board.world.terrain[pid]
        if not rules.impassable(entry):
            continue
        later = np.flatnonzero(planar.distance(pts[1:], entry.geometry.shape) < radius - 1e-6)
        if len(later):
            name = board.groups.piece_of(pid)
            stops.append((float(along[later[0]]), rules.rule_impassable, name,
                          f"the base would enter impassable {name}"))
    found: tuple[dict[str, float], dict[str, float]] = ({}, {})
    for name in board.groups.under(corridor):
        for test, out in ((rules.difficult, found[0]), (rules.dangerous, found[1])):
            if board.groups.first(name, test) is None:
                continue
            touched = np.flatnonzero(planar.distance(pts, board.groups.outline(name))
                                     < radius - 1e-6)
            if len(touched):
                out[name] = float(along[touched[0]])
    return tuple(sorted(found[0], key=found[0].get)), tuple(sorted(found[1], key=found[1].get))
