"""MK II rules away from sight: the digest's test scenarios T16-T27 (wmh2 §14): Stealth
targets, measuring, hit odds, stat floors, stacking, charges, runs, placing, rounding, command
checks and deployment."""

from __future__ import annotations

from fractions import Fraction

import pytest
from battlesight.rulesets.wmh2 import odds
from battlesight.rulesets.wmh2.bodies import within_of
from battlesight.rulesets.wmh2.combat import AttackContext, plan_attack
from battlesight.rulesets.wmh2.movement import (
    can_charge,
    can_place,
    charge_allowance,
    charge_move,
    place,
    run_allowance,
)
from battlesight.rulesets.wmh2.rules import (
    Effect,
    add_effect,
    base_radius,
    completely_within_point,
    d3_of,
    deployment_ok,
    gap,
    half_distance,
    half_up,
    modified_stat,
    must_check_abomination,
    p_command,
    point_within,
    total_mod,
    within,
)
from battlesight.rulesets.wmh2.turn import command_check

from tests.tables import Wmh2Table

R_SMALL = base_radius(30)
R_MEDIUM = base_radius(40)
R_LARGE = base_radius(50)


# ---- T16 Stealth target ----------------------------------------------------------------------


@pytest.mark.parametrize("edge,auto", [(5.5, True), (5.0, False)])
def test_t16_stealth_target(edge, auto):
    x = 10 + edge + 2 * R_SMALL
    sb = Wmh2Table().model("A", (10, 10)).model("B", (x, 10), player=2, keywords=["Stealth"])
    board = sb.board()
    plan = plan_attack(board, "A", "B", board.profile("A").weapon("rifle"))
    assert plan.distance == pytest.approx(edge, abs=1e-6)
    assert bool(plan.auto_miss) is auto
    assert (plan.p_hit == 0) is auto


# ---- T17 measuring ---------------------------------------------------------------------------


def test_t17_within_and_completely_within():
    d = gap((0, 0), R_SMALL, (4.1811, 0), R_SMALL)
    assert d == pytest.approx(3.0, abs=1e-3) and within(round(d, 3), 3.0)
    assert point_within((2.5, 0), R_SMALL, (0, 0), 3.0)
    assert not completely_within_point((2.5, 0), R_SMALL, (0, 0), 3.0)


def test_t17_tremor_area_excludes_the_source():
    sb = (Wmh2Table().model("ironclad", (20, 20), 50, profile="warjack-heavy")
          .model("near", (20 + R_LARGE + 2.0 + R_SMALL, 20), player=2)
          .model("far", (20, 20 + R_LARGE + 2.1 + R_SMALL), player=2))
    assert within_of(sb.world(), "ironclad", 2.0) == ["near"]


# ---- T18 hit odds (table wmh2 §9.3) ------------------------------------------------------------


def test_t18_hit_probabilities():
    assert odds.p_hit(2, 5, 14) == Fraction(10, 36)
    assert odds.p_hit(3, 5, 14) == Fraction(160, 216)
    assert odds.p_hit(2, 6, 12) == Fraction(26, 36)
    assert odds.p_hit(2, 5, 18, auto=False) == 0
    assert odds.p_hit(2, 5, 18) == Fraction(1, 36)  # double 6 hits anyway
    assert odds.p_hit(3, 5, 18) == Fraction(56, 216)
    assert odds.p_hit(2, 20, 5) == Fraction(35, 36)  # double 1 misses
    assert odds.p_critical(2, 20, 5) == Fraction(5, 36)


# ---- T19 stats ---------------------------------------------------------------------------------


def test_t19_stat_floors_and_order():
    assert modified_stat("DEF", 14, set_to=[5], bonus=4) == 9  # stationary in cover
    assert modified_stat("DEF", 14, set_to=[5, 7]) == 5  # stationary and stall
    assert modified_stat("DEF", 14, set_to=[5], penalty=2) == 5  # The Withering
    assert modified_stat("RAT", 5, penalty=2) == 3
    assert modified_stat("ARM", 1, penalty=4) == 1


