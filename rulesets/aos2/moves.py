"""AoS 2nd moves (aos2 §3.2, §6.6, §7): normal moves, runs, retreats, flying, climbing,
coherency, charge moves and pile-ins.

Each model moves in a straight line to its destination. The distance is the plan distance plus
the height climbed and descended: a change of standing surface (a ruin floor, a hill top), and
up and over each wall crossed (2 x its height; the seed's 12" example, A-16). Flying models do
not count vertical distance (§7.2). A normal move may not come within 3" of an enemy at any
point (sampled along the line); a retreat may, but ends more than 3" away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.lines import length_inside
from battlesight.rulesets.core.measure import Outline, gap_3d, plan_gap, step_towards
from battlesight.rulesets.core.moves import Dest, outline_at, parse_destinations, placement
from battlesight.rulesets.core.ruling import Ruling

from . import rules

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_MOVE = "aos2 §7.1"
RULE_NORMAL = "aos2 §7.2"
RULE_CLIMB = "aos2 §6.6"
PATH_STEPS = 24


def parse(board: Board, unit: str, params: dict[str, Any]) -> dict[str, Dest]:
    """{model: Dest} from `to: {model: [x, y] | {at, floor}}` and/or `by: [dx, dy]` (the
    same action format as wh40k6, whose parser this is)."""
    return parse_destinations(board, unit, params)


def climb(board: Board, model: str, dest: Dest) -> float:
    """Vertical distance: change of surface plus up-and-over each wall crossed (§6.6)."""
    start = board.outline(model)
    end = outline_at(board, model, dest)
    total = abs(end.z - start.z)
    p, q = np.asarray([start.center]), np.asarray([dest.at])
    for entry in board.world.terrain.values():
        if entry.kind == "wall" and len(entry.geometry.footprint) >= 3:
            if length_inside(p, q, np.asarray(entry.geometry.footprint))[0] > 0:
                total += 2 * float(board.scene.piece(entry.id).get("height", 1.0))
    return total


def path_length(board: Board, model: str, dest: Dest, fly: bool = False) -> float:
    plan = float(np.hypot(*np.subtract(dest.at, board.outline(model).center)))
    return plan if fly else plan + climb(board, model, dest)


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
    """A move of `kind` ('normal', 'run', 'retreat', 'charge', 'pile_in') before the dice."""
    fly = flies(board, unit)
    enemies = [e for e in enemy_models(board, unit) if board.unit_of(e) not in allow_near]
    final: dict[str, Outline] = {}
    for m, dest in dests.items():
        there = placement(board, m, dest, RULE_MOVE, RULE_CLIMB)
        if isinstance(there, Ruling):
            return there
        dist = path_length(board, m, dest, fly)
        if dist > limit + 1e-6:
            return Ruling(False, RULE_MOVE, f"{m} would move {dist:.2f}\" (climbing counted) "
                          f"but may move {limit:g}\"", geometry={"model": m, "distance": dist})
        if kind in ("normal", "run"):
            near = _closest_on_path(board, m, dest, enemies)
            if near is not None and near[1] <= rules.ENGAGE + 1e-9:
                return Ruling(False, RULE_NORMAL, f"{m} would come {near[1]:.2f}\" from enemy "
                              f"{near[0]}; a normal move stays more than 3\" away")
        final[m] = there
    for m, there in final.items():
        for other, state in board.models.items():
            if other in final or not state.alive or not state.on_table:
                continue
            o = board.outline(other)
            if abs(o.z - there.z) < 1.0 and plan_gap(there, o) <= 0.0:
                return Ruling(False, RULE_MOVE, f"{m} would end on top of {other}")
            if kind == "retreat" and other in enemies and gap_3d(there, o) <= rules.ENGAGE:
                return Ruling(False, RULE_NORMAL, f"a retreat ends more than 3\" from every "
                              f"enemy; {m} would be {gap_3d(there, o):.2f}\" from {other}")
    outlines = [final.get(m) or board.outline(m) for m in board.unit_models(unit)]
    if not coherent(outlines):
        return Ruling(False, rules.RULE_COHERENCY, f"{unit} would end out of coherency "
                      "(1\" horizontally, 6\" vertically)")
    return Ruling(True, RULE_MOVE)


def _closest_on_path(board: Board, model: str, dest: Dest,
                     enemies: list[str]) -> tuple[str, float] | None:
    if not enemies:
        return None
    start = board.outline(model)
    best: tuple[str, float] | None = None
    for t in np.linspace(0.0, 1.0, PATH_STEPS + 1):
        at = tuple(np.asarray(start.center) + t * np.subtract(dest.at, start.center))
        here = Outline((float(at[0]), float(at[1])), start.z, start.height, start.radii)
        for e in enemies:
            g = gap_3d(here, board.outline(e))
            if best is None or g < best[1]:
                best = (e, g)
    return best


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
