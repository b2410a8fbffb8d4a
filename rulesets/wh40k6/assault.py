"""The assault phase (wh40k6 §9): charges with overwatch, and fighting a combat.

Simplifications (documented in the report): charge and pile-in moves are straight lines to
base contact with the nearest enemy model (pile-ins at the start of each initiative step, for
the models of that step; who strikes is judged at the step, after its pile-in); each model
strikes with one melee weapon (the first special one it carries).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.measure import step_towards
from battlesight.rulesets.core.moves import Dest
from battlesight.rulesets.core.ruling import Ruling

from .movement import apply_moves, crosses_difficult
from .profile import Profile, Weapon
from .sight import can_see_unit
from .tables import best_save, majority_or_highest, melee_to_hit, to_wound

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.dice import Roller

RULE_CHARGE = "wh40k6 §9.1"
RULE_FIGHT = "wh40k6 §9.2"
RULE_RESULT = "wh40k6 §9.4"
#: inches of a pile-in move (§9.2)
PILE_IN = 3.0
NO_CHARGE_AFTER = {"rapid fire", "salvo", "ordnance", "heavy"}
CHARGE_REACH = 12.0
CONTACT = 0.05


@dataclass
class MeleeWound:
    """A melee wound (or a glancing / penetrating hit on a vehicle) waiting to be resolved."""

    target: str
    ap: int | None
    strength: int | None
    result: str = "wound"  # wound | glancing | penetrating


def charge_ruling(board: Board, unit: str, target: str, turn: dict[str, Any],
                  status: dict[str, Any]) -> Ruling:
    """Whether `unit` may declare a charge against `target` (§9.1)."""
    if board.unit_player(unit) == board.unit_player(target):
        return Ruling(False, RULE_CHARGE, "cannot charge a friendly unit")
    if not board.unit_models(target):
        return Ruling(False, RULE_CHARGE, f"{target} has no models on the table")
    for flag, why in (("ran", "it ran this turn"), ("charged", "it already charged"),
                      ("arrived", "it arrived from reserve this turn")):
        if turn.get(flag):
            return Ruling(False, RULE_CHARGE, f"{unit} cannot charge: {why}")
    for flag, why in (("locked", "it is locked in combat"), ("falling_back", "it is falling back"),
                      ("gone_to_ground", "it has gone to ground"),
                      ("regrouped", "it regrouped this turn (§10)")):
        if status.get(flag):
            return Ruling(False, RULE_CHARGE, f"{unit} cannot charge: {why}")
    fired = set(turn.get("fired", ())) & NO_CHARGE_AFTER
    walker = all(board.profile(m).is_walker for m in board.unit_models(unit))
    if fired and not walker:
        return Ruling(False, "wh40k6 §8.6",
                      f"{unit} fired {', '.join(sorted(fired))} weapons this turn")
    shot = turn.get("shot") or turn.get("witchfire")  # a witchfire counts (§8.11)
    if shot and shot != target:
        return Ruling(False, RULE_CHARGE, f"{unit} shot {shot}: it may only charge it")
    profiles = [board.profile(m) for m in board.unit_models(unit)]
    if any(p.is_vehicle and not p.is_walker for p in profiles):
        return Ruling(False, RULE_CHARGE, "vehicles other than walkers cannot charge")
    distance = board.unit_gap(unit, target)
    if distance > CHARGE_REACH + 1e-9:
        return Ruling(False, RULE_CHARGE, f"{target} is {distance:.2f}\" away: it cannot "
                      f"possibly be reached (2D6, at most {CHARGE_REACH:g}\")",
                      geometry={"distance": distance})
    if not can_see_unit(board, board.unit_models(unit), target):
        return Ruling(False, RULE_CHARGE, f"no model of {unit} can see {target}")
    return Ruling(True, RULE_CHARGE, geometry={"distance": distance})


def charge_roll(board: Board, roller: Roller, unit: str, target: str) -> dict[str, Any]:
    """Roll the charge: 2D6, or 3D6 dropping the highest through difficult terrain."""
    nearest = _nearest_pairs(board, unit, target)
    dests = {m: Dest(board.outline(t).center) for m, t in nearest.items()}
    difficult = crosses_difficult(board, unit, dests)
    if not difficult and any(board.profile(m).has("enfeebled") for m in board.unit_models(unit)):
        difficult = ["open ground (Enfeeble, wh40k6 §8.11)"]
    if difficult:
        dice = roller.d6(3, f"{unit} charge through difficult terrain (3D6 drop the highest)")
        distance = sum(sorted(dice)[:2])
    else:
        dice = roller.d6(2, f"{unit} charge (2D6)")
        distance = sum(dice)
    need = board.unit_gap(unit, target)
    return {"dice": dice, "distance": distance, "needed": round(need, 3),
            "difficult": difficult, "success": distance + 1e-9 >= need}


def _nearest_pairs(board: Board, unit: str, target: str) -> dict[str, str]:
    enemies = board.unit_models(target)
    return {m: min(enemies, key=lambda e, m=m: board.gap(m, e)) for m in board.unit_models(unit)}


def contact_point(board: Board, mover: str, enemy: str) -> tuple[float, float]:
    """Where mover's centre goes to touch enemy's base, approaching along the line between."""
    a, b = board.outline(mover), board.outline(enemy)
    d = np.subtract(a.center, b.center)
    n = float(np.linalg.norm(d)) or 1.0
    reach = b.radii[1] + a.radii[1] + 0.01
    return float(b.center[0] + d[0] / n * reach), float(b.center[1] + d[1] / n * reach)


def move_into_contact(board: Board, unit: str, target: str, limit: float,
                      models: list[str] | None = None) -> list[dict]:
    """Charge or pile-in moves: each model (of `models`, default all), closest first,
    straight towards its nearest enemy model, into base contact if it can reach, else as far
    as `limit` allows."""
    pairs = _nearest_pairs(board, unit, target)
    if models is not None:
        pairs = {m: e for m, e in pairs.items() if m in models}
    order = sorted(pairs, key=lambda m: board.gap(m, pairs[m]))
    dests: dict[str, Dest] = {}
    for m in order:
        enemy = pairs[m]
        if board.gap(m, enemy) <= CONTACT:
            continue
        goal = contact_point(board, m, enemy)
        start = board.outline(m).center
        floor = board.floor_of(enemy)
        climb = abs(board.outline(enemy).z - board.outline(m).z)
        at = step_towards(start, goal, max(0.0, limit - climb))
        try:
            board.world.stand_height(at, floor)
        except ValueError:
            floor = None
        dests[m] = Dest(at, floor)
    return apply_moves(board, dests)


def in_contact(board: Board, model: str, enemies: list[str]) -> list[str]:
    return [e for e in enemies if board.gap(model, e) <= CONTACT + 0.02]


def melee_weapon(profile: Profile) -> tuple[Weapon, int]:
    """The weapon a model strikes with and its bonus attacks (+1 for two one-handed weapons:
    a pistol or second weapon with a close combat weapon) (§9.2)."""
    melee = [w for w in profile.weapons if w.melee]
    special = [w for w in melee if w.name not in ("close combat weapon", "choppa", "chainsword")]
    weapon = (special or melee)[0]
    pistols = [w for w in profile.weapons if w.kind == "pistol"]
    extra = 1 if (pistols or len(melee) > 1) and not weapon.has("two-handed") else 0
    return weapon, extra


def initiative(board: Board, model: str, weapon: Weapon, charged_through_cover: bool) -> int:
    profile = board.profile(model)
    if charged_through_cover or (weapon.has("unwieldy") and not (
            profile.type == "monstrous creature" or profile.is_walker)):
        return 1
    return int(profile.stat("I", 1) or 1)


def fight(board: Board, roller: Roller, sides: dict[int, list[str]], charged: set[str],
          through_cover: set[str], moved_vehicles: set[str]) -> dict[str, Any]:
    """Fight one combat between the units of two players; returns the combat record with
    unsaved wounds per player (combat result, §9.4)."""
    units = [u for us in sides.values() for u in us]  # the active player's side first
    record: dict[str, Any] = {"steps": [], "wounds": defaultdict(int), "pile_ins": []}
    strikes = []
    for u in units:
        for m in board.unit_models(u):
            weapon, extra = melee_weapon(board.profile(m))
            i = initiative(board, m, weapon, u in through_cover)
            strikes.append((i, m, u, weapon, extra))
    for step in range(10, 0, -1):
        stepping = [s for s in strikes if s[0] == step and board.model(s[1]).alive]
        if not stepping:
            continue
        _pile_in(board, units, [s[1] for s in stepping], step, record)
        engaged = {m for u in units for m in _engaged(board, u, _foes(board, units, u))}
        now = [s for s in stepping if s[1] in engaged]
        pending = []
        for _, m, u, weapon, extra in now:
            foes = [x for e in units if board.unit_player(e) != board.unit_player(u)
                    for x in board.unit_models(e)]
            if not foes:
                continue
            pending.append(_attack(board, roller, m, u, weapon, extra, u in charged, foes,
                                   moved_vehicles))
        for m, u, wounds, foes in pending:  # simultaneous within a step
            for wound in wounds:
                alive = [f for f in foes if board.model(f).alive]
                if not alive:
                    break
                victim = wound.target if board.model(wound.target).alive else \
                    min(alive, key=lambda f: board.gap(m, f) if board.model(m).alive else 0)
                dealt = _wound(board, roller, victim, wound)
                record["wounds"][board.unit_player(u)] += dealt
                record["steps"].append({"initiative": step, "attacker": m, "victim": victim,
                                        "unsaved": dealt})
    record["wounds"] = dict(record["wounds"])
    return record


def _foes(board: Board, units: list[str], unit: str) -> list[str]:
    return [m for e in units if board.unit_player(e) != board.unit_player(unit)
            for m in board.unit_models(e)]


def _pile_in(board: Board, units: list[str], models: list[str], step: int,
             record: dict[str, Any]) -> None:
    """At the start of each initiative step every model of that step not in base contact
    piles in up to 3" towards the enemy locked with it, the active player's first (§9.2,
    seed: "在每一个主动性分步的开始，任何主动性与当前分步等值的模型如果还未与敌人底盘接触，
    就必须进行一次跟进移动。这是一次多达3寸的移动")."""
    for u in units:
        foes = _foes(board, units, u)
        movers = [m for m in board.unit_models(u) if m in models and not in_contact(board, m, foes)]
        enemies = [e for e in units if board.unit_player(e) != board.unit_player(u)
                   and board.unit_models(e)]
        if movers and enemies:
            moved = move_into_contact(board, u, enemies[0], PILE_IN, movers)
            if moved:
                record["pile_ins"].append({"initiative": step, "unit": u, "moves": moved})


