"""AoS 2nd moves (aos2 §3.2, §6.6, §7): normal moves, runs, retreats, flying, climbing,
coherency, charge moves and pile-ins.

Each model moves in a straight line to its destination, checked along its length by the core's
`check_path` (`PATHS`): never across another model's base unless it flies. The distance is the
plan distance plus the height climbed and descended: a change of standing surface (a ruin
floor, a hill top), and up and over each wall crossed (2 x its height; the seed's 12" example,
A-16). Flying models do not count vertical distance (§7.2). A normal move may not come within
3" of an enemy at any point; a retreat may, but ends more than 3" away.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.lines import length_inside
from battlesight.rulesets.core.measure import Outline, gap_3d, plan_gap, step_towards
from battlesight.rulesets.core.moves import Dest, outline_at, parse_destinations, placement
from battlesight.rulesets.core.paths import PathRules, check_path
from battlesight.rulesets.core.ruling import Ruling

from . import rules

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_MOVE = "aos2 §7.1"
RULE_NORMAL = "aos2 §7.2"
RULE_CLIMB = "aos2 §6.6"


def parse(board: Board, unit: str, params: dict[str, Any]) -> dict[str, Dest]:
    """{model: Dest} from `to: {model: [x, y] | {at, floor}}` and/or `by: [dx, dy]` (the
    same action format as wh40k6, whose parser this is)."""
    return parse_destinations(board, unit, params)


def climb(board: Board, model: str, dest: Dest) -> float:
    """Vertical distance: change of surface plus up-and-over each wall crossed (§6.6)."""
    return _climb(board, model, board.outline(model), outline_at(board, model, dest),
                  dest.floor, np.asarray([board.outline(model).center, dest.at], float))


def _climb(board: Board, model: str, start: Outline, end: Outline, floor: int | None,
           waypoints: np.ndarray) -> float:
    """§6.6 ("垂直向上或向下的距离都算在移动距离内"): the change of standing surface (a hill
    top counts as much as a ruin floor) plus 2 x the height of each wall a leg crosses; none
    for a flying model (§7.2: "任何垂直方向的距离都不计算入内")."""
    if board.profile(model).fly:
        return 0.0
    total = abs(end.z - start.z)
    p, q = waypoints[:-1], waypoints[1:]
    for entry in board.world.terrain.values():
        if entry.kind == "wall" and len(entry.geometry.footprint) >= 3:
            crossed = length_inside(p, q, np.asarray(entry.geometry.footprint)) > 0
            total += 2 * float(board.scene.piece(entry.id).get("height", 1.0)) * crossed.sum()
    return total


def path_length(board: Board, model: str, dest: Dest, fly: bool = False) -> float:
    plan = float(np.hypot(*np.subtract(dest.at, board.outline(model).center)))
    return plan if fly else plan + climb(board, model, dest)


#: what the AoS seed checks along a move (§7.1, §7.2): "不能越过其他模型或模型底座" (no moving
#: across other models or their bases) unless flying, vertical distance counted (§6.6), and a
#: normal move or run "移动全程不能接近敌方单位 3 英寸范围内" (never within 3" of an enemy)
NORMAL = PathRules("aos2", RULE_MOVE, RULE_MOVE, RULE_MOVE, rule_enemy=RULE_NORMAL,
                   enemy_gap=rules.ENGAGE, enemy_gap_inclusive=True, climb=_climb,
                   over_models=lambda profile: bool(profile.fly))
#: a retreat may come within 3" but "撤退结束后必须在所有敌方单位的 3 英寸范围外" (§7.2)
RETREAT = replace(NORMAL, enemy_gap_whole_path=False)
#: charges and pile-ins end near the enemy they were made at (§10, §11)
CLOSE = replace(NORMAL, enemy_gap=0.0)
PATHS = {"normal": NORMAL, "run": NORMAL, "retreat": RETREAT, "charge": CLOSE,
         "pile_in": CLOSE}


def flies(board: Board, unit: str) -> bool:
    return all(board.profile(m).fly for m in board.unit_models(unit))


def enemy_models(board: Board, unit: str) -> list[str]:
    player = board.unit_player(unit)
    return [m for e in board.enemies_of(player) for m in board.unit_models(e)]


def coherent(outlines: list[Outline]) -> bool:
    """Each model within 1" horizontally and 6" vertically of another (§3.2, A-15)."""
    if len(outlines) < 2:
        return True
    for i, a in enumerate(outlines):
        if not any(rules.coherent_pair(plan_gap(a, b), abs(a.z - b.z))
                   for j, b in enumerate(outlines) if j != i):
            return False
    return True


def check(board: Board, unit: str, dests: dict[str, Dest], limit: float, kind: str,
          allow_near: tuple[str, ...] = ()) -> Ruling:
    """A move of `kind` ('normal', 'run', 'retreat', 'charge', 'pile_in') before the dice:
    each model's path by the core's `check_path` under `PATHS[kind]`, then coherency."""
    final: dict[str, Outline] = {}
    for m, dest in dests.items():
        there = placement(board, m, dest, RULE_MOVE, RULE_CLIMB)
        if isinstance(there, Ruling):
            return there
        check = check_path(board, m, dest, limit, PATHS[kind], movers=tuple(dests),
                           may_near=allow_near, verb="retreat" if kind == "retreat" else "move")
        if not check.allowed:
            return Ruling(False, check.rule, check.reason, value=check,
                          geometry={"model": m, "distance": check.used,
                                    "blocker": check.blocker})
        final[m] = there
    outlines = [final.get(m) or board.outline(m) for m in board.unit_models(unit)]
    if not coherent(outlines):
        return Ruling(False, rules.RULE_COHERENCY, f"{unit} would end out of coherency "
                      "(1\" horizontally, 6\" vertically)")
    return Ruling(True, RULE_MOVE)


def truncate(board: Board, model: str, dest: Dest, limit: float, fly: bool) -> Dest:
    """Cut a move back along its line to `limit` (staying on the same level, turned to the
    destination's facing)."""
    if path_length(board, model, dest, fly) <= limit + 1e-9:
        return dest
    at = step_towards(board.outline(model).center, dest.at, limit)
    return Dest(at, board.floor_of(model), dest.facing)


def apply(board: Board, dests: dict[str, Dest]) -> list[dict[str, Any]]:
    """Move each model to its destination, turned to its `facing` when it gives one."""
    moved = []
    for m, dest in dests.items():
        before = board.outline(m).center
        board.move(m, dest.at, dest.facing, floor=dest.floor)
        moved.append({"model": m, "from": [round(v, 3) for v in before],
                      "to": [round(v, 3) for v in dest.at]})
    return moved


def towards(board: Board, unit: str, target: str, limit: float, stop_at: float) -> dict:
    """Each model straight towards its nearest model of `target`, up to `limit`, stopping
    `stop_at` from it (charges stop within 1/2", pile-ins in base contact)."""
    dests: dict[str, Dest] = {}
    enemies = board.unit_models(target)
    for m in board.unit_models(unit):
        e = min(enemies, key=lambda x, m=m: gap_3d(board.outline(m), board.outline(x)))
        gap = gap_3d(board.outline(m), board.outline(e))
        step = min(limit, max(0.0, gap - stop_at))
        if step <= 1e-6:
            continue
        at = step_towards(board.outline(m).center, board.outline(e).center, step)
        dests[m] = Dest(at, board.floor_of(e) if board.floor_of(e) else None)
    return dests


def groups(board: Board, unit: str) -> list[list[str]]:
    """The unit's models split into groups in coherency with each other (largest first)."""
    models = board.unit_models(unit)
    outs = {m: board.outline(m) for m in models}
    left, out = set(models), []
    while left:
        todo = [left.pop()]
        group = list(todo)
        while todo:
            a = todo.pop()
            for b in list(left):
                if rules.coherent_pair(plan_gap(outs[a], outs[b]), abs(outs[a].z - outs[b].z)):
                    left.remove(b)
                    todo.append(b)
                    group.append(b)
        out.append(sorted(group, key=models.index))
    return sorted(out, key=len, reverse=True)
