"""The wh40k6 phase engine: the scripted two-turn game on the example scene, illegal actions
refused with reasons, and digest scenarios S21 (charge), S22 (overwatch), S23 (difficult
terrain), S28 (morale) played through `Game`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from battlesight.rulesets.core.game import Game
from battlesight.scenes import EXAMPLES_DIR, load_scene
from battlesight.scenes.save import scene_to_dict

from battlesight.cli.commands.play import play, read_actions
from tests.rules_helpers import ScriptedRoller, Table

SCENE = EXAMPLES_DIR / "wh40k6_city_ruins.yaml"
ACTIONS = Path(__file__).parent / "data" / "wh40k6_city_ruins_actions.yaml"
R = 32 / 25.4  # a 32 mm base's diameter in inches


@pytest.fixture(scope="module")
def scripted():
    actions, seed = read_actions(str(ACTIONS))
    game, results = play(str(SCENE), actions, seed)
    return game, results, actions, seed


def test_scripted_game_moves_shoots_charges_and_fights(scripted):
    game, results, _, _ = scripted
    assert all(r["ok"] for r in results), [r for r in results if not r["ok"]]
    kinds = [e.kind for e in game.log]
    for kind in ("move", "run", "shoot", "overwatch", "charge", "fight", "combat_result"):
        assert kind in kinds, kind
    assert (game.game_turn, game.active_player) == (3, 1) and not game.over
    shots = [e for e in game.log if e.kind == "shoot"]
    in_ruin = [m for e in shots for m, c in e.data["cover"].items()
               if c["in_cover"] and str(c["source"]).startswith("ruin") and c["value"] == 4]
    assert in_ruin, "a target took a 4+ ruin cover save"
    charge = next(e for e in game.log if e.kind == "charge")
    assert charge.data["success"] and charge.data["moves"]
    fight = next(e for e in game.log if e.kind == "fight")
    assert set(fight.data["units"]) == {"boyz-1", "tac-1"}
    assert any(e.kind == "shoot" and e.data["outcome"]["casualties"] for e in game.log)
    dead = [m for m, s in game.board.models.items() if not s.alive]
    assert dead and all(m not in {x.id for x in game.board.scene.models} for m in dead)


def test_scripted_game_replays_identically(scripted):
    game, results, actions, seed = scripted
    again, results2 = play(str(SCENE), actions, seed)
    assert json.dumps(again.log_dicts(), default=str) == json.dumps(game.log_dicts(), default=str)
    assert scene_to_dict(again.board.scene) == scene_to_dict(game.board.scene)
    assert results2 == results


def duel(gap: float = 7.0, *, orks: int = 5, seed: int = 1) -> Game:
    """Five marines facing Orks `gap` inches away (base edge to base edge), open ground."""
    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 20 + 1.5 * i) for i in range(5)])
    t.squad("boyz", 2, "ork-boy", [(10 + R + gap, 20 + 1.5 * i) for i in range(orks)])
    return t.game(seed)


def to_step(game: Game, phase: str, step: str | None = None) -> None:
    while game.phase.name != phase or (step and game.step.name != step):
        assert game.apply({"do": "next"}).ok


def test_illegal_actions_are_refused_with_reasons():
    game = duel(5.0)
    result = game.apply({"do": "charge", "unit": "tac", "target": "boyz"})
    assert not result.ok and "not allowed now" in result.reason  # wrong phase
    assert game.apply({"do": "move", "unit": "tac", "by": [1, 0]}).ok
    again = game.apply({"do": "move", "unit": "tac", "by": [1, 0]})
    assert not again.ok and "already moved" in again.reason
    too_far = duel().legal({"do": "move", "unit": "tac", "by": [0, 6.5]})
    assert not too_far[0] and "at most 6" in too_far[1]
    near = duel(6.0).legal({"do": "move", "unit": "tac", "by": [5.5, 0]})
    assert not near[0] and "1\" rule" in near[1]
    to_step(game, "shooting")
    assert game.apply({"do": "run", "unit": "tac", "by": [0, 1]}).ok
    shot = game.apply({"do": "shoot", "unit": "tac", "target": "boyz"})
    assert not shot.ok and "ran this turn" in shot.reason  # shooting after running
    to_step(game, "assault", "charge")
    ran = game.apply({"do": "charge", "unit": "tac", "target": "boyz"})
    assert not ran.ok and "ran" in ran.reason
    assert game.log[-1].kind == "refused" and game.log[-1].data["reason"] == ran.reason


def test_charge_out_of_range_or_sight_or_after_firing():
    far = duel(13.0)
    to_step(far, "assault", "charge")
    ok, why = far.legal({"do": "charge", "unit": "tac", "target": "boyz"})
    assert not ok and "cannot possibly be reached" in why
    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 20 + 1.5 * i) for i in range(3)])
    t.squad("boyz", 2, "ork-boy", [(20, 20 + 1.5 * i) for i in range(3)])
    t.box("hab", (15.5, 21.5), (2.0, 8.0, 6.0), impassable=True)
    hidden = t.game()
    to_step(hidden, "assault", "charge")
    ok, why = hidden.legal({"do": "charge", "unit": "tac", "target": "boyz"})
    assert not ok and "can see" in why
    shot = duel(7.0)
    to_step(shot, "shooting")
    assert shot.apply({"do": "shoot", "unit": "tac", "target": "boyz"}).ok
    to_step(shot, "assault", "charge")
    ok, why = shot.legal({"do": "charge", "unit": "tac", "target": "boyz"})
    assert not ok and "rapid fire" in why
    heavy = Table()
    heavy.squad("dev", 1, "devastator-marine", [(10, 20), (10, 21.5)])
    heavy.squad("boyz", 2, "ork-boy", [(10 + R + 7, 20), (10 + R + 7, 21.5)])
    game = heavy.game()
    game.apply({"do": "move", "unit": "dev", "by": [0.5, 0]})
    to_step(game, "shooting")
    result = game.apply({"do": "shoot", "unit": "dev", "target": "boyz"})
    assert result.ok
    fired = next(e for e in game.log if e.kind == "shoot")
    assert all(f["snap"] for f in fired.data["firers"] if f["can_fire"])  # moved: snap shots
    to_step(game, "assault", "charge")
    ok, why = game.legal({"do": "charge", "unit": "dev", "target": "boyz"})
    assert not ok and "heavy" in why


def charge_with(dice: list[int], gap: float = 7.0, difficult: bool = False) -> Game:
    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 20 + 1.5 * i) for i in range(3)])
    t.squad("boyz", 2, "ork-boy", [(10 + R + gap, 20 + 1.5 * i) for i in range(3)])
    if difficult:
        t.crater("crater", (10 + R / 2 + gap / 2, 21.5), (2.0, 8.0))
    game = t.game()
    to_step(game, "assault", "charge")
    game.roller = ScriptedRoller(dice)
    assert game.apply({"do": "charge", "unit": "tac", "target": "boyz",
                       "overwatch": False}).ok
    return game


def test_s21_charge_distance():
    game = charge_with([3, 4])
    charge = next(e for e in game.log if e.kind == "charge")
    assert charge.data["success"] and charge.data["distance"] == 7
    assert game.unit("tac").status["locked"] == ["boyz"]
    assert game.board.gap("tac-1", "boyz-1") < 0.1
    failed = charge_with([3, 3])
    charge = next(e for e in failed.log if e.kind == "charge")
    assert not charge.data["success"] and charge.data["moves"] == []
    assert failed.board.outline("tac-1").center == (10.0, 20.0)
    rough = charge_with([6, 5, 2], difficult=True)
    charge = next(e for e in rough.log if e.kind == "charge")
    assert charge.data["difficult"] == ["crater"] and charge.data["distance"] == 7
    assert charge.data["success"] and rough.unit("tac").turn["through_cover"] is False
    # marines carry assault grenades; models without them strike at I1 (§9.1)


def test_s22_overwatch_snap_shots_once_per_turn():
    t = Table()
    t.squad("boyz", 1, "ork-boy", [(10, 20 + 1.5 * i) for i in range(3)])
    t.squad("boyz2", 1, "ork-boy", [(10, 30 + 1.5 * i) for i in range(3)])
    t.squad("guard", 2, "imperial-guardsman", [(10 + R + 6, 24 + 1.5 * i) for i in range(5)])
    game = t.game(seed=2)
    to_step(game, "assault", "charge")
    game.apply({"do": "charge", "unit": "boyz", "target": "guard"})
    watch = next(e for e in game.log if e.kind == "overwatch")
    assert watch.data["fired"]
    snaps = [r for r in watch.rolls if "to hit" in r["why"]]
    assert snaps and all("(6+)" in r["why"] for r in snaps)
    game.apply({"do": "charge", "unit": "boyz2", "target": "guard"})
    assert sum(e.kind == "overwatch" for e in game.log) == 1  # only once per turn
    assert not any(e.kind == "morale" for e in game.log)


def test_s23_difficult_terrain_slows_the_whole_unit():
    t = Table()
    t.crater("crater", (10, 20), (3, 3))
    t.squad("tac", 1, "tactical-marine", [(10, 20), (10, 21.5), (10, 23)])
    t.squad("boyz", 2, "ork-boy", [(60, 40)])
    game = t.game()
    game.roller = ScriptedRoller([2, 5])
    assert game.apply({"do": "move", "unit": "tac", "by": [6, 0]}).ok
    move = next(e for e in game.log if e.kind == "move")
    assert move.data["roll"] == 5 and move.data["difficult"] == ["crater"]
    assert game.board.outline("tac-3").center == pytest.approx((15.0, 23.0))  # in the open too
    mc = Table()
    mc.crater("crater", (10, 20), (3, 3))
    mc.model("fex", "fex", 1, (10, 20), "carnifex", base=60, height=3.0)
    mc.squad("boyz", 2, "ork-boy", [(60, 40)])
    game = mc.game()
    game.roller = ScriptedRoller([2, 3, 6])
    game.apply({"do": "move", "unit": "fex", "by": [6, 0]})
    assert game.board.outline("fex").center == pytest.approx((16.0, 20.0))
    tank = Table()
    tank.crater("crater", (20, 20), (3, 3))
    tank.model("rhino", "rhino", 1, (10, 20), "rhino", base=(120, 90), height=2.5, hull=True,
               facing=-90)
    tank.squad("boyz", 2, "ork-boy", [(60, 40)])
    game = tank.game()
    game.roller = ScriptedRoller([1])
    game.apply({"do": "move", "unit": "rhino", "by": [12, 0]})
    assert game.board.model("rhino").status["immobilised"]
    assert game.board.outline("rhino").center == (10.0, 20.0)  # stops outside


def test_s28_morale_check_after_heavy_losses():
    game = duel(10.0, orks=10, seed=4)
    to_step(game, "shooting")
    board = game.board
    for m in ("boyz-1", "boyz-2", "boyz-3"):  # three of ten die this phase: 30%
        board.remove(m)
    game.roller = ScriptedRoller([6, 6, 3, 3])  # fails Ld 7, then falls back 6"
    game.apply({"do": "next"})
    morale = next(e for e in game.log if e.kind == "morale")
    assert morale.unit == "boyz" and not morale.data["passed"]
    assert game.unit("boyz").status["falling_back"]
    fall = next(e for e in game.log if e.kind == "fall_back")
    assert fall.data["distance"] == 6 and fall.data["edge"] == ["y", 48.0]


def test_example_scene_loads_every_profile():
    scene = load_scene(SCENE)
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.ruleset import get_ruleset
    from battlesight.scenes.build import build_world

    board = Board(scene, build_world(scene), get_ruleset("wh40k6"))
    assert board.profile("dev-4").weapon("missile launcher") is not None
    assert board.profile("warboss").stat("W") == 3
    assert board.model("captain").wounds == 3


def test_s21_charging_through_cover_strikes_at_initiative_1():
    t = Table()
    t.squad("boyz", 1, "ork-boy", [(10, 20 + 1.5 * i) for i in range(3)])
    t.squad("tac", 2, "tactical-marine", [(10 + R + 4, 20 + 1.5 * i) for i in range(3)])
    t.crater("crater", (10 + R / 2 + 2, 21.5), (1.5, 8.0))
    game = t.game(seed=3)
    to_step(game, "assault", "charge")
    game.roller = ScriptedRoller([4, 4, 6])  # 3D6 drop the highest: 8
    assert game.apply({"do": "charge", "unit": "boyz", "target": "tac",
                       "overwatch": False}).ok
    assert game.unit("boyz").turn["through_cover"] is True  # no assault grenades
    to_step(game, "assault", "fight")
    assert game.apply({"do": "fight", "unit": "boyz"}).ok
    fight = next(e for e in game.log if e.kind == "fight")
    ork_steps = [s for s in fight.data["record"]["steps"] if s["attacker"].startswith("boyz")]
    marine_steps = [s for s in fight.data["record"]["steps"] if s["attacker"].startswith("tac")]
    assert all(s["initiative"] == 1 for s in ork_steps)
    assert all(s["initiative"] == 4 for s in marine_steps)
    assert any(e.kind == "combat_result" for e in game.log)
    again = game.apply({"do": "fight", "unit": "tac"})
    assert not again.ok  # each combat is fought once per turn


def test_s22_wall_of_death():
    t = Table()
    t.squad("boyz", 1, "ork-boy", [(10, 20 + 1.5 * i) for i in range(3)])
    t.squad("guard", 2, "imperial-guardsman", [(10 + R + 6, 20 + 1.5 * i) for i in range(3)],
            weapons=["flamer"])
    game = t.game(seed=2)
    to_step(game, "assault", "charge")
    game.apply({"do": "charge", "unit": "boyz", "target": "guard"})
    watch = next(e for e in game.log if e.kind == "overwatch")
    walls = [s for s in watch.data["outcome"]["steps"] if "wall_of_death" in s]
    assert walls and all(1 <= s["hits"] <= 3 for s in walls)
    assert not any("to hit" in r["why"] for r in watch.rolls)  # automatic hits


def test_s28_regroup_below_a_quarter_needs_double_one():
    def falling(dice):
        game = duel(20.0, orks=10, seed=6)
        for m in [f"boyz-{i}" for i in range(3, 11)]:
            game.board.remove(m)  # 2 of the 10 starting models are left
        game.unit("boyz").phase_start_models = 2  # (no morale check for these losses)
        game.unit("boyz").status["falling_back"] = True
        game.roller = ScriptedRoller(dice)
        to_step(game, "movement")
        while game.active_player != 2:
            game.apply({"do": "end_phase"})
        return game, next(e for e in game.log if e.kind == "regroup")

    game, regroup = falling([2, 2, 1, 1])  # 4 <= Ld 7, but only a double 1 will do
    assert not regroup.data["passed"] and regroup.data["below_quarter"]
    assert game.unit("boyz").status.get("falling_back")
    game, regroup = falling([1, 1])
    assert regroup.data["passed"] and not game.unit("boyz").status.get("falling_back")
    # regrouped: only its free move of up to 3" (tests/test_phase_seed_rules.py)
    assert not game.legal({"do": "move", "unit": "boyz", "by": [3.5, 0]})[0]


def test_s30_reserves_arrive_from_the_table_edge():
    t = Table(units=[{"id": "boyz", "player": 2, "reserve": True}])
    t.squad("tac", 1, "tactical-marine", [(30, 5), (31.5, 5)])
    t.squad("boyz", 2, "ork-boy", [(30, 40), (31.5, 40)])
    t.scene.deployment = {1: [[0, 0], [72, 0], [72, 12], [0, 12]],
                          2: [[0, 36], [72, 36], [72, 48], [0, 48]]}
    game = t.game(seed=5)
    assert not game.board.model("boyz-1").on_table
    early = {"do": "arrive", "unit": "boyz", "to": {"boyz-1": [30, 44], "boyz-2": [31.5, 44]}}
    for _ in range(3):
        game.apply({"do": "end_phase"})  # game turn 1, player 2: no reserve rolls yet
    assert not game.apply(early).ok
    for _ in range(6):
        game.apply({"do": "end_phase"})  # to game turn 2, player 2
    roll = next(e for e in game.log if e.kind == "reserves")
    assert roll.data["arrives"] and roll.data["roll"] >= 3
    far = dict(early, to={"boyz-1": [30, 30], "boyz-2": [31.5, 30]})
    ok, why = game.legal(far)
    assert not ok and "table edge" in why
    assert game.apply(early).ok and game.board.model("boyz-1").on_table
    to_step(game, "assault", "charge")
    ok, why = game.legal({"do": "charge", "unit": "boyz", "target": "tac"})
    assert not ok and "arrived from reserve" in why
