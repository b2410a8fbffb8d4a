"""WHFB 6th numbers as pure functions: to hit, to wound, saves, combat results, break tests,
flee and pursuit, rallying, panic, magic dice (whfb6 §7-§11). No dice are rolled here.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from battlesight.rulesets.core.dice import nd6

from .ambiguities import R4

RULE_TO_HIT = "whfb6 §8.2"
RULE_WOUND = "whfb6 §8.3"
RULE_SAVE = "whfb6 §8.4"
RULE_MELEE_HIT = "whfb6 §9.1"
RULE_RESULT = "whfb6 §9.2"
RULE_BREAK = "whfb6 §9.3"
RULE_FLEE = "whfb6 §7"
RULE_PANIC = "whfb6 §8.5"
RULE_MAGIC = "whfb6 §10"
RULE_RALLY = "whfb6 §7"
DOUBLE_SHOT_WITHIN = 9.0  # sling (whfb6 §8.7)
MAX_RANK_BONUS = 3
RANK_WIDTH = 4  # models a rank needs to count (whfb6 §3, [GK✓])
MAX_LD = 10


def shooting_need(bs: int, *, moved: bool = False, long_range: bool = False,
                  charging: bool = False, skirmish_or_single: bool = False, cover: int = 0,
                  large: bool = False) -> int:
    """The score needed: 7 - BS, +1 moved / long range / charging target / skirmishers or a
    single character, +1 soft or +2 hard cover (one modifier), -1 large target (§8.2)."""
    need = 7 - int(bs)
    need += int(moved) + int(long_range) + int(charging) + int(skirmish_or_single) + int(cover)
    return need - int(large)


def hit_procedure(need: int) -> tuple[int, int | None] | None:
    """How a score is rolled: (first die, second die or None); None if impossible (§8.2:
    7 = a 6 then 4+, 8 = 6 then 5+, 9 = 6 then 6, 10+ impossible; a natural 1 misses)."""
    if need >= 10:
        return None
    if need >= 7:
        return 6, need - 3
    return max(2, need), None


def p_shoot_hit(need: int) -> Fraction:
    proc = hit_procedure(need)
    if proc is None:
        return Fraction(0)
    first, second = proc
    p = Fraction(7 - first, 6)
    return p * Fraction(7 - second, 6) if second else p


def melee_need(ws_attacker: int, ws_defender: int, defended: bool = False) -> int:
    """WS chart [GK✓]: 3+ if WS is higher, 5+ if the defender's is more than double, else 4+;
    6s only against defenders behind an obstacle (§5.2, §9.1)."""
    if defended:
        return 6
    if ws_attacker > ws_defender:
        return 3
    if ws_defender > 2 * ws_attacker:
        return 5
    return 4


def wound_need(strength: int, toughness: int) -> int | None:
    """S vs T (§8.3): d = T - S; <= -2: 2+, -1: 3+, 0: 4+, 1: 5+, 2-3: 6+, >= 4: cannot."""
    d = int(toughness) - int(strength)
    if d >= 4:
        return None
    return {-1: 3, 0: 4, 1: 5, 2: 6, 3: 6}.get(d, 2)


def save_modifier(strength: int) -> int:
    """-1 per point of Strength above 3 (§8.4)."""
    return max(0, int(strength) - 3)


def armour_need(save: int | None, strength: int, armour_piercing: bool = False) -> int | None:
    """The armour save needed against a hit of this Strength; None when there is none (§8.4).
    A natural 1 always fails, so 1+ is rolled as 2+."""
    if save is None:
        return None
    need = int(save) + save_modifier(strength) + int(armour_piercing)
    return None if need > 6 else max(2, need)


def p_roll(need: int | None) -> Fraction:
    """P(D6 >= need) with a natural 1 failing; 0 for None or need > 6."""
    if need is None or need > 6:
        return Fraction(0)
    return Fraction(7 - max(2, need), 6)


def range_band(distance: float, max_range: float) -> str | None:
    """'short' up to and including half range, 'long' up to the maximum, None beyond (§8.1)."""
    if distance <= max_range / 2.0 + 1e-9:
        return "short"
    if distance <= max_range + 1e-9:
        return "long"
    return None


def shots_for(name: str, shots: int, distance: float) -> int:
    """Shots per model: a sling fires twice within 9" (§8.7), repeaters per profile."""
    if name == "sling":
        return 2 if distance <= DOUBLE_SHOT_WITHIN + 1e-9 else 1
    return shots


def charge_reach(move: int, flyer: bool = False) -> float:
    """A charge is 2 x M; a flyer's is 20" (not doubled) (§7)."""
    return 20.0 if flyer else 2.0 * move


def stand_and_shoot_allowed(distance: float, move: int, flyer: bool = False) -> bool:
    """Only if the chargers started more than half their charge distance away (§7)."""
    return distance > charge_reach(move, flyer) / 2.0 + 1e-9


def flee_dice(move: int, flying: bool = False) -> int:
    """2D6 for M 6 or less, 3D6 above; flying flyers always 3D6 (§7)."""
    return 3 if flying or move > 6 else 2


def pursuit_catches(pursue: int, flee: int) -> bool:
    return pursue >= flee


