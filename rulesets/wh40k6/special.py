"""Smaller 40k rules as pure functions: blasts and templates, night fighting, focus fire,
reserves, game length, infiltrators, deep strike, look out sir, ruins (climbing, coherency,
engagement across floors, blasts by floor, jumping down)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from battlesight.rulesets.core.dice import d6, nd6
from battlesight.rulesets.core.measure import Outline, gap_3d, plan_gap, point_gap
from battlesight.rulesets.core.ruling import Ruling

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_BLAST = "wh40k6 §8.7"
RULE_NIGHT = "wh40k6 §8.12"
RULE_FOCUS = "wh40k6 §5.8"
RULE_RESERVES = "wh40k6 §7.8"
RULE_LENGTH = "wh40k6 §2.2"
RULE_LOOK_OUT = "wh40k6 §4.6"
RULE_RUINS = "wh40k6 §6.3"
RULE_COHERENCY = "wh40k6 §3"

# ---- blasts and templates (§8.7) -------------------------------------------------------------


def scatter_distance(two_d6: int, bs: int, barrage_unseen: bool = False) -> int:
    """How far a blast scatters on an arrow: 2D6 - BS (min 0); a barrage at a target it cannot
    see scatters the full 2D6."""
    return two_d6 if barrage_unseen else max(0, two_d6 - bs)


def scatter_point(centre: tuple[float, float], hit: bool, direction: float,
                  distance: float) -> tuple[float, float]:
    """Final marker centre: unchanged on a hit; else moved along the direction (degrees,
    counter-clockwise from +y)."""
    if hit:
        return float(centre[0]), float(centre[1])
    a = math.radians(direction)
    return centre[0] - math.sin(a) * distance, centre[1] + math.cos(a) * distance


def under_marker(outline: Outline, centre: tuple[float, float], diameter: float) -> bool:
    """A base wholly or partly under a blast marker of this diameter (seen from above)."""
    return point_gap(outline, centre) <= diameter / 2.0 + 1e-9


def marker_lost(centre: tuple[float, float], table: tuple[float, float]) -> bool:
    """A marker whose centre left the table is lost."""
    return not (0 <= centre[0] <= table[0] and 0 <= centre[1] <= table[1])


def blast_floor_hits(models_floors: dict[str, int], declared: int | None,
                     floors_there: list[int] | None = None) -> list[str]:
    """Which models under a blast in a ruin can be hit (§6.3): those on the declared floor; if
    that floor has no flooring where it landed, those on the highest level present there."""
    if declared is None:
        return list(models_floors)
    if floors_there is not None and declared not in floors_there:
        top = max((f for f in models_floors.values()), default=0)
        return [m for m, f in models_floors.items() if f == top]
    return [m for m, f in models_floors.items() if f == declared]


def template_floor_allowed(firer_floor: int, target_floor: int, flies: bool = False) -> bool:
    """A template reaches the firer's own floor or one above or below (jump units: any)."""
    return flies or abs(firer_floor - target_floor) <= 1


def under_template(firer: Outline, aim: tuple[float, float], target: Outline,
                   length: float = 8.0, wide: float = 2.0) -> bool:
    """A base under the teardrop template laid from the firer's base edge towards `aim`:
    approximated as a wedge 0.2" wide at the narrow end, `wide` at the far end."""
    origin = np.asarray(firer.center, float)
    direction = np.asarray(aim, float) - origin
    norm = float(np.linalg.norm(direction))
    if norm == 0:
        return False
    u = direction / norm
    rel = np.asarray(target.center, float) - origin
    along = float(rel @ u) - firer.radii[1]
    across = abs(float(rel @ np.array([-u[1], u[0]])))
    r = target.radii[1]
    if along < -r or along > length + r:
        return False
    half = 0.1 + (wide / 2 - 0.1) * min(max(along, 0.0), length) / length
    return across <= half + r


# ---- night fighting, focus fire (§8.12, §5.8) ---------------------------------------------


def night_effect(distance: float) -> str:
    """'normal' (<= 12"), 'stealth' (12-24"), 'shrouded' (24-36") or 'untargetable'."""
    if distance > 36.0:
        return "untargetable"
    if distance > 24.0:
        return "shrouded"
    if distance > 12.0:
        return "stealth"
    return "normal"


def focus_fire_eligible(covers: dict[str, int | None], focus: int | None) -> list[str]:
    """Models that may take wounds under Focus Fire on cover value `focus` (None: 'no cover'):
    those whose cover is that value or worse, or none."""
    out = []
    for model, value in covers.items():
        if value is None or (focus is not None and value >= focus):
            out.append(model)
    return out


# ---- reserves, game length, deployment (§7.8, §2.2) ------------------------------------------


def reserve_arrives(game_turn: int, roll: int, modifier: int = 0) -> Ruling:
    """Turn 2 and 3: D6 3+ (a 1 always fails); turn 4 on: automatic; turn 1: never."""
    if game_turn < 2:
        return Ruling(False, RULE_RESERVES, "no reserve rolls in game turn 1")
    if game_turn >= 4:
        return Ruling(True, RULE_RESERVES, "arrives automatically from turn 4")
    if roll == 1:
        return Ruling(False, RULE_RESERVES, "a 1 always fails")
    ok = roll + modifier >= 3
    return Ruling(ok, RULE_RESERVES, "" if ok else f"rolled {roll}: needs 3+")