def test_t19_skyhammer_roll_is_not_floored():
    sb = (Wmh2Table().model("sky", (10, 10), 40, profile="solo",
                          stats={"RAT": 5}, weapons=[{"name": "skyhammer", "RNG": 12,
                                                      "POW": 14, "qualities": ["inaccurate"]}])
          .model("B", (15, 10), player=2, facing=90, stats={"DEF": 12}))
    board = sb.board()
    board.model("sky").status["effects"] = [{"name": "The Withering", "mods": {"RAT": -2}}]
    plan = plan_attack(board, "sky", "B", board.profile("sky").weapon("skyhammer"))
    assert plan.attack_mod == -1 and plan.defense == 12
    assert odds.p_hit(2, plan.attack_mod, plan.defense, auto=False) == 0
    assert plan.p_hit == Fraction(1, 36)


# ---- T20 stacking ----------------------------------------------------------------------------


def test_t20_stacking():
    effects: list[Effect] = []
    assert add_effect(effects, Effect("Burning Ash", {"attack": -2}))
    assert add_effect(effects, Effect("Choking Veil", {"attack": -2}))
    assert total_mod(effects, "attack") == -4
    first = Effect("Dark Shroud", {"ARM": -2}, player=1)
    assert add_effect(effects, first)
    assert not add_effect(effects, Effect("Dark Shroud", {"ARM": -2}, player=2))
    assert total_mod(effects, "ARM") == -2 and effects[-1] is first


# ---- T21-T22 charges -------------------------------------------------------------------------


def _charger(target_x: float, wall: bool = False, **extra):
    sb = Wmh2Table().model("jack", (10, 10), 40, profile="warjack-light", **extra) \
        .model("B", (target_x, 10), player=2)
    if wall:
        sb.wall("wall", (13, 5), (13, 15), 1.0, thickness=0.5)
    return sb.board()


def test_t21_charge_geometry():
    assert charge_allowance(5) == 8.0
    gap_29 = 10 + R_MEDIUM + R_SMALL + 2.9
    short = charge_move(_charger(gap_29), "jack", "B", charge_allowance(6))
    assert short.distance == pytest.approx(2.9, abs=1e-3) and short.in_range
    assert not short.charge_attack
    full = charge_move(_charger(gap_29 + 0.1), "jack", "B", charge_allowance(6))
    assert full.distance == pytest.approx(3.0, abs=1e-3) and full.charge_attack
    board = _charger(gap_29 + 0.1)
    hammer = board.profile("jack").weapon("battle hammer")
    board.move("jack", full.end, 270.0)
    plan = plan_attack(board, "jack", "B", hammer, AttackContext(charge_attack=True,
                                                                 boost_damage=True))
    assert plan.damage_dice == 3  # boosted once, never twice
    normal = plan_attack(board, "jack", "B", hammer)
    assert normal.damage_dice == 2
    far = charge_move(_charger(25), "jack", "B", charge_allowance(6))
    assert not far.in_range and far.distance == pytest.approx(9.0, abs=0.02)


def test_t21_speed_penalty_even_offset_forbids_charging():
    assert not can_charge([-1, +1], [])
    assert can_charge([], [])  # rough terrain alone is not a penalty


def test_t22_obstacle_stops_a_charge_unless_pathfinder():
    stopped = charge_move(_charger(17, wall=True), "jack", "B", charge_allowance(6))
    assert stopped.stopped_by == "wall" and not stopped.in_range
    assert stopped.distance == pytest.approx(13 - 0.25 - R_MEDIUM - 10, abs=0.03)
    crossing = charge_move(_charger(17, wall=True, keywords=["Pathfinder"]), "jack", "B",
                           charge_allowance(6))
    assert crossing.stopped_by == "B" and crossing.in_range


