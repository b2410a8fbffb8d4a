"""Exact dice distributions against brute-force enumeration, and the seeded roller."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from battlesight.rulesets.core.dice import (
    Dist,
    Roller,
    binomial,
    boosted,
    d3,
    d6,
    drop_highest,
    highest_of,
    keep_highest,
    lowest_of,
    nd6,
    p_leadership,
    p_target,
    reroll,
)


def enumerate_rolls(n: int, fn) -> Dist:
    return Dist.from_outcomes(fn(r) for r in itertools.product(range(1, 7), repeat=n))


def test_d6_and_d3():
    assert d6().probs == {v: Fraction(1, 6) for v in range(1, 7)}
    assert d3().probs == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    assert d6().mean() == Fraction(7, 2)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_nd6_matches_enumeration(n):
    assert nd6(n) == enumerate_rolls(n, sum)


def test_2d6_known_values():
    two = nd6(2)
    assert two[7] == Fraction(6, 36)
    assert two[2] == two[12] == Fraction(1, 36)
    assert two.at_least(8) == Fraction(15, 36)


def test_2d6_pick_highest_at_least_5():
    """Difficult terrain (wh40k6 §7.2): P(highest of 2D6 >= 5) = 1 - (4/6)^2 = 20/36."""
    assert highest_of(2).at_least(5) == Fraction(20, 36)
    assert highest_of(2) == enumerate_rolls(2, max)
    assert highest_of(3) == enumerate_rolls(3, max)  # Move Through Cover, MCs


def test_3d6_drop_highest():
    """Charging through difficult terrain (wh40k6 §9.1): 3D6 dropping the highest die."""
    dist = drop_highest(3)
    assert dist == enumerate_rolls(3, lambda r: sum(sorted(r)[:2]))
    assert dist[2] == Fraction(16, 216)  # at least two 1s: 3*5 + 1 = 16 of 216
    assert dist.at_least(7) == enumerate_rolls(3, lambda r: sum(sorted(r)[:2])).at_least(7)
    assert dist.at_least(7) < nd6(2).at_least(7)


def test_lowest_and_keep():
    assert lowest_of(2) == enumerate_rolls(2, min)
    assert keep_highest(4, 2) == enumerate_rolls(4, lambda r: sum(sorted(r)[2:]))


def test_boost_adds_a_die():
    assert boosted(2) == nd6(3)


def test_reroll_failed_and_ones():
    hit_on_3 = p_target(3)
    assert hit_on_3 == Fraction(4, 6)
    assert p_target(3, reroll_failed=True) == Fraction(4, 6) + Fraction(2, 6) * Fraction(4, 6)
    # re-roll a natural 1 needing 6+ (BS6, wh40k6 §8.2)
    assert p_target(2, reroll_ones=True, reroll_need=6) == Fraction(5, 6) + Fraction(1, 36)
    re = reroll(d6(), lambda v: v == 1)
    assert re[1] == Fraction(1, 36) and re[6] == Fraction(1, 6) + Fraction(1, 36)


def test_target_numbers_clamp():
    assert p_target(1) == p_target(2) == Fraction(5, 6)  # a 1 always fails
    assert p_target(7) == 0 and p_target(None) == 0


def test_leadership_double_one():
    assert p_leadership(2) == Fraction(1, 36)
    assert p_leadership(1) == Fraction(1, 36)  # double 1 always passes
    assert p_leadership(8, -3) == nd6(2).at_most(5)


def test_binomial():
    dist = binomial(3, Fraction(1, 2))
    assert dist.probs == {0: Fraction(1, 8), 1: Fraction(3, 8), 2: Fraction(3, 8),
                          3: Fraction(1, 8)}


def test_dist_rejects_bad_probabilities():
    with pytest.raises(ValueError):
        Dist({1: Fraction(1, 2)})


def test_roller_replays_from_seed():
    a, b = Roller(42), Roller(42)
    rolls_a = [a.d6(3, "x"), a.one("y"), a.d3("z"), a.direction("w")]
    rolls_b = [b.d6(3, "x"), b.one("y"), b.d3("z"), b.direction("w")]
    assert rolls_a == rolls_b
    assert [r.why for r in a.take_log()] == ["x", "y", "z", "w"]
    assert a.log == []
    assert Roller(1).d6(20) != Roller(2).d6(20)
    assert all(1 <= v <= 6 for v in Roller(3).d6(100))