def p_reserve(game_turn: int, modifier: int = 0) -> Fraction:
    if game_turn < 2:
        return Fraction(0)
    if game_turn >= 4:
        return Fraction(1)
    return d6().p(lambda v: v != 1 and v + modifier >= 3)


def game_continues(game_turn: int, roll: int | None) -> bool:
    """After game turn 5: 3+ continues; after turn 6: 4+; after 7 (or before 5 ends): stop."""
    if game_turn < 5:
        return True
    if game_turn == 5:
        return roll is not None and roll >= 3
    if game_turn == 6:
        return roll is not None and roll >= 4
    return False


def infiltrate_legal(nearest_enemy: float, seen_by_enemy: bool) -> Ruling:
    """Infiltrators: more than 12" from every enemy out of sight, or more than 18" anyway."""
    if nearest_enemy > 18.0:
        return Ruling(True, "wh40k6 §7.8", "more than 18\" from every enemy")
    if nearest_enemy > 12.0 and not seen_by_enemy:
        return Ruling(True, "wh40k6 §7.8", "more than 12\" away and out of sight")
    why = "visible to the enemy and within 18\"" if seen_by_enemy else "within 12\" of an enemy"
    return Ruling(False, "wh40k6 §7.8", why)


def deep_strike_mishap(roll: int) -> str:
    """Mishap table: 1 destroyed, 2-3 misplaced, 4-6 delayed."""
    return "destroyed" if roll == 1 else "misplaced" if roll <= 3 else "delayed"


# ---- look out sir (§4.6) ---------------------------------------------------------------------


def look_out_sir_need(independent: bool, nearest_friend: float | None,
                      in_challenge: bool = False) -> int | None:
    """D6 needed to pass a wound on: 4+, independent characters 2+; none without a squad-mate
    within 6" or in a challenge."""
    if in_challenge or nearest_friend is None or nearest_friend > 6.0 + 1e-9:
        return None
    return 2 if independent else 4


# ---- ruins (§6.3) ----------------------------------------------------------------------------


def climb_options(roll: int, spacing: float = 3.0) -> dict[str, float]:
    """What a difficult-terrain move of `roll` inches allows in a ruin (A23): floors climbed
    with no horizontal move, or the horizontal move left after climbing one floor."""
    if spacing > 6.0:
        return {"floors": 0, "horizontal_after_one": 0.0}
    floors = int(roll // spacing)
    after_one = roll - spacing if roll >= spacing else 0.0
    if spacing >= 6.0:
        after_one = 0.0
    return {"floors": floors, "horizontal_after_one": after_one}


def can_climb_to(roll: float, height: float, horizontal: float = 0.0) -> bool:
    """An infantry model moving `roll` inches can rise `height` and go `horizontal` (floors
    more than 6" apart cannot be climbed)."""
    if height > 6.0 + 1e-9:
        return False
    return height + horizontal <= roll + 1e-9


def coherent_across_floors(lower: Outline, upper: Outline) -> bool:
    """Models on different floors: the lower model's body within 6" of the upper's base."""
    return gap_3d(lower, upper, a_body=True) <= 6.0 + 1e-9


def coherent(a: Outline, b: Outline, vehicle: bool = False) -> bool:
    """Two models of a unit in coherency: 2" (squadrons 4"; 6" across floors)."""
    if abs(a.z - b.z) > 1.0:
        low, high = (a, b) if a.z < b.z else (b, a)
        return coherent_across_floors(low, high)
    return plan_gap(a, b) <= (4.0 if vehicle else 2.0) + 1e-9


def unit_coherent(outlines: list[Outline], vehicle: bool = False) -> bool:
    """Every model chained to the others by coherency links (one connected group)."""
    if len(outlines) <= 1:
        return True
    linked = {0}
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in range(len(outlines)):
            if j not in linked and coherent(outlines[i], outlines[j], vehicle):
                linked.add(j)
                frontier.append(j)
    return len(linked) == len(outlines)


def engaged(model: Outline, friend_in_contact: Outline) -> bool:
    """Engaged through a friend in base contact: 2" on the same floor, 6" across floors."""
    if abs(model.z - friend_in_contact.z) > 1.0:
        low, high = (model, friend_in_contact) if model.z < friend_in_contact.z \
            else (friend_in_contact, model)
        return coherent_across_floors(low, high)
    return plan_gap(model, friend_in_contact) <= 2.0 + 1e-9


def impact_fails(roll: int, drop: float, jump: bool = False) -> bool:
    """Impact test on jumping down (A17): D6 - 1 per full 3" fallen, modified 1 or less fails
    (jump packs ignore the modifier)."""
    modifier = 0 if jump else int(drop // 3)
    return roll - modifier <= 1


def p_charge(distance: float, difficult: bool = False) -> Fraction:
    """P(a charge of `distance` inches succeeds): 2D6 >= distance (3D6 drop highest)."""
    from battlesight.rulesets.core.dice import drop_highest

    dist = drop_highest(3) if difficult else nd6(2)
    return dist.at_least(math.ceil(distance - 1e-9))


def models_within(board: Board, centre: tuple[float, float], radius: float,
                  candidates: list[str]) -> list[str]:
    return [m for m in candidates if point_gap(board.outline(m), centre) <= radius + 1e-9]
