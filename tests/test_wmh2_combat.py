"""MK II attacks (wmh2 §9): knocked-down and stationary targets, back strikes, targets in
melee, Gunfighter, shields and the power field, Incorporeal, aiming, bought attacks and boosts,
charge-attack restrictions, upkeep, and the shooting report's odds."""

from __future__ import annotations

from fractions import Fraction

import pytest
from battlesight.rulesets.wmh2 import odds
from battlesight.rulesets.wmh2.combat import AttackContext, plan_attack

from tests.tables import Wmh2Table

FACE_X, FACE_MINUS_X = 270.0, 90.0


def duel(a_profile="trooper", b_profile="trooper", gap_x=1.5, b_facing=FACE_MINUS_X,
         a_base=30, b_base=30, **b_extra) -> Wmh2Table:
    return (Wmh2Table().model("A", (10, 10), a_base, profile=a_profile)
            .model("B", (10 + gap_x, 10), b_base, player=2, profile=b_profile,
                   facing=b_facing, **b_extra))


def melee(board, a="A", b="B", **ctx):
    weapon = board.profile(a).melee_weapons()[0]
    return plan_attack(board, a, b, weapon, AttackContext(**ctx))


def shot(board, a="A", b="B", **ctx):
    return plan_attack(board, a, b, board.profile(a).ranged_weapons()[0], AttackContext(**ctx))


def test_knocked_down_target():
    board = duel().board()
    board.model("B").status["knocked_down"] = True
    assert melee(board).p_hit == 1 and melee(board).auto_hit
    far = duel(gap_x=6).board()
    far.model("B").status["knocked_down"] = True
    assert shot(far).defense == 5


def test_back_strike_and_target_in_melee():
    front = melee(duel().board())
    back = melee(duel(b_facing=FACE_X).board())
    assert back.attack_mod == front.attack_mod + 2
    sb = duel(gap_x=6).model("C", (16 + 1.2, 10), player=1, facing=FACE_MINUS_X)
    board = sb.board()
    assert shot(board).attack_mod == shot(duel(gap_x=6).board()).attack_mod - 4


def test_engaged_model_cannot_shoot_unless_gunfighter():
    plan = shot(duel().board())
    assert not plan.legal and "in melee" in plan.reason
    sb = (Wmh2Table().model("A", (10, 10), keywords=["Gunfighter"])
          .model("B", (11.5, 10), player=2, facing=FACE_MINUS_X))
    assert shot(sb.board()).legal


def test_shield_and_power_field():
    mow = duel(b_profile="trooper", weapons=["shield cannon", "annihilator blade"],
               stats={"ARM": 17})
    assert melee(mow.board()).armour == 19
    assert melee(duel(b_facing=FACE_X, weapons=["shield cannon"], stats={"ARM": 17})
                 .board()).armour == 17  # no shield against a back arc attack
    caster = duel(b_profile="warcaster").board()
    caster.model("B").status["focus"] = 3
    assert melee(caster).armour == caster.profile("B").stat("ARM") + 3


def test_incorporeal_needs_magic():
    board = duel(keywords=["Incorporeal"]).board()
    assert melee(board).p_damage == 0
    caster = duel(a_profile="warcaster", keywords=["Incorporeal"]).board()
    assert melee(caster).p_damage > 0  # quicksilver is magical


def test_damage_odds_and_charge_attack_dice():
    plan = melee(duel(a_profile="warjack-light", a_base=40, gap_x=1.7).board(),
                 charge_attack=True)
    assert plan.damage_dice == 3 and plan.damage_mod == 3 + 9
    assert plan.p_damage == odds.p_damage(3, 12, 12)
    assert plan.expected_damage == plan.p_hit * odds.expected_damage(3, 12, 12)


def _game(**kw):
    sb = (Wmh2Table().model("caster", (10, 10), profile="warcaster", facing=0)
          .model("jack", (13, 10), 40, profile="warjack-light", controller="caster", facing=0)
          .model("B", (13, 10 + 0.7874 + 0.9843 + 0.2), 50, player=2, facing=180,
                 profile="warjack-heavy")
          .model("far", (16, 20), player=2, facing=180))
    game = sb.game(**kw)
    game.apply({"do": "next"})
    return game


