"""whfb6 through the phase engine: charges and reactions, failed charges, marching, rallying,
the scripted turn on the example scene and the commands (W-22..W-25, W-27, W-28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from battlesight.rulesets.whfb6 import tables
from battlesight.scenes import EXAMPLES_DIR
from battlesight.scenes.loader import load_scene

from battlesight.cli.main import main
from tests.test_whfb6_scenes import block, game, scene

N = {"do": "next"}
TO_DECLARE = [N]  # start -> movement (declare)
TO_REMAINING = [N, N, N, N, N]
SCENE = EXAMPLES_DIR / "whfb6_village.yaml"
SCRIPT = Path(__file__).parent / "data" / "whfb6_village_actions.yaml"


def _duel(gap: float, m: int = 4):
    """Player 1's block facing player 2's archers `gap` inches away (front to front)."""
    stats = {"M": m, "WS": 3, "BS": 3, "S": 3, "T": 3, "W": 1, "I": 3, "A": 1, "Ld": 7}
    a, am = block("a", 1, "archers", (20, 10), 0, 5, 2)
    a["stats"] = stats
    b, bm = block("b", 2, "archers", (20, 10 + gap), 180, 5, 2)
    return game(scene("whfb6", units=[a, b], models=am + bm), seed=3)


def test_w22_stand_and_shoot_from_6_inches():
    g = _duel(6.0)
    g.play(TO_DECLARE)
    assert g.apply({"do": "charge", "unit": "a", "target": "b"}).ok
    assert g.apply({"do": "react", "unit": "b", "reaction": "stand_and_shoot"}).ok
    fired = [e for e in g.log if e.kind == "stand_and_shoot"][0]
    assert fired.data["fired"]
    assert {grp["need"] for grp in fired.data["outcome"]["groups"]} == {5}  # 4 + charging


def test_w22_no_stand_and_shoot_from_4_inches():
    g = _duel(4.0)
    g.play(TO_DECLARE)
    assert g.apply({"do": "charge", "unit": "a", "target": "b"}).ok
    r = g.apply({"do": "react", "unit": "b", "reaction": "stand_and_shoot"})
    assert not r.ok and "not more than half" in r.reason
    assert g.apply({"do": "react", "unit": "b", "reaction": "hold"}).ok


def test_charge_reaches_and_engages():
    g = _duel(6.0)
    g.play(TO_DECLARE + [{"do": "charge", "unit": "a", "target": "b"},
                         {"do": "react", "unit": "b", "reaction": "hold"}, N, N, N])
    assert g.apply({"do": "charge_move", "unit": "a"}).ok
    ev = [e for e in g.log if e.kind == "charge"][0]
    assert ev.data["success"] and ev.data["side"] == "front"
    assert g.unit("a").status["engaged"] == ["b"]


def test_w23_failed_charge_moves_m_and_cannot_shoot():
    g = _duel(11.0, m=5)
    g.play(TO_DECLARE + [{"do": "charge", "unit": "a", "target": "b"},
                         {"do": "react", "unit": "b", "reaction": "hold"}, N, N, N,
                         {"do": "charge_move", "unit": "a"}])
    ev = [e for e in g.log if e.kind == "charge"][0]
    assert not ev.data["success"] and ev.data["needed"] > 10
    assert abs(g.unit("a").status["formation"]["front"][1] - 15.0) < 1e-6  # moved M = 5
    g.play([N, N, N])  # remaining -> magic -> shooting
    r = g.apply({"do": "shoot", "unit": "a", "target": "b"})
    assert not r.ok and "failed a charge" in r.reason


def test_w24_march_blocked_within_8_inches_unless_the_enemy_flees():
    g = _duel(7.9)
    g.play(TO_REMAINING)
    r = g.apply({"do": "march", "unit": "a", "wheel": 45})
    assert not r.ok and "within 8" in r.reason
    g = _duel(7.9)
    g.unit("b").status["fleeing"] = True
    g.play(TO_REMAINING)
    assert g.apply({"do": "march", "unit": "a", "wheel": 90, "forward": 0.5}).ok


@pytest.mark.parametrize(("lost", "tested"), [(6, True), (8, False)])
def test_w25_rally_needs_a_quarter(lost, tested):
    g = _duel(20.0)
    for m in g.board.unit_models("a")[:lost]:
        g.board.remove(m)
    g.unit("a").status["fleeing"] = True
    g.play([N, N])  # -> rally
    assert g.apply({"do": "rally", "unit": "a"}).ok
    ev = [e for e in g.log if e.kind == "rally"][0]
    assert ("dice" in ev.data) is tested  # 4 of 10 may test; 2 of 10 is under a quarter


def test_w27_w28_contacts_that_count_as_charges():
    assert tables.overrun_allowed(True, True) and not tables.overrun_allowed(False, True)
    assert tables.reactions_allowed("overrun") == ("hold",)
    assert "stand_and_shoot" in tables.reactions_allowed("charge")


def _play(seed: int = 5):
    from battlesight.cli.commands.play import read_actions

    actions, file_seed = read_actions(str(SCRIPT))
    g = game(load_scene(SCENE), seed=file_seed if seed is None else seed)
    results = g.play(actions)
    return g, results


def test_scripted_turn_on_the_village_replays_from_its_seed():
    g1, r1 = _play()
    assert all(r.ok for r in r1), [r.reason for r in r1 if not r.ok]
    kinds = [e.kind for e in g1.log]
    shoot = [e for e in g1.log if e.kind == "shoot"][0]
    assert shoot.data["cover"]["source"] == "hedge-1" and shoot.data["cover"]["value"] == -1
    react = [e for e in g1.log if e.kind == "react"][0]
    assert react.data["reaction"] == "stand_and_shoot"
    assert [e for e in g1.log if e.kind == "stand_and_shoot"][0].data["fired"]
    assert [e for e in g1.log if e.kind == "charge"][0].data["success"]
    assert "combat_result" in kinds and "break_test" in kinds
    g2, _ = _play()
    assert g1.log_dicts() == g2.log_dicts()


def test_commands_run_whfb6(capsys, tmp_path):
    assert main(["phases", "whfb6", "--json"]) == 0
    phases = json.loads(capsys.readouterr().out)["phases"]
    assert [p["phase"] for p in phases] == ["start", "movement", "magic", "shooting",
                                            "close_combat"]
    assert main(["shoot", str(SCENE), "--unit", "arrer-boyz", "--target", "orc-boyz",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["eligible"] is False and "friendly" in out["reason"]
    log = tmp_path / "log.json"
    assert main(["play", str(SCENE), "--actions", str(SCRIPT), "--log", str(log)]) == 0
    assert json.loads(log.read_text())["seed"] == 5


@pytest.mark.parametrize("unit,target", [("handgunners", "orc-boyz")])
def test_shooting_report_out_of_range(unit, target):
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.ruleset import get_ruleset
    from battlesight.scenes.build import build_world

    s = load_scene(SCENE)
    b = Board(s, build_world(s), get_ruleset("whfb6"))
    report = b.ruleset.shooting_report(b, unit, target, samples=64)
    assert not report["eligible"] and "range" in report["reason"]


def test_w26_magic_phase_cast_and_dispel():
    from tests.test_whfb6_scenes import loose

    models = loose("w", 1, "archer", [(20, 10)], base=20, rules=["wizard 2"])
    models += loose("e", 2, "archer", [(20, 30)], base=20, facing=180, rules=["wizard 1"])
    g = game(scene("whfb6", models=models), seed=2)
    while g.phase.name != "magic":
        g.apply(N)
    dice = [e for e in g.log if e.kind == "magic_dice"][0].data
    assert (dice["power"], dice["dispel"]) == (4, 3)  # 2 + level 2; 2 + a level 1 wizard
    r = g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 4,
                 "target": "e"})
    assert not r.ok and "1 to 3" in r.reason
    assert g.apply({"do": "cast", "unit": "w", "spell": "fireball", "dice": 3,
                    "target": "e"}).ok
    cast = [e for e in g.log if e.kind == "cast"][0].data
    if cast["cast"] and not cast["irresistible"]:
        assert g.apply({"do": "dispel", "dice": 2}).ok
        assert [e for e in g.log if e.kind == "dispel"]
