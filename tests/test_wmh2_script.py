"""The scripted game on the MK II example scene replays from its seed, and the command line
(`phases`, `shoot`, `play`) works on it through the core registry; `los_report` gives the
MK II answer for `battlesight los`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from battlesight.rulesets.core.board import Board
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes import load_scene
from battlesight.scenes.build import build_world

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
SCENE = ROOT / "scenes" / "examples" / "wmh2_hills_forest.yaml"
SCRIPT = ROOT / "tests" / "data" / "wmh2_hills_forest_actions.yaml"


def play(seed: int | None = None) -> Game:
    data = yaml.safe_load(SCRIPT.read_text(encoding="utf-8"))
    scene = load_scene(SCENE)
    game = Game(scene, scene.ruleset, data["seed"] if seed is None else seed,
                world=build_world(scene))
    for action in data["actions"]:
        result = game.apply(action)
        assert result.ok, (action, result.reason)
    return game


@pytest.fixture(scope="module")
def game() -> Game:
    return play()


def events(game: Game, kind: str) -> list:
    return [e for e in game.log if e.kind == kind]


def test_script_replays_identically(game):
    again = play()
    assert again.log_dicts() == game.log_dicts()
    assert json.dumps(game.log_dicts(), default=str)  # JSON-ready
    other = play(seed=12)
    assert other.log_dicts() != game.log_dicts()


def test_focus_allocation(game):
    first = events(game, "allocate")[0]
    assert first.data["to"] == {"charger": 2, "lancer": 1} and first.data["focus_left"] == 4 - 1
    assert first.data["rule"] == "wmh2 §2.4"


def test_trooper_unit_runs_on_a_run_order(game):
    order = events(game, "order")[0]
    assert (order.unit, order.data["order"]) == ("man-o-war", "run")
    run = next(e for e in events(game, "run") if e.unit == "man-o-war")
    assert len(run.data["moves"]) == 3
    assert all(4.0 < m["distance"] <= 8.0 for m in run.data["moves"])  # SPD 4: more than a
    ends = [e for e in events(game, "activation_end") if e.unit == "man-o-war"]  # full advance
    assert ends and "runs" in ends[0].data["reason"]


def test_ranged_attack_on_a_target_in_cover(game):
    shot = next(e for e in events(game, "attack") if e.data["attacker"] == "lancer")
    assert shot.data["target"] == "wg-5"
    parts = shot.data["def_bonus"]["parts"]
    assert parts == [{"kind": "cover", "value": 4, "source": "wall-2", "rule": "wmh2 §6"}]
    assert shot.data["defense"] == 12 + 4
    assert len(shot.data["attack_dice"]) == 3  # boosted attack roll


def test_warjack_charge_attack_has_boosted_damage(game):
    charge = events(game, "charge")[-1]
    assert charge.data["success"] and charge.data["distance"] >= 3.0
    assert charge.data["charge_attack"]
    attack = events(game, "charge_attack")[0]
    assert attack.data["attacker"] == "charger" and attack.data["target"] == "mow-1"
    assert attack.data["hit"] and len(attack.data["damage_dice"]) == 3
    bought = [e for e in events(game, "attack") if e.data["attacker"] == "charger"]
    assert len(bought) == 1 and len(bought[0].data["attack_dice"]) == 3
    assert len(bought[0].data["damage_dice"]) in (0, 2)  # not a charge attack: no free boost
    assert game.board.model("charger").status["focus"] == 0  # charge + buy + boost = 3


def test_game_uses_standard_volumes():
    scene = load_scene(SCENE)
    scene.models[0].height = 3.5
    scene.models[0].shape = "humanoid"
    game = Game(scene, "wmh2", 1, world=build_world(scene))
    assert game.board.world.models["stryker"].mesh.bounds[1][2] == pytest.approx(1.75)


# ---- command line ---------------------------------------------------------------------------


def test_cli_phases():
    out = run_cli("phases", "wmh2", "--json").ok().json()
    assert out["ruleset"] == "wmh2"
    assert [p["phase"] for p in out["phases"]] == ["maintenance", "control", "activation"]


def test_cli_shoot():
    out = run_cli("shoot", str(SCENE), "--unit", "long-gunners", "--target",
                  "winter-guard", "--json").ok().json()
    for key in ("unit", "target", "eligible", "reason", "rule", "firers", "targets",
                "expected_unsaved", "expected_damage"):
        assert key in out
    for t in out["targets"]:
        assert {"p_hit", "p_wound", "p_save_fail", "p_unsaved", "cover",
                "visible_fraction"} <= set(t)
        assert t["p_save_fail"] == 1.0  # MK II has no saves
        assert t["p_unsaved"] == pytest.approx(t["p_hit"] * t["p_wound"], abs=1e-12)
    assert out["eligible"]
    lg1 = next(f for f in out["firers"] if f["model"] == "lg-1")
    assert lg1["can_fire"] and "beyond RNG" in lg1["reason"]  # 32" away: misses outright


def test_cli_play(tmp_path):
    log = tmp_path / "log.json"
    out = run_cli("play", str(SCENE), "--actions", str(SCRIPT), "--log", str(log),
                  "--json").ok().json()
    assert out["seed"] == 11 and out["refused"] == 0
    saved = json.loads(log.read_text(encoding="utf-8"))
    assert saved["ruleset"] == "wmh2"


def test_judge_through_the_registry():
    scene = load_scene(SCENE)
    world = build_world(scene)
    ruleset = get_ruleset(scene.ruleset)
    out, woods, hidden = ruleset.judge(Board(scene, world, ruleset), [
        ("charger", "destroyer"), ("ironclad", "juggernaut"),
        ("stryker", "sorscha")])  # the last behind the Ironclad
    assert out.visible and out.rule == "wmh2 §5.2" and out.details["line"]
    assert woods.details["blocked_by"] == [{"id": "forest-1", "kind": "forest", "share": 1.0}]
    assert hidden.visible is False and hidden.details["line"] is None
    assert any(b["kind"] == "model" for b in hidden.details["blocked_by"])


def test_cli_los_carries_the_mk2_ruling():
    out = run_cli("los", str(SCENE), "--from", "lancer", "--to", "juggernaut", "--json").ok().json()
    ruling = out["verdict"]
    assert ruling["system"] == "wmh2" and ruling["visible"] is False
    assert ruling["details"]["blocked_by"][0]["id"] == "forest-1"
    assert ruling["details"]["line"] is None
    out = run_cli("los", str(SCENE), "--from", "charger", "--to", "destroyer", "--json").ok().json()
    assert out["verdict"]["visible"] and len(out["verdict"]["details"]["line"]) == 2
