"""whfb6 digest §12 test scenarios that are pure numbers (W-01..W-08, W-14..W-28)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from battlesight.rulesets.core.dice import nd6
from battlesight.rulesets.whfb6 import tables as t


def test_w01_basic_to_hit():
    assert t.shooting_need(3) == 4
    assert t.p_shoot_hit(4) == Fraction(1, 2)


def test_w02_long_range_and_hard_cover():
    need = t.shooting_need(3, long_range=True, cover=2)
    assert need == 7 and t.hit_procedure(need) == (6, 4)
    assert t.p_shoot_hit(need) == Fraction(1, 12)


def test_w03_stacked_penalties():
    need = t.shooting_need(3, moved=True, long_range=True, skirmish_or_single=True, cover=1)
    assert need == 8 and t.hit_procedure(need) == (6, 5)
    assert t.p_shoot_hit(need) == Fraction(1, 18)


def test_w04_impossible_shot():
    need = t.shooting_need(1, moved=True, long_range=True, cover=2)
    assert need == 10 and t.hit_procedure(need) is None and t.p_shoot_hit(need) == 0


def test_w05_large_target_floor():
    assert t.shooting_need(5, large=True) == 1
    assert t.hit_procedure(1) == (2, None)  # a natural 1 always misses
    assert t.hit_procedure(t.shooting_need(4, large=True)) == (2, None)


@pytest.mark.parametrize(("distance", "band"), [(12.0, "short"), (12.1, "long"),
                                                (24.0, "long"), (24.1, None)])
def test_w06_range_bands_bow(distance, band):
    assert t.range_band(distance, 24) == band


def test_w06_other_bows():
    assert t.range_band(15.0, 30) == "short" and t.range_band(15.1, 30) == "long"
    assert t.range_band(8.0, 16) == "short" and t.range_band(8.1, 16) == "long"


def test_w07_sling_double_shots():
    assert t.shots_for("sling", 1, 9.0) == 2 and t.range_band(9.0, 18) == "short"
    assert t.shots_for("sling", 1, 9.5) == 1 and t.range_band(9.5, 18) == "long"


def test_w08_move_or_fire():
    from battlesight.rulesets.whfb6.profile import parse_weapon

    handgun = parse_weapon({"name": "handgun", "range": 24, "S": 4,
                            "rules": ["move or fire"]})
    assert handgun.has("move or fire")
    assert t.shooting_need(3, moved=True) == 5  # a longbow that moved: +1


@pytest.mark.parametrize(("save", "strength", "need"), [(3, 3, 3), (3, 4, 4), (3, 5, 5),
                                                        (3, 7, None), (2, 3, 2), (5, 4, 6)])
def test_w14_armour_saves_against_strength(save, strength, need):
    assert t.armour_need(save, strength) == need


def test_w14_barding_natural_one_fails():
    assert t.armour_need(1, 3) == 2 and t.p_roll(2) == Fraction(5, 6)


def test_w15_ward_save_not_modified():
    from battlesight.rulesets.whfb6.profile import parse_profile
    from battlesight.rulesets.whfb6.shooting import save_needs

    p = parse_profile({"stats": {"T": 4, "Sv": 4}, "ward": 5})
    assert save_needs(p, 10, False) == (None, 5)


def test_w16_shooting_panic_threshold():
    assert t.shooting_panic(20, 6)
    assert not t.shooting_panic(20, 5)  # the seed: "more than a quarter" (default)
    assert t.shooting_panic(20, 5, strictly_more=False)  # the English "25%"


def test_w17_defended_obstacle():
    assert t.melee_need(5, 3, defended=True) == 6
    assert t.melee_need(5, 3) == 3
    assert t.melee_need(3, 5) == 4


def test_w17_ws_chart_examples():
    assert [t.melee_need(a, d) for a, d in [(3, 3), (3, 6), (3, 7), (4, 3), (1, 2), (1, 3)]] \
        == [4, 4, 5, 3, 4, 5]


def test_w18_strike_order():
    assert t.strike_first((True, 3, False), (False, 5, False)) == "a"
    assert t.strike_first((False, 3, False), (False, 5, False)) == "b"
    assert t.strike_first((False, 4, True), (False, 4, False)) == "a"
    assert t.strike_first((False, 4, False), (False, 4, False)) == "roll"


def test_w19_combat_resolution_and_break():
    a = 4 + t.rank_bonus([5, 5, 5]) + 1 + 1
    b = 5 + 1
    assert (a, b) == (8, 6)
    winner, margin = t.combat_winner(a, b)
    assert (winner, margin) == ("a", 2)
    assert t.breaks(6, 2, 7) and not t.breaks(5, 2, 7)
    assert t.p_break(2, 7) == Fraction(26, 36)


def test_w20_flank_rear_musician():
    assert t.flank_rear_bonus(True, False) == 1 and t.flank_rear_bonus(True, True) == 3
    assert t.rank_bonus([5] * 7) == 3
    assert t.combat_winner(5, 5, True, False) == ("a", 1)
    assert t.combat_winner(5, 5, True, True) == (None, 0)


def test_w21_flee_and_pursue():
    assert t.flee_dice(4) == 2 and t.flee_dice(8) == 3 and t.flee_dice(4, flying=True) == 3
    assert t.pursuit_catches(7, 7) and not t.pursuit_catches(6, 7)


def test_w22_stand_and_shoot_eligibility():
    assert t.stand_and_shoot_allowed(6.0, 4)
    assert not t.stand_and_shoot_allowed(4.0, 4)
    assert t.shooting_need(3, charging=True) == 5


def test_w23_failed_charge_reach():
    assert t.charge_reach(5) == 10 < 11
    assert t.charge_reach(5, flyer=True) == 20


def test_w25_rally():
    assert not t.may_rally(4, 20) and t.may_rally(5, 20)
    assert t.rally_ld(7, True) == 8 and t.rally_ld(10, True) == 10
    assert t.leadership_passes(8, t.rally_ld(7, True))


def test_w26_magic_dice_and_casting():
    assert t.power_dice([4, 2]) == 8
    assert t.max_power_dice(4) == 5 and t.max_power_dice(2) == 3
    assert t.dispel_dice([2]) == 3
    assert t.dispel_dice([], dwarfs=True, runesmiths=2) == 6
    assert t.cast_result([6, 6, 1], 9)["irresistible"]
    miscast = t.cast_result([1, 1, 6, 6], 5)
    assert miscast["miscast"] and not miscast["cast"]
    assert t.dispelled([5, 4], 9) and not t.dispelled([4, 4], 9)
    assert not t.dispelled([1, 1, 6, 6], 9)
    assert t.dispelled_in_play([4, 3], 7)
    assert not t.cast_result([1, 1], 2)["cast"]  # a 1 or 2 always fails


def test_w24_w27_w28_flee_dice_as_pursuit():
    # overrun and pursuit use the flee dice: 2D6 for M <= 6, 3D6 above (W-27, W-28)
    assert t.flee_dice(6) == 2 and t.flee_dice(7) == 3
    assert nd6(2).mean() == 7