def test_bought_attacks_and_boosts_cost_focus():
    game = _game()
    game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 1}})
    game.apply({"do": "next"})
    first = game.apply({"do": "attack", "unit": "jack", "target": "B", "weapon": "battle hammer"})
    assert first.ok
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "B",
                          "weapon": "battle hammer"})
    assert not ok and "additional" in why
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "B",
                          "weapon": "battle hammer", "additional": True, "boost_hit": True})
    assert not ok and "needs 2" in why
    assert game.apply({"do": "attack", "unit": "jack", "target": "B",
                       "weapon": "battle hammer", "additional": True}).ok
    assert game.board.model("jack").status["focus"] == 0


def test_aiming_when_the_model_did_not_move():
    game = _game()
    game.apply({"do": "next"})
    result = game.apply({"do": "attack", "unit": "caster", "target": "far"})
    attack = next(e for e in result.events if e.kind == "attack")
    assert any("aiming +2" in p for p in attack.data["attack_parts"])
    assert attack.data["attack_modifier"] == 6 + 2


def test_charge_first_attack_and_no_second_boost():
    sb = (Wmh2Table().model("jack", (10, 10), 40, profile="warjack-light", facing=0,
                          controller="caster")
          .model("caster", (6, 10), profile="warcaster", facing=0)
          .model("B", (10, 16), player=2, facing=180).model("C", (12, 16.2), player=2))
    game = sb.game()
    game.apply({"do": "next"})
    game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 3}})
    game.apply({"do": "next"})
    result = game.apply({"do": "charge", "unit": "jack", "target": "B"})
    charge = next(e for e in result.events if e.kind == "charge")
    assert charge.data["success"] and charge.data["charge_attack"]
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "C"})
    assert not ok and "first attack" in why
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "B", "boost_damage": True})
    assert not ok and "already boosted" in why


def test_upkeep_spell_expires_unless_paid():
    game = _game()
    game.board.model("jack").status["effects"] = [
        {"name": "Arcane Shield", "mods": {"ARM": 3}, "upkeep": "caster"}]
    assert game.apply({"do": "upkeep", "unit": "caster", "spell": "Arcane Shield"}).ok
    assert game.board.model("caster").status["focus"] == 5
    game.apply({"do": "next"})
    assert game.board.model("jack").status["effects"]
    for _ in range(5):  # round to player 1's next Control Phase
        game.apply({"do": "next"})
    assert game.phase.name == "control" and game.board.model("jack").status["effects"]
    game.apply({"do": "next"})  # control -> activation without paying
    assert game.board.model("jack").status["effects"] == []


def test_shooting_report_sandbox():
    sb = (Wmh2Table().unit("lg", 1, "long-gunner-infantry")
          .model("lg-1", (10, 10), unit="lg", facing=0)
          .model("lg-2", (12, 10), unit="lg", facing=0)
          .model("t", (11, 20), player=2, facing=180))
    board = sb.board()
    out = board.ruleset.shooting_report(board, "lg", "t")
    assert out["eligible"]
    target = out["targets"][0]
    # RAT 6 + aim 2 against DEF 13 -> 5+ on 2d6
    assert target["p_hit"] == pytest.approx(float(odds.p_hit(2, 8, 13)))
    assert target["p_wound"] == pytest.approx(float(odds.p_damage(2, 10, 12)))
    assert out["expected_damage"] == pytest.approx(
        2 * float(odds.p_hit(2, 8, 13) * odds.expected_damage(2, 10, 12)))
    assert odds.p_hit(2, 8, 13) == Fraction(30, 36)


def test_failed_charge_ends_the_activation():
    sb = (Wmh2Table().model("jack", (10, 10), 40, profile="warjack-light", facing=0,
                          controller="caster")
          .model("caster", (6, 10), profile="warcaster", facing=0)
          .model("B", (10, 24), player=2, facing=180))
    game = sb.game()
    game.apply({"do": "next"})
    game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 2}})
    game.apply({"do": "next"})
    result = game.apply({"do": "charge", "unit": "jack", "target": "B"})
    charge = next(e for e in result.events if e.kind == "charge")
    assert not charge.data["success"] and charge.data["distance"] == pytest.approx(9.0, abs=0.03)
    assert any(e.kind == "activation_end" and "failed charge" in e.data["reason"]
               for e in result.events)
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "B"})
    assert not ok and "already activated" in why
    ok, why = game.legal({"do": "charge", "unit": "caster", "target": "caster"})
    assert not ok
