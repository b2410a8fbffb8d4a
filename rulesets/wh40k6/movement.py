"""Moving models (wh40k6 §3, §6.3, §7): allowances, destinations, difficult terrain,
climbing in ruins, the 1" rule, coherency, falling back towards the table edge.

Moves are straight lines from each model's position to its destination, checked along their
length by the core's `check_path` under this system's `PATHS`; the distance is the plan
distance of the base centre plus the height climbed or descended between ruin floors (a floor 3"
up costs 3"; a hill costs nothing more than its plan distance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.deployment import scene_zones
from battlesight.rulesets.core.dice import Dist, highest_of
from battlesight.rulesets.core.measure import Outline, step_towards
from battlesight.rulesets.core.moves import Dest, outline_at, placement
from battlesight.rulesets.core.paths import MoveCheck, PathRules, check_path
from battlesight.rulesets.core.ruling import Ruling

from .special import unit_coherent
from .terrain import is_dangerous, is_difficult, is_impassable, pieces_in

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_MOVE = "wh40k6 §7.2"
RULE_TABLE = "wh40k6 §7.1"
RULE_RUINS = "wh40k6 §6.3"
RULE_COHERENCY = "wh40k6 §3"
FAST_TYPES = {"jump infantry", "bike", "jetbike", "beast", "cavalry", "vehicle", "skimmer"}
CLIMBERS = {"infantry", "jump infantry", "jet pack infantry", "beast", "jetbike", "skimmer"}
FLYERS_OVER = {"jump infantry", "jetbike", "skimmer"}


def allowance(profile: Any) -> float:
    """Normal move (§7.1 table): 6" infantry, walkers, MCs, artillery; 12" for jump
    infantry, bikes, jetbikes, beasts, cavalry and vehicles."""
    if profile.is_walker:
        return 6.0
    if profile.type in FAST_TYPES or profile.is_vehicle:
        return 12.0
    return 6.0


def difficult_dice(profile: Any) -> int:
    """Dice rolled (pick the highest) for a difficult terrain test: 2, MCs and Move Through
    Cover 3; 0 for models it does not slow (beasts, bikes, vehicles test dangerous instead)."""
    if profile.type in ("beast", "bike", "jetbike", "jump infantry") or (
            profile.is_vehicle and not profile.is_walker):
        return 0
    if profile.type == "monstrous creature" or profile.has("move through cover"):
        return 3
    return 2


#: Height changes below this (a ruin's base slab, a crater rim) are not climbing.
CLIMB_MIN = 1.0


def climb(board: Board, model: str, dest: Dest) -> float:
    """Height climbed or descended to reach dest: only between a ruin's floors (§6.3, "一个
    步行的模型需要移动3寸上或下一层楼"); a hill is open ground the model walks over (the seed
    counts no height there), and steps under CLIMB_MIN are not climbing."""
    return _floor_climb(board, model, board.outline(model), outline_at(board, model, dest),
                        dest.floor, np.zeros((0, 2)))


def _floor_climb(board: Board, model: str, start: Outline, end: Outline, floor: int | None,
                 waypoints: np.ndarray) -> float:
    if not (board.floor_of(model) or floor):
        return 0.0
    dz = abs(end.z - start.z)
    return dz if dz >= CLIMB_MIN else 0.0


def path_length(board: Board, model: str, dest: Dest) -> float:
    """Plan distance plus height climbed or descended between ruin floors (3" a floor)."""
    now = board.outline(model)
    return float(np.hypot(*np.subtract(dest.at, now.center))) + climb(board, model, dest)


def _difficult_roll(profile: Any) -> Dist | None:
    n = difficult_dice(profile)
    return highest_of(n) if n else None


#: what the 40k seed checks along a move (§6.1, §7.2): no moving through or onto another
#: model's base ("一个模型无法穿越或停在另外一个模型占据的空间上"), never within 1" of an enemy
#: outside the assault phase ("不然模型不能移动到敌方模型周围的1英寸内"), impassable pieces
#: never entered, climbing counted between ruin floors, difficult terrain 2D6 keep the highest
PATHS = PathRules(
    "wh40k6", RULE_MOVE, RULE_MOVE, "wh40k6 §6.1", rule_enemy=RULE_MOVE,
    rule_difficult="wh40k6 §6.1", enemy_gap=1.0, climb=_floor_climb,
    impassable=is_impassable, difficult=is_difficult, dangerous=is_dangerous,
    over_models=lambda profile: profile.type in FLYERS_OVER,
    difficult_roll=_difficult_roll)


def check_path_40k(board: Board, model: str, dest: Dest, limit: float, *,
                   movers: tuple[str, ...] = (), may_near: tuple[str, ...] = (),
                   what: str = "move") -> MoveCheck:
    """One model's move straight to `dest` under the 40k seed (`PATHS`)."""
    return check_path(board, model, dest, limit, PATHS, movers=movers, may_near=may_near,
                      verb=what)


def crosses_difficult(board: Board, unit: str, dests: dict[str, Dest]) -> list[str]:
    """Difficult pieces a model of the unit starts in or whose outline its path enters (§7.2;
    the path's pieces from the core's `check_path`)."""
    found: list[str] = []
    for m in board.unit_models(unit):
        found += [p for p in _difficult_under(board, m) if p not in found]
        if m in dests:
            check = check_path_40k(board, m, dests[m], float("inf"), movers=tuple(dests))
            found += [p for p in check.difficult if p not in found]
    return found


def _difficult_under(board: Board, model: str) -> list[str]:
    ground = not board.floor_of(model)
    return [name for name, _ in pieces_in(board, model, lambda e: is_difficult(e) and not (
        e.kind == "ruin" and ground and not e.data.get("based", True)))]


def check_move(board: Board, unit: str, dests: dict[str, Dest], limit: float, *,
               charge_targets: tuple[str, ...] = (), what: str = "move") -> Ruling:
    """Whether the moves are legal before any dice: each model's path checked by the core
    (`check_path_40k`: on the table, within `limit`, not through other bases, impassable
    pieces or within 1" of enemies unless charging them), climbing only where allowed,
    ending in coherency."""
    final: dict[str, Outline] = {}
    movers = tuple(dests)
    for m, dest in dests.items():
        profile = board.profile(m)
        there = placement(board, m, dest, RULE_MOVE, RULE_RUINS)
        if isinstance(there, Ruling):
            return there
        rise = climb(board, m, dest)
        if rise > 0 and profile.type not in CLIMBERS:
            return Ruling(False, RULE_RUINS, f"{m} ({profile.type}) cannot climb in ruins")
        if rise > 6.0 + 1e-9 and profile.type not in FLYERS_OVER:
            return Ruling(False, RULE_RUINS,
                          f"{m}: floors {rise:.1f}\" apart cannot be climbed on foot")
        check = check_path_40k(board, m, dest, limit, movers=movers,
                               may_near=charge_targets, what=what)
        if not check.allowed:
            return Ruling(False, check.rule, check.reason, value=check,
                          geometry={"model": m, "distance": check.used,
                                    "blocker": check.blocker})
        final[m] = there
    outlines = [final.get(m) or board.outline(m) for m in board.unit_models(unit)]
    if not unit_coherent(outlines, board.ruleset.is_vehicle(board.profile(next(iter(dests))))):
        return Ruling(False, RULE_COHERENCY, f"{unit} would end out of coherency (2\")")
    return Ruling(True, RULE_MOVE)


def truncate(board: Board, model: str, dest: Dest, limit: float) -> Dest:
    """The destination cut back along the straight line to `limit` inches (same floor change
    if the climb still fits, else staying on the current level)."""
    if path_length(board, model, dest) <= limit + 1e-9:
        return dest
    now = board.outline(model)
    rise = climb(board, model, dest)
    floor = dest.floor
    if rise > limit:
        rise, floor = 0.0, board.floor_of(model)
    at = step_towards(now.center, dest.at, max(0.0, limit - rise))
    try:
        board.world.stand_height(at, floor)
    except ValueError:
        floor = None
    return Dest(at, floor, dest.facing)


def apply_moves(board: Board, dests: dict[str, Dest]) -> list[dict[str, Any]]:
    moved = []
    for m, dest in dests.items():
        before = board.outline(m).center
        board.move(m, dest.at, dest.facing, floor=dest.floor)
        moved.append({"model": m, "from": [round(v, 3) for v in before],
                      "to": [round(v, 3) for v in dest.at], "floor": dest.floor})
    return moved


def table_edge(board: Board, player: int) -> tuple[str, float]:
    """A player's own table edge (§10: "单位中的每个模型朝我方的桌边用最短的路径后撤"): the
    edge nearest the centre of their deployment zone under the scene's deployment (its
    polygons or its named map, e.g. Dawn of War puts player 2 along y = depth), else the edge
    nearest their models (player 1 the y = 0 edge when they have none)."""
    width, depth = board.world.table
    zones = scene_zones(board.scene.deployment, (width, depth), board.ruleset.deployment_maps)
    if zones and player in zones:
        cx, cy = np.mean(zones[player], axis=0)
    else:
        pts = [board.outline(m).center for m, s in board.models.items()
               if s.player == player and s.alive]
        cx, cy = np.mean(pts, axis=0) if pts else (width / 2, 0.0 if player == 1 else depth)
    edges = {("x", 0.0): cx, ("x", width): width - cx, ("y", 0.0): cy, ("y", depth): depth - cy}
    return min(edges, key=edges.get)


def towards_edge(board: Board, model: str, edge: tuple[str, float], distance: float) -> Dest:
    """A move of `distance` straight towards the edge (stopping at it)."""
    c = board.outline(model).center
    axis, value = edge
    goal = (value, c[1]) if axis == "x" else (c[0], value)
    return Dest(step_towards(c, goal, distance), None)


def touches_edge(board: Board, model: str, edge: tuple[str, float]) -> bool:
    o = board.outline(model)
    axis, value = edge
    coord = o.center[0] if axis == "x" else o.center[1]
    return abs(coord - value) <= max(o.radii) + 1e-6
