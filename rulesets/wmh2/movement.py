"""Movement (wmh2 §8): full advance SPD, run 2 x SPD, charge SPD + 3" in a straight line;
rough terrain costs double (halves movement); bases may not pass through other bases,
obstructions or impassable terrain; an obstacle costs 2" to cross (GK, flagged in wmh2 §7);
a charge stops on contact with a model, an obstacle or an obstruction (Pathfinder crosses
obstacles); placing; formation; free strikes when a model advances out of an enemy's
melee range.

Paths are straight segments from the base centre (one leg, or `path` waypoints); distances are
measured by the base centre in plan (wmh2 §3 A4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry import planar
from battlesight.rulesets.core.ruling import Ruling

from .bodies import Body, bodies
from .rules import CHARGE_BONUS, TOL, gap
from .terrain import rough_outline, terrain_index

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_BASICS = "wmh2 §8.1"  # no base through another base, an obstruction or the table's edge
RULE_ADVANCE = "wmh2 §8.2"
RULE_CHARGE = "wmh2 §8.3"
RULE_PLACE = "wmh2 §8.4"
RULE_ROUGH = "wmh2 §7 (rough terrain)"
OBSTACLE_COST = 2.0
STEP = 0.02  # inches between path samples


@dataclass
class Path:
    """A checked move of one model."""

    model: str
    points: np.ndarray  # (n, 2) samples of the centre along the path
    length: float
    cost: float
    rough: list[str] = field(default_factory=list)
    obstacles: list[str] = field(default_factory=list)
    problem: str = ""

    @property
    def end(self) -> tuple[float, float]:
        return float(self.points[-1, 0]), float(self.points[-1, 1])


def _samples(waypoints: list[np.ndarray]) -> np.ndarray:
    pts = [waypoints[0][None]]
    for a, b in zip(waypoints[:-1], waypoints[1:], strict=True):
        n = max(1, math.ceil(float(np.linalg.norm(b - a)) / STEP))
        t = np.linspace(0, 1, n + 1)[1:, None]
        pts.append(a + t * (b - a))
    return np.vstack(pts)


def _overlap(poly: np.ndarray, centers: np.ndarray, radius: float) -> np.ndarray:
    """(n,) bool: a base of `radius` at each centre overlaps the polygon."""
    if len(poly) < 3:
        return np.zeros(len(centers), dtype=bool)
    return planar.covers(centers, poly) | (planar.distance(centers, poly) < radius - 1e-6)


def plan_path(board: Board, model: str, waypoints: list[tuple[float, float]],
              pathfinder: bool | None = None, ignore: tuple[str, ...] = ()) -> Path:
    """Cost and legality of moving `model` through waypoints (its position first)."""
    profile = board.profile(model)
    pathfinder = profile.has("pathfinder") if pathfinder is None else pathfinder
    ghost = profile.has("incorporeal")
    me = bodies(board, [model])[model]
    pts = _samples([me.xy] + [np.asarray(w, float) for w in waypoints])
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    length = float(seg.sum())
    index = terrain_index(board.world)
    path = Path(model, pts, length, length)
    mids = 0.5 * (pts[1:] + pts[:-1]) if len(pts) > 1 else pts
    w, h = board.world.table
    if (pts[:, 0] < me.radius - TOL).any() or (pts[:, 0] > w - me.radius + TOL).any() or \
            (pts[:, 1] < me.radius - TOL).any() or (pts[:, 1] > h - me.radius + TOL).any():
        path.problem = "the base would leave the table"
    for pid, r in index.rules.items():
        poly = np.asarray(board.world.terrain[pid].geometry.footprint, float)
        rough = rough_outline(board.world, index.rules, pid) if r.rough else None
        if rough is not None and not (pathfinder or ghost) and len(seg):
            inside = planar.covers(mids, rough)
            if inside.any():
                path.cost += float(seg[inside].sum())
                path.rough.append(board.groups.piece_of(pid))
        if r.obstruction or r.impassable:
            if not ghost or r.impassable:
                if _overlap(poly, pts[1:], me.radius).any():
                    path.problem = path.problem or \
                        f"the base would pass through {board.groups.piece_of(pid)}"
        elif r.obstacle and not ghost and _overlap(poly, pts[1:], me.radius).any():
            if board.groups.piece_of(pid) not in path.obstacles:  # the pieces crossed
                path.obstacles.append(board.groups.piece_of(pid))
            if not pathfinder:
                path.cost += OBSTACLE_COST
    for other, ob in bodies(board).items():
        if other == model or other in ignore or ghost:
            continue
        d = np.hypot(*(pts[1:] - ob.xy).T) if len(pts) > 1 else np.array([np.inf])
        if (d < me.radius + ob.radius - 1e-4).any():
            path.problem = path.problem or f"the base would pass through {other}'s base"
    return path


def run_allowance(spd: int, movement_bonus: float = 0.0, normal: bool = True) -> float:
    """Run: 2 x SPD, plus movement modifiers only during normal movement (wmh2 §8.1, §8.2)."""
    return 2.0 * spd + (movement_bonus if normal else 0.0)


def charge_allowance(spd: int, movement_bonus: float = 0.0) -> float:
    """Charge: SPD + 3" (wmh2 §8.3)."""
    return spd + CHARGE_BONUS + movement_bonus


