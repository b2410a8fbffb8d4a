"""WHFB 6th movement (whfb6 §2, §3, §7): moving blocks, marching, fleeing, rallying.

A block moves by `wheel` (degrees, + to the left) and `forward` (inches), or to a new
`front: [x, y]` and `facing`; a move is priced as one wheel (the arc of the outer front corner)
plus the straight distance the front centre travels (a simplification: the engine does not
forbid the sideways part). A unit without a formation (a lone model) moves `by: [dx, dy]`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry import planar
from battlesight.rulesets.core.measure import plan_gap
from battlesight.rulesets.core.ruling import Ruling

from . import formation as fm
from .sight import square
from .tables import flee_dice

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_MOVE = "whfb6 §7"
RULE_MARCH = "whfb6 §7"
RULE_WHEEL = "whfb6 §3"
MARCH_BLOCK = 8.0
KEEP_AWAY = 1.0


def unit_m(game: Game, unit: str) -> int:
    """The slowest model's Movement (a stupid unit's half M is `psychology.stupid_move`)."""
    models = game.board.unit_models(unit)
    return min(int(game.board.profile(x).stat("M", 4) or 4) for x in models)


def signed_turn(a: float, b: float) -> float:
    """Smallest signed angle from facing a to facing b (degrees, + counter-clockwise)."""
    d = (b - a) % 360.0
    return d - 360.0 if d > 180.0 else d


def move_cost(form: fm.Formation, front: tuple[float, float], facing: float) -> float:
    """One wheel to the new facing, then straight to the new front centre (whfb6 §3)."""
    wheeled, arc = form.wheeled(signed_turn(form.facing, facing))
    return arc + math.dist(wheeled.front, front)


def planned(form: fm.Formation, params: dict[str, Any]) -> tuple[fm.Formation, float]:
    """The formation after a move's parameters, and what it costs."""
    if "front" in params:
        front = (float(params["front"][0]), float(params["front"][1]))
        facing = float(params.get("facing", form.facing)) % 360.0
        cost = move_cost(form, front, facing)
        return fm.Formation(front, facing, form.files, form.width, form.depth), cost
    new, cost = form.wheeled(float(params.get("wheel", 0.0)))
    forward = float(params.get("forward", 0.0))
    if forward < 0:
        raise ValueError("forward must not be negative")
    new = new.advanced(forward)
    wheel_after = float(params.get("then_wheel", 0.0))
    new, more = new.wheeled(wheel_after)
    return new, cost + forward + more


def check_block(game: Game, unit: str, form: fm.Formation, allow: tuple[str, ...] = ()) -> Ruling:
    """A block's new place: on the table, not in impassable terrain, not within 1" of an
    enemy it is not charging (whfb6 §7 [GK])."""
    board = game.board
    n = len(board.unit_models(unit))
    hull = form.hull(n)
    width, depth = board.world.table
    for corner in form.corners(n).values():
        if not (-1e-6 <= corner[0] <= width + 1e-6 and -1e-6 <= corner[1] <= depth + 1e-6):
            return Ruling(False, RULE_MOVE, f"{unit} would leave the table")
    for entry in board.world.terrain.values():
        foot = np.asarray(entry.geometry.footprint, float)
        if entry.data.get("impassable") and len(foot) >= 3:
            if planar.meet(hull.shape, entry.geometry.shape):
                return Ruling(False, "whfb6 §6", f"{unit} would end in impassable "
                              f"{board.groups.piece_of(entry.id)}")
    player = board.unit_player(unit)
    for other in board.unit_ids():
        if other == unit or other in allow or not board.unit_models(other):
            continue
        g = min(plan_gap(hull, square(board.outline(m))) for m in board.unit_models(other))
        if board.unit_player(other) != player and g < KEEP_AWAY - 1e-6:
            return Ruling(False, RULE_MOVE, f"{unit} would end {g:.2f}\" from enemy {other} "
                          f"(units keep 1\" apart unless charging)")
        if g <= 0.0:
            return Ruling(False, RULE_MOVE, f"{unit} would end on top of {other}")
    return Ruling(True, RULE_MOVE)


