"""The phase rules of issue 22 as the seeds write them (shared/seeds/000_* 40k 6th, 001_* MK
II, 002_* WHFB 6th, 003_* AoS 2nd): each test quotes the seed's sentence it follows."""

from __future__ import annotations

import pytest
from battlesight.rulesets.wh40k6.shooting import ShotContext, analyse

from tests.rules_helpers import Table


def _line(report, model):
    return next(t for t in report.targets if t.model == model)


# Seed 000 (区域地形): "在区域地形里卧倒的模型掩体保护+2而不是通常的+1" (a model gone to ground
# in area terrain adds 2 to its cover save, not the usual 1); a forest is area terrain, so its
# 5+ becomes 3+, not 4+.
def test_40k_gone_to_ground_in_a_forest_adds_two():
    t = Table()
    t.forest("wood", [(26, 20), (34, 20), (34, 28), (26, 28)])
    t.model("gm", "guard", 2, (30, 24), "imperial-guardsman")
    t.squad("tac", 1, "tactical-marine", [(30, 8), (31.5, 8)])
    board = t.board()
    plain = _line(analyse(board, "tac", "guard", ShotContext(samples=200)), "gm")
    assert plain.cover.value == 5
    gtg = analyse(board, "tac", "guard", ShotContext(gone_to_ground=True, samples=200))
    assert _line(gtg, "gm").cover.value == 3


def _to(game, phase: str, step: str | None = None, player: int | None = None) -> None:
    while game.phase.name != phase or (step and game.step.name != step) or \
            (player is not None and game.active_player != player):
        assert game.apply({"do": "next"}).ok


R = 16 / 25.4


# Seed 000 (重整): "该单位马上可以移动多达3英寸。这个移动不受困难地形影响...当一个单位重整后,
# 它不能在移动阶段内进行移动...它不能奔跑和发动突袭" (a unit that regroups may at once move up
# to 3", not slowed by difficult terrain; then it may not move in the movement phase, nor run
# or charge).
def test_40k_regrouped_unit_moves_3_inches_once_and_may_not_charge():
    from tests.rules_helpers import ScriptedRoller

    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 20 + 1.5 * i) for i in range(5)])
    t.squad("boyz", 2, "ork-boy", [(10 + 2 * R + 9, 20 + 1.5 * i) for i in range(10)])
    game = t.game(6)
    game.unit("boyz").status["falling_back"] = True
    game.roller = ScriptedRoller([3, 3])  # regroup: 6 <= Ld 7
    while game.active_player != 2:
        game.apply({"do": "end_phase"})
    _to(game, "movement", "move", 2)
    regroup = next(e for e in game.log if e.kind == "regroup")
    assert regroup.data["passed"] and game.unit("boyz").status["regrouped"]
    too_far = game.legal({"do": "move", "unit": "boyz", "by": [-3.5, 0]})
    assert not too_far[0] and "at most 3\"" in too_far[1]
    moved = game.apply({"do": "move", "unit": "boyz", "by": [-2.5, 0]})
    event = next(e for e in moved.events if e.kind == "move")
    assert moved.ok and event.data["rule"] == "wh40k6 §10" and event.data["regroup"]
    again = game.legal({"do": "move", "unit": "boyz", "by": [-0.5, 0]})
    assert not again[0] and "already moved" in again[1]
    _to(game, "assault", "charge", 2)
    charge = game.apply({"do": "charge", "unit": "boyz", "target": "tac"})
    assert not charge.ok and "regrouped this turn" in charge.reason


# Seed 000 (后撤): "单位中的每个模型朝我方的桌边用最短的路径后撤" (each model falls back by the
# shortest route towards its own table edge): under Dawn of War player 2's edge is y = depth,
# wherever its models stand.
def test_40k_fall_back_heads_for_the_deployment_maps_own_edge():
    from battlesight.rulesets.wh40k6.movement import table_edge

    t = Table()
    t.squad("tac", 1, "tactical-marine", [(30, 30)])
    t.squad("boyz", 2, "ork-boy", [(30, 6)])  # player 2's models near y = 0
    board = t.board()
    assert table_edge(board, 2) == ("y", 0.0)  # no deployment: the edge nearest its models
    t.scene.deployment = "dawn-of-war"
    board = t.board()
    assert table_edge(board, 2) == ("y", 48.0) and table_edge(board, 1) == ("y", 0.0)
    t.scene.deployment = {1: [[0, 36], [72, 36], [72, 48], [0, 48]],
                          2: [[0, 0], [72, 0], [72, 12], [0, 12]]}
    assert table_edge(t.board(), 1) == ("y", 48.0)


def _aos(models, first: int = 1, seed: int = 1):
    from tests.test_whfb6_scenes import game, scene

    while True:
        g = game(scene("aos2", [], models=models), seed=seed)
        if g.active_player == first:
            return g
        seed += 1