def rank_bonus(rank_sizes: list[int], skirmish: bool = False) -> int:
    """+1 per rank behind the first with 4 or more models, at most +3 (§9.2)."""
    if skirmish:
        return 0
    return min(MAX_RANK_BONUS, sum(1 for n in rank_sizes[1:] if n >= RANK_WIDTH))


def flank_rear_bonus(flank: bool, rear: bool) -> int:
    """+1 flank (both flanks still +1), +2 rear, +3 both (§9.2)."""
    return int(flank) + 2 * int(rear)


def combat_winner(score_a: int, score_b: int, musician_a: bool = False,
                  musician_b: bool = False) -> tuple[str | None, int]:
    """('a' | 'b' | None for a draw, margin): a tie goes to the only side with a musician."""
    if score_a == score_b:
        if musician_a != musician_b:
            return ("a" if musician_a else "b"), 1
        return None, 0
    return ("a" if score_a > score_b else "b"), abs(score_a - score_b)


def breaks(dice_total: int, margin: int, ld: int) -> bool:
    """Break test: 2D6 + the margin of defeat greater than Ld breaks (§9.3)."""
    return dice_total + margin > ld


def p_break(margin: int, ld: int) -> Fraction:
    return nd6(2).p(lambda v: v + margin > ld)


def leadership_passes(dice_total: int, ld: int) -> bool:
    return dice_total <= ld


def p_leadership_test(ld: int) -> Fraction:
    """A Ld test (stupidity, panic, rally) passes on 2D6 <= Ld (§11)."""
    return nd6(2).p(lambda v: v <= ld)


def may_rally(models_now: int, models_start: int) -> bool:
    """A unit needs at least a quarter of its starting models to rally (§7)."""
    return models_now * 4 >= models_start


def rally_ld(ld: int, musician: bool) -> int:
    return min(MAX_LD, ld + 1) if musician else ld


def shooting_panic(start: int, lost: int, strictly_more: bool | None = None) -> bool:
    """Casualties from shooting over a quarter of the unit (§8.5, W-16): the seed's "more
    than a quarter", or a quarter or more under reading whfb6.4 'quarter-or-more' (None:
    the reading decides)."""
    if start <= 0 or lost <= 0:
        return False
    if strictly_more is None:
        strictly_more = R4.means("more-than-quarter")
    return lost * 4 > start if strictly_more else lost * 4 >= start


def strike_first(a: tuple[bool, int, bool], b: tuple[bool, int, bool]) -> str:
    """Who strikes first: each side (charged this round, Initiative, won the last round).
    Chargers first, then higher I, then the last round's winner; 'roll' when still equal."""
    if a[0] != b[0]:
        return "a" if a[0] else "b"
    if a[1] != b[1]:
        return "a" if a[1] > b[1] else "b"
    if a[2] != b[2]:
        return "a" if a[2] else "b"
    return "roll"


# ---- magic ---------------------------------------------------------------------------------


def power_dice(levels: list[int]) -> int:
    """2 plus each wizard's level (§10.1)."""
    return 2 + sum(levels)


def dispel_dice(levels: list[int], dwarfs: bool = False, runesmiths: int = 0) -> int:
    """2 (4 Dwarfs) + 1 per Runesmith/Runelord + 1 per level 1-2 wizard, 2 per level 3-4."""
    return (4 if dwarfs else 2) + runesmiths + sum(1 if lv <= 2 else 2 for lv in levels if lv)


def max_power_dice(level: int) -> int:
    return level + 1


def cast_result(dice: list[int], casting_value: int) -> dict[str, object]:
    """Cast if the total reaches the value; a total of 1 or 2 fails; two 1s miscast; two 6s
    are Irresistible Force unless there are also two 1s (§10.3)."""
    total = sum(dice)
    ones, sixes = dice.count(1), dice.count(6)
    miscast = ones >= 2
    irresistible = sixes >= 2 and not miscast
    cast = irresistible or (not miscast and total > 2 and total >= casting_value)
    return {"total": total, "cast": cast, "miscast": miscast, "irresistible": irresistible}


def p_cast(n: int, casting_value: int) -> Fraction:
    """Exact chance that n power dice cast a spell of this value (§10.3: two 6s always cast,
    two 1s never, a total of 1 or 2 fails)."""
    rolls = list(product(range(1, 7), repeat=n))
    return Fraction(sum(1 for r in rolls if cast_result(list(r), casting_value)["cast"]),
                    len(rolls))


def dispelled(dice: list[int], casting_total: int) -> bool:
    """A dispel total at least the casting total; two 1s always fail (§10.4)."""
    return dice.count(1) < 2 and sum(dice) >= casting_total


def dispelled_in_play(dice: list[int], casting_value: int) -> bool:
    """A spell in play goes on a total of at least its casting value (§10.5)."""
    return dice.count(1) < 2 and sum(dice) >= casting_value


def overrun_allowed(first_round: bool, target_wiped_out: bool) -> bool:
    """Overrun only after wiping the enemy out in the first round of combat (whfb6 §7)."""
    return first_round and target_wiped_out


def reactions_allowed(contact: str) -> tuple[str, ...]:
    """Charge reactions of a unit contacted by a charge, a pursuit or an overrun (§7): an
    overrun may only be held; pursuers and overrunners count as charging (W-27, W-28)."""
    if contact == "overrun":
        return ("hold",)
    return ("hold", "stand_and_shoot", "flee")
