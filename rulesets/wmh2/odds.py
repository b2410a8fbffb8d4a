"""Exact odds of MK II rolls (wmh2 §9, table §9.3): attack rolls of n d6 + modifier against
DEF with the automatic results (all 1s miss; all 6s hit when two or more dice are rolled),
critical hits, and damage rolls against ARM. Fractions, never simulation.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

from battlesight.rulesets.core.dice import Dist

RULE_HIT = "wmh2 §9.1"
RULE_AUTO = "wmh2 §9.2 (automatic hits and misses)"
RULE_DAMAGE = "wmh2 §9.1 (damage)"


def hit_result(dice: list[int], modifier: int, defense: int, auto: bool = True) -> bool:
    """Whether one rolled attack hits: all 1s miss, all 6s (two dice or more) hit, else the
    total must equal or exceed DEF (wmh2 §9.1, §9.2)."""
    if auto and all(d == 1 for d in dice):
        return False
    if auto and len(dice) >= 2 and all(d == 6 for d in dice):
        return True
    return sum(dice) + modifier >= defense


def is_critical(dice: list[int]) -> bool:
    """A hit is critical when at least two attack dice show the same number (wmh2 §9.2)."""
    return len(dice) != len(set(dice))


@lru_cache(maxsize=4096)
def p_hit(dice: int, modifier: int, defense: int, auto: bool = True) -> Fraction:
    """P(an attack of `dice` d6 + modifier hits DEF)."""
    faces = itertools.product(range(1, 7), repeat=dice)
    hits = sum(1 for roll in faces if hit_result(list(roll), modifier, defense, auto))
    return Fraction(hits, 6**dice)


@lru_cache(maxsize=4096)
def p_critical(dice: int, modifier: int, defense: int, auto: bool = True) -> Fraction:
    """P(a critical hit)."""
    faces = itertools.product(range(1, 7), repeat=dice)
    crits = sum(1 for roll in faces
                if hit_result(list(roll), modifier, defense, auto) and is_critical(list(roll)))
    return Fraction(crits, 6**dice)


@lru_cache(maxsize=4096)
def damage_dist(dice: int, modifier: int, armour: int) -> Dist:
    """Damage points of a damage roll: max(0, n d6 + modifier - ARM) (wmh2 §9.1)."""
    faces = itertools.product(range(1, 7), repeat=dice)
    return Dist.from_outcomes(max(0, sum(roll) + modifier - armour) for roll in faces)


def p_damage(dice: int, modifier: int, armour: int) -> Fraction:
    """P(a hit deals at least one damage point)."""
    return damage_dist(dice, modifier, armour).p(lambda v: v > 0)


def expected_damage(dice: int, modifier: int, armour: int) -> Fraction:
    return damage_dist(dice, modifier, armour).mean()
