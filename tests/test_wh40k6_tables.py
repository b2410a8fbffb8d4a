"""wh40k6 digest test scenarios that are pure rules (no geometry): S01-S04, S15-S17, S19, S20,
S22, S24, S27-S30, and the probabilities the shoot command reports."""

from __future__ import annotations

from fractions import Fraction

import pytest
from battlesight.rulesets.core.dice import p_target
from battlesight.rulesets.core.measure import Outline
from battlesight.rulesets.wh40k6.morale import needs_morale_check, sweeping_advance
from battlesight.rulesets.wh40k6.profile import parse_profile, parse_weapon
from battlesight.rulesets.wh40k6.shooting import shots_and_limits
from battlesight.rulesets.wh40k6.special import (
    blast_floor_hits,
    can_climb_to,
    climb_options,
    deep_strike_mishap,
    focus_fire_eligible,
    game_continues,
    impact_fails,
    infiltrate_legal,
    look_out_sir_need,
    marker_lost,
    night_effect,
    p_charge,
    p_reserve,
    reserve_arrives,
    scatter_distance,
    scatter_point,
    template_floor_allowed,
    under_marker,
)
from battlesight.rulesets.wh40k6.tables import (
    best_save,
    cover_with_modifiers,
    damage_result,
    leadership_passes,
    melee_to_hit,
    p_penetration,
    p_ranged_hit,
    penetration_result,
    ranged_to_hit,
    to_wound,
)
from battlesight.rulesets.wh40k6.vehicles import (
    full_bs_weapons,
    jink_cover,
    speed_of,
    zooming_flyer_crashes,
)


def test_s01_ranged_to_hit_by_bs():
    assert [ranged_to_hit(bs).need for bs in range(1, 6)] == [6, 5, 4, 3, 2]
    assert [ranged_to_hit(bs).reroll_need for bs in range(6, 11)] == [6, 5, 4, 3, 2]
    assert ranged_to_hit(5, snap=True).need == 6
    assert p_ranged_hit(6) == Fraction(5, 6) + Fraction(1, 6) * Fraction(1, 6)
    # twin-linked BS7: the twin-linked re-roll (normal 2+) is used, never a second re-roll
    assert p_ranged_hit(7, twin_linked=True) == p_target(2, reroll_failed=True)
    assert p_ranged_hit(7, twin_linked=True) == Fraction(35, 36)


def test_s02_to_wound_and_instant_death():
    cases = {(4, 4): 4, (3, 4): 5, (4, 3): 3, (5, 3): 2, (4, 6): 6, (4, 7): 6, (4, 8): None,
             (1, 5): None, (10, 10): 4, (8, 4): 2}
    for (s, t), need in cases.items():
        assert to_wound(s, t) == need, (s, t)
    assert to_wound(None, 8, sniper=True) == 4 and to_wound(3, 3, fleshbane=True) == 2
    assert 8 >= 2 * 4  # krak S8 vs T4: instant death (resolved in tests of the engine)


def test_s03_melee_to_hit():
    cases = {(4, 4): 4, (4, 3): 3, (4, 8): 4, (4, 9): 5, (3, 6): 4, (3, 7): 5, (2, 5): 5,
             (1, 2): 4, (10, 10): 4}
    for (a, d), need in cases.items():
        assert melee_to_hit(a, d) == need, (a, d)
    assert melee_to_hit(4, 0) == 0  # vehicle that did not move: automatic hits
    assert melee_to_hit(4, 1) == 3 and melee_to_hit(1, 1) == 4  # moved vehicle: WS 1


def test_s04_save_selection():
    assert best_save(3, 3).need is None
    assert best_save(3, 4).need == 3 and best_save(3, None).need == 3
    assert best_save(6, 5).need is None
    chaplain = best_save(3, 3, inv=4, cover=3)
    assert (chaplain.need, chaplain.kind) == (3, "cover")
    assert cover_with_modifiers(4, gone_to_ground=True, ground_bonus=2) == 2
    assert cover_with_modifiers(2, gone_to_ground=True) == 2
    assert best_save(2, None).p_save == Fraction(5, 6)  # a 1 fails even at 2+


def test_s15_armour_penetration():
    assert [penetration_result(r + 9, 13) for r in (3, 4, 5)] == \
        ["none", "glancing", "penetrating"]
    assert penetration_result(3 + 4 + 8, 14) == "penetrating"  # melta at half range: 2D6
    assert p_penetration(8, 14)["penetrating"] == 0  # meltagun at 7": D6+8, glancing at best
    assert p_penetration(8, 14)["glancing"] == Fraction(1, 6)
    assert penetration_result(max(2, 5) + 8, 14) == "none"  # ordnance picks the highest
    assert penetration_result(max(6, 1) + 8, 14) == "glancing"
    assert penetration_result(4 + 8, 14, lance=True) == "glancing"
    assert penetration_result(5 + 8, 14, lance=True) == "penetrating"
    rending = p_penetration(6, 12, rending=True)
    assert rending["penetrating"] == Fraction(1, 6)  # a 6 adds D3: 12 + D3 > 12