def can_charge(spd_mods: list[int], movement_mods: list[float], rough_only: bool = True
               ) -> Ruling:
    """A model under any SPD or movement penalty other than rough terrain cannot charge, even
    if a bonus offsets it (wmh2 §8.3)."""
    if any(m < 0 for m in spd_mods) or any(m < 0 for m in movement_mods):
        return Ruling(False, RULE_CHARGE, "it suffers a SPD or movement penalty (other than "
                      "rough terrain), even if offset: it cannot charge")
    return Ruling(True, RULE_CHARGE)


@dataclass
class ChargeMove:
    """Where a charge ends and why."""

    end: tuple[float, float]
    distance: float
    stopped_by: str | None
    in_range: bool
    charge_attack: bool


def charge_move(board: Board, model: str, target: str, allowance: float,
                stop_at: float | None = None, direction: tuple[float, float] | None = None
                ) -> ChargeMove:
    """A straight charge at `target` (directly toward its centre unless `direction`): stops on
    contact with a model, an obstacle (unless Pathfinder) or an obstruction, at the end of the
    allowance (rough terrain costing double) or after `stop_at` inches travelled, but never
    before the target is in its melee range (wmh2 §8.3, seed p.23: "除非目标模型已经在冲锋模型
    的近战范围里,否则冲锋模型不能自由停止移动": a `stop_at` short of that is carried on to
    where the target comes into melee range)."""
    bd = bodies(board)
    me, tb = bd[model], bd[target]
    profile = board.profile(model)
    heading = np.asarray(direction if direction is not None else tb.xy - me.xy, float)
    heading = heading / max(float(np.linalg.norm(heading)), 1e-12)
    limit = allowance
    if stop_at is not None:
        limit = min(allowance, max(stop_at, _melee_at(me, tb, heading, profile.melee_range)))
    s_stop, who = limit * 3 + 1.0, None
    for other, ob in bd.items():
        if other == model:
            continue
        w = ob.xy - me.xy
        rr = me.radius + ob.radius
        along = float(w @ heading)
        disc = along * along - (float(w @ w) - rr * rr)
        if disc >= 0 and along > 0:
            s = along - math.sqrt(disc)
            if -1e-6 <= s < s_stop:
                s_stop, who = max(0.0, s), other
    index = terrain_index(board.world)
    far = me.xy + heading * s_stop
    pts = _samples([me.xy, far])
    s_pts = np.linalg.norm(pts - me.xy, axis=1)
    cost = s_pts.copy()
    for pid, r in index.rules.items():
        poly = np.asarray(board.world.terrain[pid].geometry.footprint, float)
        stops = r.obstruction or r.impassable or (r.obstacle and not profile.has("pathfinder"))
        if stops:
            hit = np.flatnonzero(_overlap(poly, pts, me.radius))
            if len(hit) and s_pts[max(hit[0] - 1, 0)] < s_stop:
                s_stop, who = float(s_pts[max(hit[0] - 1, 0)]), board.groups.piece_of(pid)
        rough = rough_outline(board.world, index.rules, pid) if r.rough else None
        if rough is not None and not profile.has("pathfinder"):
            inside = planar.covers(pts, rough).astype(float)
            cost += np.concatenate([[0.0], np.cumsum(inside[1:] * np.diff(s_pts))])
    # the inches travelled when the cost reaches the limit (cost rises with every inch)
    s_budget = float(np.interp(limit, cost, s_pts)) if len(s_pts) > 1 else 0.0
    if s_budget < s_stop - 1e-9:
        s_stop, who = s_budget, None
    w_, h_ = board.world.table
    end = me.xy + heading * s_stop
    end = np.clip(end, [me.radius, me.radius], [w_ - me.radius, h_ - me.radius])
    dist = float(np.linalg.norm(end - me.xy))
    reach = profile.melee_range
    in_range = gap(end, me.radius, tb.xy, tb.radius) <= reach + TOL if reach else False
    return ChargeMove((float(end[0]), float(end[1])), dist, who, in_range,
                      dist >= 3.0 - 1e-9)


