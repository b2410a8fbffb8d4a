"""Actions of the wrong shape are refused with their reason, never raised: a malformed actions file
names its line, a malformed parameter of any system is a refusal, and so is one no check
foresaw."""

from __future__ import annotations

import json

import pytest
from battlesight.rulesets.core.game import Game
from battlesight.scenes import EXAMPLES_DIR, load_scene

from tests.helpers import one_line_error, run_cli

DEMO = str(EXAMPLES_DIR / "demo.yaml")


def _play_file(tmp_path, text: str) -> str:
    path = tmp_path / "actions.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text,expected", [
    ("seed: x\nactions: []\n", "actions.yaml:1: seed: expected a whole number, got 'x'"),
    ("seed: 3\nactions:\n  - {do: next}\n  - 7\n",
     "actions.yaml:4: action 2: expected a mapping with 'do', got 7"),
])
def test_play_names_the_line_of_a_malformed_actions_file(tmp_path, text, expected):
    out = tmp_path / "after.yaml"
    code, _, err = run_cli("play", DEMO, "--actions", _play_file(tmp_path, text),
                           "--out", str(out))
    assert code == 2 and one_line_error(err).endswith(expected)
    assert not out.exists()


@pytest.mark.parametrize("action,reason", [
    ("{do: move, unit: tac-1, to: [1, 2]}", "'to' must map models to points"),
    ("{do: move, unit: tac-1, to: {sgt: far}}", "to: sgt: expected [x, y] in inches"),
    ("{do: move, unit: tac-1, by: far}", "'by' must be [dx, dy] in inches"),
    ("{do: move, unit: tac-1, by: [1, 0, 3]}", "'by' must be [dx, dy] in inches"),
    ("{do: [next]}", "'do' must be the name of an action"),
])
def test_play_refuses_actions_of_the_wrong_shape_with_the_reason(tmp_path, action,
                                                                  reason):
    code, out, err = run_cli("play", DEMO, "--actions",
                             _play_file(tmp_path, f"- {action}\n"), "--json")
    assert code == 0 and err == ""
    result = json.loads(out)["results"][0]
    assert not result["ok"] and reason in result["reason"]


def _game(name: str) -> Game:
    scene = load_scene(EXAMPLES_DIR / f"{name}.yaml")
    return Game(scene, scene.ruleset, 0)


@pytest.mark.parametrize("name,actions,reason", [
    ("wh40k6_city_ruins", [{"do": "next"}, {"do": "shoot", "unit": "dev-1", "target": [1]}],
     "'target' must be an id"),
    ("wmh2_hills_forest", [{"do": "next"}, {"do": "allocate", "unit": "stryker",
                                            "to": [1]}], "'to' must map models to amounts"),
    ("wmh2_hills_forest", [{"do": "next"}, {"do": "allocate", "unit": "stryker",
                                            "to": {"charger": "x"}}],
     "must be a whole number"),
    ("wmh2_hills_forest", [{"do": "next"}, {"do": "next"},
                           {"do": "advance", "unit": "charger", "to": [1]}],
     "to: expected [x, y]"),
    ("wmh2_hills_forest", [{"do": "next"}, {"do": "next"},
                           {"do": "advance", "unit": "charger", "path": []}],
     "'path' must be a list"),
    ("wmh2_hills_forest", [{"do": "next"}, {"do": "next"},
                           {"do": "charge", "unit": "charger", "target": "mow-1",
                            "stop_at": "x"}], "'stop_at' must be a number"),
])
def test_malformed_parameters_are_refused_not_raised(name, actions, reason):
    game = _game(name)
    results = [game.apply(a) for a in actions]
    assert not results[-1].ok and reason in results[-1].reason, results[-1].reason


def test_aos2_move_to_a_list_is_refused_not_raised():
    game = _game("aos2_ruins_obstacles")
    game.apply({"do": "next"})  # hero -> movement
    unit = "liberators" if game.active_player == 1 else "bloodreavers"
    result = game.apply({"do": "move", "unit": unit, "to": [1]})
    assert not result.ok and "'to' must map models" in result.reason, result.reason


@pytest.mark.parametrize("files", [0, -2, 2.5, 1000])
def test_whfb6_reform_refuses_impossible_files(files):
    """files: 0 divided by zero; -2, 2.5 and 1000 were accepted."""
    game = _game("whfb6_village")
    while "reform" not in game.step.actions:
        game.apply({"do": "next"})
    unit = next(u for u, s in game.units.items() if s.player == game.active_player)
    result = game.apply({"do": "reform", "unit": unit, "files": files})
    assert not result.ok and "'files' must be a whole number from 1 to" in result.reason


def test_whfb6_reform_with_null_facing_keeps_the_facing():
    game = _game("whfb6_village")
    while "reform" not in game.step.actions:
        game.apply({"do": "next"})
    unit = next(u for u, s in game.units.items() if s.player == game.active_player)
    assert game.apply({"do": "reform", "unit": unit, "facing": None, "files": None}).ok


def test_a_parameter_no_check_foresaw_is_still_a_refusal(monkeypatch):
    """The engine's last guard: a system that trips over a parameter while judging it refuses
    the action, naming it, instead of raising."""
    game = _game("wh40k6_city_ruins")

    def legal(_game, _action):
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(game.ruleset, "legal", legal)
    result = game.apply({"do": "move", "unit": "tac-1", "by": [1, 1]})
    assert not result.ok and result.reason.startswith("malformed 'move' action")