def test_s16_damage_table():
    assert damage_result(3, 1, open_topped=True) == "explodes"
    assert damage_result(2, 3) == "crew shaken"
    assert damage_result(6, None) == "explodes" and damage_result(5, 2) == "explodes"
    assert damage_result(3, None) == "crew stunned" and damage_result(4, None) == \
        "weapon destroyed" and damage_result(5, None) == "immobilised"


def test_s17_vehicle_speed_and_firing():
    rhino = parse_profile({"type": "vehicle", "kinds": ["tank"], "stats": {"BS": 4}})
    fast = parse_profile({"type": "vehicle", "kinds": ["fast"], "stats": {"BS": 4}})
    heavy = parse_profile({"type": "vehicle", "kinds": ["heavy"], "stats": {"BS": 3}})
    flyer = parse_profile({"type": "flyer", "kinds": ["flyer"], "stats": {"BS": 4}})
    assert speed_of(7) == "cruising" and full_bs_weapons(rhino, speed_of(7)) == 0
    assert speed_of(6) == "combat" and full_bs_weapons(rhino, "combat") == 1
    assert speed_of(0) == "stationary" and full_bs_weapons(rhino, "stationary") is None
    assert full_bs_weapons(fast, speed_of(10)) == 2
    assert full_bs_weapons(heavy, speed_of(6)) is None
    assert full_bs_weapons(flyer, speed_of(24)) == 4
    assert zooming_flyer_crashes(17) and not zooming_flyer_crashes(18)


def test_s19_weapon_types():
    bolt = parse_weapon({"name": "boltgun", "range": 24, "S": 4, "AP": 5, "type": "Rapid Fire"})
    assert shots_and_limits(bolt, 12.0, False, False, False)[0] == 2
    assert shots_and_limits(bolt, 12.5, False, False, False)[0] == 1
    salvo = parse_weapon({"name": "s", "range": 48, "S": 6, "AP": 5, "type": "Salvo 2/4"})
    assert shots_and_limits(salvo, 25, True, False, False)[2]  # moved, beyond half: no
    assert shots_and_limits(salvo, 24, True, False, False)[0] == 2
    assert shots_and_limits(salvo, 40, False, False, False)[0] == 4
    hb = parse_weapon({"name": "hb", "range": 36, "S": 5, "AP": 4, "type": "Heavy 3"})
    shots, snap, why = shots_and_limits(hb, 20, True, False, False)
    assert (shots, snap, why) == (3, True, "")
    assert shots_and_limits(hb, 20, True, True, False)[1] is False  # relentless
    sb = parse_weapon({"name": "sb", "range": 24, "S": 4, "AP": 5, "type": "Assault 2"})
    assert shots_and_limits(sb, 20, True, False, False) == (2, False, "")
    cannon = parse_weapon({"name": "bc", "range": 72, "S": 8, "AP": 3,
                           "type": "Ordnance 1, Large Blast"})
    assert cannon.blast == 5.0 and shots_and_limits(cannon, 30, True, False, False)[2]
    assert parse_weapon({"name": "w", "range": "12-48", "S": 5, "AP": 4,
                         "type": "Ordnance 1, Large Blast, Barrage"}).min_range == 12


def test_s20_blast_scatter_and_marker():
    assert scatter_distance(7, 4) == 3 and scatter_distance(4, 4) == 0
    assert scatter_distance(11, 3) == 8 and scatter_distance(7, 4, barrage_unseen=True) == 7
    assert scatter_point((10, 10), True, 45, 5) == (10, 10)
    x, y = scatter_point((10, 10), False, 90, 3)  # 90 degrees: along -x
    assert (x, y) == pytest.approx((7, 10))
    r = 0.5
    assert under_marker(Outline((2.4 + r, 0), 0, 1, (r, r)), (0, 0), 5.0)
    assert not under_marker(Outline((2.6 + r, 0), 0, 1, (r, r)), (0, 0), 5.0)
    assert marker_lost((-1, 5), (72, 48)) and not marker_lost((1, 5), (72, 48))


def test_s21_charge_odds():
    assert p_charge(7) == Fraction(21, 36)
    assert p_charge(7, difficult=True) < p_charge(7)