def _engaged(board: Board, unit: str, foes: list[str]) -> list[str]:
    """Models in base contact, or within 2" (6" across floors) of a unit-mate that is."""
    from .special import engaged

    models = board.unit_models(unit)
    touching = [m for m in models if in_contact(board, m, foes)]
    return [m for m in models if m in touching or any(
        engaged(board.outline(m), board.outline(t)) for t in touching)]


def _attack(board, roller, model, unit, weapon: Weapon, extra, charging, foes, moved_vehicles):
    profile = board.profile(model)
    attacks = int(profile.stat("A", 1) or 1) + extra + (1 if charging else 0)
    touching = in_contact(board, model, foes) or sorted(foes, key=lambda f: board.gap(model, f))
    target = touching[0]
    t_prof = board.profile(target)
    strength = weapon.strength_for((profile.stat("S", 3) or 3)
                                   + (1 if charging and profile.has("furious charge") else 0))
    if t_prof.is_vehicle and not t_prof.is_walker:
        ws_def = 1 if target in moved_vehicles else 0
    else:
        ws_def = majority_or_highest([board.profile(f).stat("WS", 1) or 1 for f in touching])
    need = melee_to_hit(profile.stat("WS", 1) or 1, ws_def)
    dice = roller.d6(attacks, f"{model} attacks ({need}+ to hit)" if need else
                     f"{model} attacks (automatic hits)")
    if need and profile.has("re-roll hits"):  # Prescience: re-roll failed hits (§8.11)
        misses = sum(1 for d in dice if d < need)
        dice = [d for d in dice if d >= need] + (
            roller.d6(misses, f"{model} Prescience re-roll ({need}+)") if misses else [])
    hits = sum(1 for d in dice if need == 0 or d >= need)
    wounds = []
    if t_prof.is_vehicle:
        armour = t_prof.armour("front" if t_prof.is_walker else "rear") or 10
        for _ in range(hits):
            total = roller.one(f"{model} penetration vs AV{armour}") + (strength or 0)
            if total >= armour:
                wounds.append(MeleeWound(target, weapon.ap, strength,
                                         "penetrating" if total > armour else "glancing"))
        return model, unit, wounds, foes
    t_vals = [board.profile(f).stat("T", 4) or 4 for f in touching]
    wound_need = to_wound(strength, majority_or_highest(t_vals))
    if wound_need is None or not hits:
        return model, unit, wounds, foes
    for d in roller.d6(hits, f"{model} to wound ({wound_need}+)"):
        if d >= wound_need:
            wounds.append(MeleeWound(target, weapon.ap, strength))
    return model, unit, wounds, foes


def _wound(board: Board, roller: Roller, victim: str, wound: MeleeWound) -> int:
    """Resolve one melee wound (no cover saves, §9.2); returns unsaved wounds for the combat
    result (an instant-death kill counts the wounds it had left; glance 1, pen 2, §9.3)."""
    profile = board.profile(victim)
    ap, strength = wound.ap, wound.strength
    if profile.is_vehicle:
        from .damage import apply_vehicle_hit

        apply_vehicle_hit(board, roller, victim, wound.result, ap)
        return 2 if wound.result == "penetrating" else 1
    save = best_save(profile.stat("Sv"), ap, profile.stat("Inv"))
    roll = roller.one(f"{victim} {save.kind} save ({save.need}+)" if save.need
                      else f"{victim} no save")
    if save.need is not None and roll >= save.need and roll != 1:
        return 0
    left = board.model(victim).wounds
    instant = strength is not None and not profile.has("eternal warrior") and \
        strength >= 2 * (profile.stat("T") or 99)
    lost = left if instant else 1
    board.set_wounds(victim, left - lost)
    if left - lost <= 0:
        board.remove(victim)
    return lost
