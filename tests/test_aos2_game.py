"""aos2 through the phase engine: moves, charges, combat picks, wounds, spells, garrisons and
the scripted turn on the example scene (A-09, A-15..A-22, A-24, A-26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from battlesight.rulesets.aos2 import moves, rules, turn
from battlesight.rulesets.core.measure import Outline
from battlesight.scenes import EXAMPLES_DIR
from battlesight.scenes.loader import load_scene

from battlesight.cli.main import main
from tests.test_whfb6_scenes import board, game, loose, scene

N = {"do": "next"}
SCENE = EXAMPLES_DIR / "aos2_ruins_obstacles.yaml"
SCRIPT = Path(__file__).parent / "data" / "aos2_ruins_obstacles_actions.yaml"
MOVE12 = {"stats": {"move": 12, "wounds": 5, "bravery": 8, "save": 4}}


def _to(g, phase: str) -> None:
    while g.phase.name != phase:
        g.apply(N)


def _g(models, terrain=(), seed=1, first=1):
    """A game where `first` won the first priority roll (the first such seed from `seed`)."""
    while True:
        g = game(scene("aos2", list(terrain), models=models), seed=seed)
        if g.active_player == first:
            return g
        seed += 1


def test_a15_coherency():
    def o(x, z=0.0):
        return Outline((x, 0.0), z, 1.5, (0.63, 0.63))

    assert moves.coherent([o(0), o(1.26 + 0.9, 5.5)])
    assert not moves.coherent([o(0), o(1.26 + 1.1)])
    assert not moves.coherent([o(0), o(1.26 + 0.5, 6.5)])


def test_a15_split_unit_keeps_the_largest_group():
    pts = [(10 + 1.4 * i, 10) for i in range(6)] + [(30 + 1.4 * i, 10) for i in range(4)]
    g = _g(loose("u", 1, "archer", pts) + loose("e", 2, "archer", [(60, 40)]))
    turn.remove_split_units(g)
    assert len(g.board.unit_models("u")) == 6


WALL2 = {"id": "w", "type": "wall", "from": [0, 14], "to": [40, 14], "height": 2}
WALL3 = {"id": "w", "type": "wall", "from": [0, 14], "to": [40, 14], "height": 3}


@pytest.mark.parametrize(("wall", "across", "legal"), [(WALL2, 8.0, True), (WALL2, 9.0, False),
                                                       (WALL3, 6.0, True), (WALL3, 6.5, False)])
def test_a16_climbing_counts_vertical_distance(wall, across, legal):
    """Move 12: 4" to a 2" wall, 2" up and 2" down, 4" beyond (8" across in plan)."""
    start = 14 - 0.25 - 4.0 - 0.63
    models = loose("u", 1, "archer", [(20, start)], **MOVE12)
    b = board(scene("aos2", [wall], models=models))
    dest = moves.Dest((20, start + across))
    assert moves.check(b, "u", {"u-1": dest}, 12, "normal").ok is legal


def test_a16_climbing_onto_a_ruin_floor():
    ruin = {"id": "r", "type": "ruin", "at": [20, 20], "size": [8, 8], "floors": [3],
            "height": 6, "walls": ["north"]}
    b = board(scene("aos2", [ruin], models=loose("u", 1, "archer", [(20, 19)])))
    ground = b.outline("u-1").z  # the ruin's base slab
    assert moves.path_length(b, "u-1", moves.Dest((20, 19), floor=1)) == \
        pytest.approx(3.0 - ground)


def test_a17_flying_ignores_vertical_distance():
    flyer = {**MOVE12, "keywords": ["fly"]}
    models = loose("u", 1, "archer", [(20, 14 - 0.25 - 4 - 0.63)], **flyer)
    b = board(scene("aos2", [WALL2], models=models))
    dest = moves.Dest((20, 14 - 0.25 - 4 - 0.63 + 12))
    assert moves.check(b, "u", {"u-1": dest}, 12, "normal").ok


def test_a18_normal_move_three_inch_rule_and_retreat():
    models = loose("u", 1, "archer", [(10, 10)]) + loose("e", 2, "archer", [(14, 14.16)])
    g = _g(models)
    _to(g, "movement")
    r = g.apply({"do": "move", "unit": "u", "by": [5, 0]})
    assert not r.ok and "more than 3" in r.reason
    models = loose("u", 1, "archer", [(10, 10)]) + loose("e", 2, "archer", [(10, 13.26)])
    g = _g(models)
    _to(g, "movement")
    assert not g.apply({"do": "move", "unit": "u", "by": [0, -1]}).ok  # must retreat
    assert not g.apply({"do": "move", "unit": "u", "by": [0, -0.5], "retreat": True}).ok
    assert g.apply({"do": "move", "unit": "u", "by": [0, -4], "retreat": True}).ok
    _to(g, "shooting")
    assert "retreated" in g.apply({"do": "shoot", "unit": "u", "target": "e"}).reason


def test_a19_at_the_double():
    models = loose("u", 1, "archer", [(10, 10)])
    models += loose("h", 1, "archer", [(10, 10 + 1.26 + 5.9)], keywords=["hero"])
    models += loose("e", 2, "archer", [(60, 40)])
    g = _g(models)
    _to(g, "movement")
    assert g.apply({"do": "move", "unit": "u", "by": [11, 0], "run": True,
                    "at_the_double": "h-1"}).ok
    ev = [e for e in g.log if e.kind == "move"][0]
    assert ev.data["run"] == 6 and ev.data["limit"] == 12  # archers move 6 + 6
    assert turn.cp(g, 1) == 0


def _charge(gap: float, seed: int):
    models = loose("u", 1, "archer", [(20, 10), (21.4, 10)])
    models += loose("e", 2, "archer", [(20, 10 + 1.26 + gap)])
    g = _g(models, seed=seed)
    _to(g, "charge")
    return g


def test_a20_charge_succeeds_or_fails_by_its_dice():
    seen = set()
    for seed in range(1, 30):
        g = _charge(8.4, seed)
        before = g.board.outline("u-1").center
        assert g.apply({"do": "charge", "unit": "u", "target": "e"}).ok
        ev = [e for e in g.log if e.kind == "charge"][0]
        assert ev.data["success"] == (sum(ev.data["dice"]) >= 8)
        if not ev.data["success"]:
            assert g.board.outline("u-1").center == before  # no model moves
        else:
            assert g.board.unit_gap("u", "e", "3d") <= rules.CHARGE_END + 1e-6
        seen.add(ev.data["success"])
        if len(seen) == 2:
            break
    assert seen == {True, False}
    g = _charge(12.1, 1)
    assert not g.apply({"do": "charge", "unit": "u", "target": "e"}).ok


def test_a22_combat_picks_alternate():
    models = loose("a1", 1, "archer", [(10, 10)]) + loose("a2", 1, "archer", [(30, 10)])
    models += loose("b1", 2, "archer", [(10, 12.5)]) + loose("b2", 2, "archer", [(30, 12.5)])
    models += loose("far", 1, "archer", [(50, 10)]) + loose("x", 2, "archer", [(50, 14.4)])
    g = _g(models)
    _to(g, "combat")
    assert g.apply({"do": "fight", "unit": "a1"}).ok
    r = g.apply({"do": "fight", "unit": "a2"})
    assert not r.ok and "player 2 picks" in r.reason
    assert g.apply({"do": "fight", "unit": "b1"}).ok
    assert g.apply({"do": "fight", "unit": "a2"}).ok
    assert not g.apply({"do": "fight", "unit": "far"}).ok  # 3.1" from x: not eligible
    g.apply(N)
    fought = [e.unit for e in g.log if e.kind == "fight"]
    assert fought == ["a1", "b1", "a2", "b2"]  # b2 fights at the end of the phase


def test_a24_wound_allocation():
    stats = {"stats": {"move": 5, "wounds": 3, "bravery": 7, "save": 4}}
    g = _g(loose("u", 2, "archer", [(10, 10), (11.4, 10), (12.8, 10)], **stats) +
           loose("e", 1, "archer", [(60, 40)]))
    g.board.set_wounds("u-1", 2)
    slain = turn.allocate(g, "u", 5)
    assert slain == ["u-1", "u-3"] and g.board.model("u-2").wounds == 3


def test_a26_spells_once_per_army():
    wiz = {"keywords": ["wizard", "hero"]}
    models = loose("w1", 1, "archer", [(10, 10)], **wiz)
    models += loose("w2", 1, "archer", [(14, 10)], **wiz)
    models += loose("e", 2, "archer", [(10, 20)])
    g = _g(models, seed=2)
    assert g.apply({"do": "cast", "unit": "w1", "spell": "arcane bolt", "target": "e"}).ok
    r = g.apply({"do": "cast", "unit": "w2", "spell": "arcane bolt", "target": "e"})
    assert not r.ok and "already attempted" in r.reason


def test_a26_unbind_range():
    wiz = {"keywords": ["wizard", "hero"]}
    models = loose("w", 1, "archer", [(10, 10)], **wiz)
    models += loose("e", 2, "archer", [(10, 20)])
    models += loose("u", 2, "archer", [(10, 10 + 1.26 + 30.1)], **wiz)
    g = _g(models, seed=5)
    g.apply({"do": "cast", "unit": "w", "spell": "arcane bolt", "target": "e"})
    if [e for e in g.log if e.kind == "cast"][0].data["cast"]:
        r = g.apply({"do": "unbind", "unit": "u"})
        assert not r.ok and "30" in r.reason


def test_a09_garrison_entry_and_leaving():
    keep = {"id": "keep", "type": "box", "at": [40, 30], "size": [6, 6, 4], "garrison": True}
    near = [(36, 24.5), (38, 24.5)]
    g = _g(loose("u", 1, "archer", near) + loose("e", 2, "archer", [(60, 45)]), [keep])
    _to(g, "movement")
    assert g.apply({"do": "garrison", "unit": "u", "feature": "keep"}).ok
    assert not g.board.unit_models("u") and g.unit("u").status["garrison"] == "keep"
    far = [(36, 27 - 6.2 - 0.63), (38, 24.5)]
    g = _g(loose("u", 1, "archer", far) + loose("e", 2, "archer", [(60, 45)]), [keep])
    _to(g, "movement")
    assert "more than 6" in g.apply({"do": "garrison", "unit": "u", "feature": "keep"}).reason
    g = _g(loose("u", 1, "archer", near) + loose("e", 2, "archer", [(42, 33 + 2.9 + 0.63)]),
           [keep])
    _to(g, "movement")
    assert "within 3" in g.apply({"do": "garrison", "unit": "u", "feature": "keep"}).reason


def _play_script():
    from battlesight.cli.commands.play import read_actions

    actions, seed = read_actions(str(SCRIPT))
    g = game(load_scene(SCENE), seed=seed)
    return g, g.play(actions)


def test_scripted_turn_on_ruins_replays_from_its_seed():
    g1, results = _play_script()
    assert all(r.ok for r in results), [r.reason for r in results if not r.ok]
    charge = [e for e in g1.log if e.kind == "charge"][0]
    assert 8.5 <= charge.data["needed"] + 1e-3 < 9.0 and charge.data["success"] == (
        sum(charge.data["dice"]) >= 9)
    fight = [e for e in g1.log if e.kind == "fight" and e.unit == "khorgoraths"][0]
    assert fight.data["cover"] == ["ruin-2"]  # the hounds stand wholly within ruin-2
    shock = [e for e in g1.log if e.kind == "battleshock"]
    assert shock and shock[0].unit == "gryph-hounds"
    g2, _ = _play_script()
    assert g1.log_dicts() == g2.log_dicts()


def test_commands_run_aos2(capsys):
    assert main(["phases", "aos2", "--json"]) == 0
    names = [p["phase"] for p in json.loads(capsys.readouterr().out)["phases"]]
    assert names == ["hero", "movement", "shooting", "charge", "combat", "battleshock"]
    assert main(["shoot", str(SCENE), "--unit", "judicators", "--target", "bloodreavers",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not out["eligible"] and "range" in out["reason"]
    assert main(["play", str(SCENE), "--actions", str(SCRIPT), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["refused"] == 0


def test_judge_aos2():
    b = board(load_scene(SCENE))
    out, own = b.ruleset.judge(b, [("jud-1", "reaver-1"), ("jud-1", "jud-2")])
    assert out.rule.startswith("aos2 §4") and out.reason
    assert isinstance(out.visible, bool) and 0.0 <= out.seen_share <= 1.0
    assert own.visible is False and own.details["own_unit"] and own.rule == "aos2 §4.2 VIS-2"