def test_s22_overwatch_is_snap_fire():
    assert ranged_to_hit(3, snap=True).need == 6
    flamer = parse_weapon({"name": "f", "range": "Template", "S": 4, "AP": 5,
                           "type": "Assault 1"})
    frag = parse_weapon({"name": "ml", "range": 48, "S": 4, "AP": 6, "type": "Heavy 1, Blast"})
    assert shots_and_limits(frag, 20, False, False, True)[2]  # blasts cannot snap fire
    assert shots_and_limits(flamer, 5, False, False, True)[2]  # only as Wall of Death


def test_s24_ruins_vertical_movement():
    assert climb_options(2)["floors"] == 0
    assert climb_options(3) == {"floors": 1, "horizontal_after_one": 0.0}
    assert climb_options(5) == {"floors": 1, "horizontal_after_one": 2.0}
    assert climb_options(6) == {"floors": 2, "horizontal_after_one": 3.0}
    assert climb_options(6, spacing=6.0) == {"floors": 1, "horizontal_after_one": 0.0}
    assert not can_climb_to(6, 7.0)


def test_s26_blasts_and_templates_by_floor():
    floors = {"g1": 0, "g2": 0, "f1": 1, "f2": 1, "f3": 1}
    assert sorted(blast_floor_hits(floors, 1)) == ["f1", "f2", "f3"]
    assert sorted(blast_floor_hits(floors, 1, floors_there=[0])) == ["f1", "f2", "f3"]
    assert sorted(blast_floor_hits({"g1": 0, "g2": 0}, 1, floors_there=[0])) == ["g1", "g2"]
    assert template_floor_allowed(0, 1) and not template_floor_allowed(0, 2)
    assert template_floor_allowed(0, 2, flies=True)


def test_s27_impact_tests():
    assert [impact_fails(r, 6.0) for r in range(1, 7)] == [True] * 3 + [False] * 3
    assert [impact_fails(r, 3.0) for r in range(1, 7)] == [True] * 2 + [False] * 4
    assert [impact_fails(r, 9.0) for r in range(1, 7)] == [True] * 4 + [False] * 2
    assert [impact_fails(r, 9.0, jump=True) for r in range(1, 7)] == [True] + [False] * 5


def test_s28_morale_regroup_sweeping_advance():
    assert needs_morale_check(10, 7) and not needs_morale_check(10, 8)
    assert needs_morale_check(8, 6)  # exactly 25%
    assert leadership_passes([2, 3], 8, -3) and not leadership_passes([3, 3], 8, -3)
    assert leadership_passes([1, 1], 2, -5)  # double 1
    assert sweeping_advance(3, 4, 5, 2)  # 7 vs 7: tie, destroyed
    assert not sweeping_advance(1, 4, 4, 3)  # 5 vs 7: escapes
    assert 2 * 4 < 10  # 2 of 10 models (20%) regroup only on a double 1 (see morale.py)


def test_s29_night_stealth_shrouded_jink_focus():
    assert night_effect(30) == "shrouded" and night_effect(20) == "stealth"
    assert night_effect(40) == "untargetable" and night_effect(10) == "normal"
    assert cover_with_modifiers(None, shrouded=True) == 5
    assert cover_with_modifiers(4, shrouded=True) == 2
    assert cover_with_modifiers(None, stealth=True) == 6
    assert cover_with_modifiers(4, stealth=True) == 3
    assert cover_with_modifiers(None, stealth=True, shrouded=True) == 4
    assert jink_cover(True) == 5 and jink_cover(True, flat_out=True) == 4
    assert jink_cover(True, skilled_rider=True) == 4
    assert jink_cover(True, True, skilled_rider=True) == 3
    covers = {f"c{i}": 4 for i in range(3)} | {f"n{i}": None for i in range(3)} | \
        {f"f{i}": 5 for i in range(4)}
    assert len(focus_fire_eligible(covers, None)) == 3
    assert len(focus_fire_eligible(covers, 5)) == 7


def test_s30_reserves_game_length_deployment():
    assert reserve_arrives(2, 3) and not reserve_arrives(2, 2)
    assert not reserve_arrives(2, 1, modifier=1)
    assert reserve_arrives(4, 0) and not reserve_arrives(1, 6)
    assert p_reserve(2) == Fraction(2, 3) and p_reserve(4) == 1
    assert not game_continues(5, 2) and game_continues(5, 3)
    assert not game_continues(6, 3) and game_continues(6, 4)
    assert not game_continues(7, 6)
    assert infiltrate_legal(14, False) and not infiltrate_legal(14, True)
    assert infiltrate_legal(19, True)
    assert [deep_strike_mishap(r) for r in range(1, 7)] == \
        ["destroyed", "misplaced", "misplaced", "delayed", "delayed", "delayed"]


def test_s12_look_out_sir_needs():
    assert look_out_sir_need(True, 5.0) == 2 and look_out_sir_need(False, 5.0) == 4
    assert look_out_sir_need(True, 7.0) is None
    assert look_out_sir_need(True, 5.0, in_challenge=True) is None