def _aos_to(g, phase: str) -> None:
    while g.phase.name != phase:
        assert g.apply({"do": "next"}).ok


# Seed 003 (技能): "规则中说明能在 移动阶段中 使用的技能...而能在 您的移动阶段 使用的技能则无法用
# 在对手的移动阶段" (an ability timed by "the X phase" works in either player's X phase; only
# "your X phase" keeps it to your own); Inspiring Presence: "您可在崩溃阶段开始时使用这个指挥技能"
# (at the start of the battleshock phase), so player 2 may use it in player 1's.
def test_aos_inspiring_presence_in_the_opponents_battleshock_phase():
    from battlesight.rulesets.aos2 import turn

    from tests.test_whfb6_scenes import loose

    models = loose("u", 1, "archer", [(10, 10)]) + \
        loose("e", 2, "archer", [(40, 40)]) + \
        loose("h", 2, "archer", [(40, 43)], keywords=["hero"])
    g = _aos(models, first=1)
    _aos_to(g, "battleshock")
    assert g.active_player == 1
    turn.add_cp(g, 2, 1)
    used = g.apply({"do": "inspiring_presence", "unit": "e", "hero": "h-1"})
    assert used.ok, used.reason
    assert g.unit("e").status.get("inspired")


# Seed 003 (§5): a retreat is a normal move ("在普通移动开始时...可以选择撤退") and "当您挑选
# 某个单位进行普通移动时, 您可以声明该单位会奔跑前进" (any unit making a normal move may run):
# nothing forbids a retreat that is also a run.
def test_aos_a_retreat_may_also_be_a_run():
    from tests.test_whfb6_scenes import loose

    models = loose("u", 1, "archer", [(10, 10)]) + loose("e", 2, "archer", [(10, 13.26)])
    g = _aos(models, first=1)
    _aos_to(g, "movement")
    legal = g.legal({"do": "move", "unit": "u", "by": [0, -8], "retreat": True, "run": True})
    assert legal[0], legal[1]
    assert not g.legal({"do": "move", "unit": "u", "by": [0, -13], "retreat": True,
                        "run": True})[0]  # 6" + 6" at most


# Seed 001 (p.23, 冲锋): "除非目标模型已经在冲锋模型的近战范围里,否则冲锋模型不能自由停止移动;
# 如果目标模型已经在冲锋模型的近战范围里,则冲锋模型可以随时停止移动" (a charger may not stop of
# its own accord until the target is in its melee range; once it is, it may stop at any time):
# `stop_at` is inches travelled, carried on to where the target comes into melee range.
def test_mk2_charge_with_stop_at_never_stops_out_of_melee_range():
    from battlesight.rulesets.wmh2.movement import charge_allowance, charge_move

    from tests.tables import Wmh2Table

    board = Wmh2Table().model("jack", (10, 10), 40, profile="warjack-light") \
        .model("B", (20, 10), player=2).board()
    reach = board.profile("jack").melee_range
    free = charge_move(board, "jack", "B", charge_allowance(6))
    assert free.in_range and free.stopped_by == "B"  # on to base contact
    short = charge_move(board, "jack", "B", charge_allowance(6), stop_at=2.0)
    # carried on past 2" to where B is just in melee range: contact less the reach
    assert short.in_range and short.distance == pytest.approx(free.distance - reach, abs=1e-6)
    late = charge_move(board, "jack", "B", charge_allowance(6), stop_at=free.distance - 0.2)
    assert late.in_range and late.distance == pytest.approx(free.distance - 0.2, abs=1e-6)


# Seed 000 (主动性分步跟进): "在每一个主动性分步的开始，任何主动性与当前分步等值的模型如果还未与
# 敌人底盘接触，就必须进行一次跟进移动。这是一次多达3寸的移动" (at the start of every initiative
# step each model of that initiative not in base contact piles in up to 3"): marines (I4) pile
# in at step 4, Orks (I2) at step 2, not all at once before the first blow.
def test_40k_pile_in_at_every_initiative_step():
    from battlesight.rulesets.core.dice import Roller
    from battlesight.rulesets.wh40k6.assault import fight

    t = Table()
    t.squad("tac", 1, "tactical-marine", [(10, 20), (10, 24)])
    t.squad("boyz", 2, "ork-boy", [(10 + 2 * R + 0.01, 20), (10 + 2 * R + 5.5, 23.5)])
    board = t.board()
    record = fight(board, Roller(3), {1: ["tac"], 2: ["boyz"]}, set(), set(), set())
    steps = [(p["initiative"], p["unit"], [m["model"] for m in p["moves"]])
             for p in record["pile_ins"]]
    assert steps[0] == (4, "tac", ["tac-2"])
    assert (2, "boyz", ["boyz-2"]) in steps[1:]
