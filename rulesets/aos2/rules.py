"""AoS 2nd numbers as pure functions (aos2 §2-§13): the attack sequence, battleshock, charges,
coherency, casting and unbinding, priority and objectives. No dice are rolled here.
"""

from __future__ import annotations

from fractions import Fraction

from battlesight.rulesets.core.dice import nd6

from .ambiguities import R2

RULE_HIT = "aos2 §8.3"
RULE_SAVE = "aos2 §8.3"
RULE_COVER = "aos2 §5.1"
RULE_BATTLESHOCK = "aos2 §11.1"
RULE_CHARGE = "aos2 §7.3"
RULE_COHERENCY = "aos2 §3.2"
RULE_CAST = "aos2 §10.1"
RULE_UNBIND = "aos2 §10.2"
RULE_PRIORITY = "aos2 §2.2"
RULE_OBJECTIVES = "aos2 §12"
#: Cover never applies to a unit with a MONSTER or WAR MACHINE whose Wounds are above this.
#: The seed says "高于 8" (more than 8) and wins over the English "8 or more" (aos2 §5.1, A-05).
COVER_WOUNDS_LIMIT = 8
CHARGE_REACH = 12.0
CHARGE_END = 0.5
ENGAGE = 3.0
PILE_IN = 3.0
COHERENCY_H = 1.0
COHERENCY_V = 6.0
UNBIND_RANGE = 30.0
HERO_AURA = 6.0
GENERAL_AURA = 12.0


def roll_need(target: int, modifier: int = 0) -> int:
    """Hit or wound: the unmodified score needed with a modifier (+1 makes it easier); an
    unmodified 1 always fails and an unmodified 6 always succeeds (aos2 §8.3)."""
    return min(6, max(2, target - modifier))


def p_need(need: int | None) -> Fraction:
    if need is None or need > 6:
        return Fraction(0)
    return Fraction(7 - max(2, need), 6)


def save_need(save: int | None, rend: int = 0, bonus: int = 0) -> int | None:
    """The unmodified save roll needed: roll + rend + bonus >= Save ('-' is 7+); an unmodified
    1 always fails; None when no roll can save (aos2 §8.3, §3.3, A-06)."""
    need = (7 if save is None else save) - rend - bonus
    return None if need > 6 else max(2, need)


def cover_excluded(keywords: set[str] | frozenset[str], wounds: int) -> bool:
    """MONSTER or WAR MACHINE with Wounds over 8: never cover (aos2 §5.1, seed reading)."""
    big = "monster" in keywords or "war machine" in keywords
    if R2.means("8-or-more"):
        return big and wounds >= COVER_WOUNDS_LIMIT
    return big and wounds > COVER_WOUNDS_LIMIT


def battleshock(roll: int, slain: int, bravery: int, models: int,
                modifier: int = 0) -> tuple[bool, int]:
    """(passed, models that flee): D6 + slain against Bravery + 1 per 10 models (aos2 §11.1)."""
    brave = bravery + models // 10 + modifier
    over = roll + slain - brave
    return over <= 0, max(0, over)


def charge_eligible(closest_enemy: float, ran: bool = False, retreated: bool = False) -> bool:
    """Within 12" of an enemy, not within 3", did not run or retreat (aos2 §7.3)."""
    return not ran and not retreated and ENGAGE < closest_enemy <= CHARGE_REACH + 1e-9


def charge_needed(gap: float) -> float:
    """The roll needed to bring the first model within 1/2" of an enemy model."""
    return max(0.0, gap - CHARGE_END)


def charge_succeeds(roll: int, gap: float) -> bool:
    return roll + 1e-9 >= charge_needed(gap)


def p_charge(gap: float) -> Fraction:
    return nd6(2).p(lambda v: charge_succeeds(v, gap))


def coherent_pair(horizontal: float, vertical: float) -> bool:
    return horizontal <= COHERENCY_H + 1e-9 and vertical <= COHERENCY_V + 1e-9


def cast_succeeds(roll: int, value: int) -> bool:
    return roll >= value


def unbinds(unbind_roll: int, casting_roll: int) -> bool:
    """Unbound only on a roll higher than the casting roll (aos2 §10.2)."""
    return unbind_roll > casting_roll


def may_unbind(distance: float) -> bool:
    return distance <= UNBIND_RANGE + 1e-9


def in_aura(distance: float, general: bool) -> bool:
    """Command abilities: within 6" of a HERO, or 12" of a HERO that is the general."""
    return distance <= (GENERAL_AURA if general else HERO_AURA) + 1e-9


def pile_in_ok(before: float, after: float, moved: float) -> bool:
    """Up to 3", ending no farther from the nearest enemy model (aos2 §7.2, §15 #9)."""
    return moved <= PILE_IN + 1e-9 and after <= before + 1e-9


def priority(rolls: dict[int, int], previous_first: int | None,
             deployed_first: int) -> tuple[int | None, int]:
    """(roll-off winner or None on a tie, the player who chooses) (aos2 §2.2, A-32)."""
    best = max(rolls.values())
    top = [p for p, r in rolls.items() if r == best]
    if len(top) == 1:
        return top[0], top[0]
    return None, previous_first if previous_first is not None else deployed_first


def objective_control(counts: dict[int, int], holder: int | None) -> int | None:
    """More models within 6" takes the objective; a tie leaves it with its holder."""
    best = max(counts.values(), default=0)
    top = [p for p, n in counts.items() if n == best and n > 0]
    return top[0] if len(top) == 1 else holder


def run_distance(move: int, roll: int, at_the_double: bool = False) -> int:
    """Run: Move + D6; At the Double makes the roll count as 6 (aos2 §7.2)."""
    return move + (6 if at_the_double else roll)


def look_out_sir(is_hero: bool, is_monster: bool, escort_models: int,
                 escort_distance: float, missile: bool = True) -> bool:
    """-1 to hit a HERO (not a MONSTER) within 3" of a friendly unit of 3+ models, missile
    weapons only (aos2 §8.1, A-14)."""
    return missile and is_hero and not is_monster and escort_models >= 3 and \
        escort_distance <= ENGAGE + 1e-9