# ---- T23 runs ------------------------------------------------------------------------------


def test_t23_run_allowance():
    assert run_allowance(6) == 12.0
    assert run_allowance(6, movement_bonus=2.0) == 14.0
    assert run_allowance(6, movement_bonus=2.0, normal=False) == 12.0


def test_t23_warjack_without_focus_only_advances():
    sb = Wmh2Table().model("jack", (10, 10), 40, profile="warjack-light") \
        .model("B", (16, 10), player=2)
    game = sb.game()
    game.apply({"do": "end_phase"})
    game.apply({"do": "end_phase"})
    assert game.phase.name == "activation"
    ok, why = game.legal({"do": "run", "unit": "jack", "to": [20, 20]})
    assert not ok and "focus" in why
    ok, why = game.legal({"do": "charge", "unit": "jack", "target": "B"})
    assert not ok and "focus" in why
    assert game.apply({"do": "advance", "unit": "jack", "to": [10, 16]}).ok


# ---- T24 placing -----------------------------------------------------------------------------


def test_t24_placement():
    sb = (Wmh2Table().wall("wall", (20, 5), (20, 15), 1.0, thickness=0.5)
          .model("jack", (15, 10), 40, profile="warjack-light")
          .model("enemy", (15, 11.5), player=2, facing=180, profile="trooper"))
    board = sb.board()
    assert not can_place(board, "jack", (20.5, 10))
    start_events = dict(board.model("jack").status)
    assert place(board, "jack", (15, 20), facing=0)  # leaves the enemy's melee range
    assert board.model("jack").status == start_events and board.model("jack").alive


def test_t24_trooper_stays_in_formation():
    sb = (Wmh2Table().unit("u", 1, "winter-guard-infantry")
          .model("boss", (10, 10), unit="u", leader=True).model("grunt", (12, 10), unit="u")
          .model("other", (30, 30), player=2))
    board = sb.board()
    assert not can_place(board, "grunt", (25, 10))  # CMD 8: out of formation
    assert can_place(board, "grunt", (14, 12))
    assert can_place(board, "boss", (25, 10))  # the commander may go anywhere


# ---- T25 rounding ------------------------------------------------------------------------------


def test_t25_rounding():
    assert d3_of(5) == 3 and d3_of(2) == 1
    assert half_distance(5) == 2.5
    assert half_up(13) == 7


# ---- T26 command -------------------------------------------------------------------------------


class _Dice:
    def __init__(self, faces):
        self.faces = list(faces)

    def d6(self, n=1, why=""):
        return [self.faces.pop(0) for _ in range(n)]

    def take_log(self):
        return []


def _command_game(profile: str, **extra):
    sb = Wmh2Table().model("X", (10, 10), 40 if "jack" in profile else 30, profile=profile,
                         **extra).model("Y", (30, 30), player=2)
    return sb.game()


def test_t26_command_checks():
    assert p_command(7) == Fraction(21, 36)
    jack = _command_game("warjack-light")
    assert command_check(jack, "X", "terror")["passed"]
    caster = _command_game("warcaster")
    caster.roller = _Dice([6, 6])
    result = command_check(caster, "X", "terror")
    assert result["passed"] and result["auto"] == "fearless: never flees"
    assert not caster.unit("X").status.get("fleeing")
    grunt = _command_game("trooper")
    grunt.roller = _Dice([6, 6])
    assert not command_check(grunt, "X", "terror")["passed"]
    assert grunt.unit("X").status["fleeing"]
    assert must_check_abomination(3.0, same_side=True)
    assert must_check_abomination(2.0, same_side=False)
    assert not must_check_abomination(3.01, same_side=False)


# ---- T27 deployment --------------------------------------------------------------------------


def test_t27_deployment():
    assert not deployment_ok(10.01)
    assert deployment_ok(10.0)
    assert deployment_ok(16.0, advance=True)
    assert not deployment_ok(16.01, advance=True)