def enemies_within(game: Game, unit: str, distance: float, fleeing_ok: bool = True) -> list[str]:
    """Enemy units within `distance` (not counting fleeing ones when fleeing_ok)."""
    board = game.board
    out = []
    for other in board.enemies_of(board.unit_player(unit)):
        if not board.unit_models(other):
            continue
        if fleeing_ok and game.unit(other).status.get("fleeing"):
            continue
        if unit_gap(game, unit, other) <= distance + 1e-9:
            out.append(other)
    return out


def unit_gap(game: Game, a: str, b: str) -> float:
    board = game.board
    return min((plan_gap(square(board.outline(x)), square(board.outline(y)))
                for x in board.unit_models(a) for y in board.unit_models(b)), default=math.inf)


def centre(game: Game, unit: str) -> np.ndarray:
    return np.mean([game.board.outline(m).center for m in game.board.unit_models(unit)], axis=0)


def move_block(game: Game, unit: str, form: fm.Formation) -> list[dict]:
    return fm.set_formation(game, unit, form)


def move_loose(game: Game, unit: str, by: tuple[float, float]) -> list[dict]:
    """A unit without a formation: every model moves by the same offset."""
    moved = []
    for m in game.board.unit_models(unit):
        c = game.board.outline(m).center
        to = (c[0] + by[0], c[1] + by[1])
        game.board.move(m, to)
        moved.append({"model": m, "to": [round(v, 3) for v in to]})
    return moved


def flee(game: Game, unit: str, away_from: np.ndarray, why: str) -> dict[str, Any]:
    """Flee 2D6 (3D6 for M over 6) straight away from a point, turning to face away; a unit
    that would leave the table is destroyed (whfb6 §7)."""
    board = game.board
    n = flee_dice(unit_m(game, unit), game.unit(unit).status.get("flying", False))
    dice = game.roller.d6(n, f"{unit} flees ({n}D6\"): {why}")
    distance = float(sum(dice))
    c = centre(game, unit)
    d = c - np.asarray(away_from, float)[:2]
    u = d / (np.linalg.norm(d) or 1.0)
    state = game.unit(unit)
    state.status["fleeing"] = True
    state.status.pop("engaged", None)
    form = fm.formation(game, unit)
    result: dict[str, Any] = {"dice": dice, "distance": distance}
    if form is not None:
        n_models = len(board.unit_models(unit))
        depth = form.ranks(n_models) * form.depth
        front = c + u * (distance + depth / 2.0)
        new = fm.Formation((float(front[0]), float(front[1])), fm.facing_of(u), form.files,
                           form.width, form.depth)
        off = any(not (0 <= p[0] <= board.world.table[0] and 0 <= p[1] <= board.world.table[1])
                  for p in new.corners(n_models).values())
        if not off:
            result["moves"] = move_block(game, unit, new)
    else:
        to = c + u * distance
        off = not (0 <= to[0] <= board.world.table[0] and 0 <= to[1] <= board.world.table[1])
        if not off:
            result["moves"] = move_loose(game, unit, (float(u[0] * distance),
                                                      float(u[1] * distance)))
    result["off_table"] = off
    result["to"] = [round(float(v), 3) for v in centre(game, unit)] if not off else None
    if off:
        from battlesight.rulesets.core.state import slay

        slay(game, board.unit_models(unit))
    game.emit("flee", unit, reason=why, rule=RULE_MOVE, **result)
    return result


def march_allowed(game: Game, unit: str) -> Ruling:
    """No unbroken enemy within 8" at the start of the movement phase (whfb6 §7, §14 #1)."""
    near = game.unit(unit).status.get("march_blocked_by") or []
    if near:
        return Ruling(False, RULE_MARCH, f"{unit} cannot march: {', '.join(near)} within 8\" "
                      "at the start of the movement phase")
    return Ruling(True, RULE_MARCH)


def note_march_blocks(game: Game) -> None:
    """Start of the movement phase: who may not march this turn."""
    for unit, state in game.units.items():
        if state.player == game.active_player and game.board.unit_models(unit):
            state.status["march_blocked_by"] = enemies_within(game, unit, MARCH_BLOCK)