def _melee_at(me: Body, target: Body, heading: np.ndarray, reach: float) -> float:
    """Inches along `heading` after which `target` is within `reach` of the model's base (0
    when it already is; inf when the line never brings it there)."""
    w = target.xy - me.xy
    rr = me.radius + target.radius + reach
    along = float(w @ heading)
    disc = along * along - (float(w @ w) - rr * rr)
    if float(w @ w) <= rr * rr:
        return 0.0
    if disc < 0 or along <= 0:
        return math.inf
    return along - math.sqrt(disc)


def facing_toward(src: tuple[float, float] | np.ndarray, dst: Any) -> float:
    """Facing (degrees) that directly faces dst from src (0 = +y, 90 = -x)."""
    d = np.asarray(dst, float)[:2] - np.asarray(src, float)[:2]
    return math.degrees(math.atan2(-d[0], d[1])) % 360.0


def can_place(board: Board, model: str, at: tuple[float, float]) -> Ruling:
    """A placed base may not overlap impassable terrain, an obstacle, an obstruction or another
    base; a trooper in formation (not the commander) stays in formation (wmh2 §8.4)."""
    me = bodies(board, [model])[model]
    xy = np.asarray(at, float)[None]
    index = terrain_index(board.world)
    for pid, r in index.rules.items():
        if r.solid_obstacle:
            poly = np.asarray(board.world.terrain[pid].geometry.footprint, float)
            if _overlap(poly, xy, me.radius)[0]:
                return Ruling(False, RULE_PLACE, f"the base would overlap {pid}")
    for other, ob in bodies(board).items():
        if other != model and float(np.hypot(*(ob.xy - xy[0]))) < me.radius + ob.radius - 1e-6:
            return Ruling(False, RULE_PLACE, f"the base would overlap {other}")
    leader = commander_of(board, board.unit_of(model))
    if board.profile(model).is_trooper and leader and leader != model \
            and in_formation(board, model):
        lb = bodies(board, [leader])[leader]
        cmd = board.profile(leader).stat("CMD")
        if gap(xy[0], me.radius, lb.xy, lb.radius) > cmd + TOL:
            return Ruling(False, RULE_PLACE, "a trooper in formation may not be placed out of "
                          "formation")
    return Ruling(True, RULE_PLACE)


def place(board: Board, model: str, at: tuple[float, float], facing: float | None = None
          ) -> Ruling:
    """Place a model: not a move, so never a free strike; the placing player picks the facing
    (wmh2 §8.4)."""
    ruling = can_place(board, model, at)
    if ruling:
        board.move(model, at, facing)
    return ruling


def commander_of(board: Board, unit: str) -> str | None:
    """The unit commander: the model marked `leader`, else the first model left."""
    models = board.unit_models(unit)
    for m in models:
        if board.profile(m).leader:
            return m
    return models[0] if models else None


def in_formation(board: Board, model: str, at: Body | None = None) -> bool:
    """A trooper is in formation within its commander's command range (CMD inches)
    (wmh2 §2.5)."""
    leader = commander_of(board, board.unit_of(model))
    if leader is None or leader == model:
        return True
    bd = bodies(board, [model, leader])
    me = at or bd[model]
    cmd = board.profile(leader).stat("CMD")
    return gap(me.xy, me.radius, bd[leader].xy, bd[leader].radius) <= cmd + TOL


def free_strikers(board: Board, model: str, pts: np.ndarray) -> list[tuple[str, int]]:
    """Enemies whose melee range `model` starts in and leaves along the sampled path, with
    the index of the first sample outside it, in path order (wmh2 §9.2 free strike)."""
    bd = bodies(board)
    me = bd[model]
    out = []
    for other, ob in bd.items():
        if ob.player == me.player or ob.knocked_down or \
                board.model(other).status.get("stationary"):
            continue
        reach = board.profile(other).melee_range
        if not reach:
            continue
        d = np.hypot(*(pts - ob.xy).T) - me.radius - ob.radius
        front = np.ones(len(pts), dtype=bool) if ob.arc >= 360 else \
            (pts - ob.xy) @ ob.forward + me.radius >= -1e-9
        inside = (d <= reach + TOL) & front
        if not inside[0]:
            continue
        leave = np.flatnonzero(~inside)
        if len(leave):
            out.append((other, int(leave[0])))
    return sorted(out, key=lambda t: t[1])
