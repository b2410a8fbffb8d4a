"""Regressions found by a QA pass over every command: bad input gets one line and exit code 2,
never a traceback, and nothing is written half-way; the tables say what they mean."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from battlesight.rulesets.core.game import Game
from battlesight.scenes import EXAMPLES_DIR, load_scene

from tests.helpers import run_cli

DEMO = str(EXAMPLES_DIR / "demo.yaml")
CITY = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
AOS = str(EXAMPLES_DIR / "aos2_ruins_obstacles.yaml")
DATA = Path(__file__).parent / "data"


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---- output paths -------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["export", DEMO, "{dir}/x.glb"],
    ["generate", "--ruleset", "wh40k6", "--seed", "1", "--out", "{dir}/x.glb"],
    ["analyze", DEMO, "--heatmap", "{dir}/x.png"],
    ["play", DEMO, "--actions", str(DATA / "wh40k6_city_ruins_actions.yaml"),
     "--out", "{dir}/x.glb"],
    ["play", DEMO, "--actions", str(DATA / "wh40k6_city_ruins_actions.yaml"),
     "--log", "{dir}/x.glb"],
])
def test_an_output_path_that_is_a_folder_is_a_bad_argument(tmp_path, argv):
    folder = next(a for a in argv if "{dir}" in a).replace("{dir}/", "")
    (tmp_path / folder).mkdir()
    code, _, err = run_cli(*[a.replace("{dir}", str(tmp_path)) for a in argv])
    assert code == 2
    assert "it is a folder" in one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]  # no temporary left


def test_play_writes_neither_output_when_one_cannot_be_written(tmp_path):
    out = tmp_path / "after.yaml"
    (tmp_path / "log.json").mkdir()
    code, _, err = run_cli("play", CITY, "--actions",
                           str(DATA / "wh40k6_city_ruins_actions.yaml"), "--out", str(out),
                           "--log", str(tmp_path / "log.json"))
    assert code == 2 and "--log" in one_line_error(err)
    assert not out.exists()


def test_an_os_error_while_writing_is_one_line(monkeypatch, tmp_path):
    import battlesight.cli.commands.export as export

    def fail(*_args, **_kw):
        raise OSError(28, "No space left on device", str(tmp_path / "x.glb"))

    monkeypatch.setattr(export, "export_world", fail)
    code, _, err = run_cli("export", DEMO, str(tmp_path / "x.glb"))
    assert code == 2
    expected = f"battlesight export: {tmp_path / 'x.glb'}: No space left on device"
    assert one_line_error(err) == expected


def test_demo_checks_its_arguments_before_printing(tmp_path):
    code, out, err = run_cli("demo", "--from", "nobody", "--no-render")
    assert code == 2 and out == "" and "no model 'nobody'" in one_line_error(err)
    afile = tmp_path / "pictures"
    afile.write_text("")
    code, out, err = run_cli("demo", "--out", str(afile))
    assert code == 2 and out == "" and "is a file" in one_line_error(err)


# ---- phases ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../geometry", "wh40k6.profile", "a/b", ""])
def test_phases_of_a_name_that_is_no_package(name):
    code, _, err = run_cli("phases", name)
    assert code == 2
    assert f"no ruleset {name!r}" in one_line_error(err)


def test_phases_says_when_a_step_takes_no_actions():
    code, out, _ = run_cli("phases", "wmh2")
    assert code == 0 and "- maintenance: automatic, no actions" in out
    assert not any(line.rstrip().endswith(": actions") for line in out.splitlines())


# ---- shoot ----------------------------------------------------------------------------------


@pytest.mark.parametrize("scene,unit,target", [
    (DEMO, "tac-1", "boyz-1"),
    (str(EXAMPLES_DIR / "wmh2_hills_forest.yaml"), "long-gunners", "winter-guard"),
    (str(EXAMPLES_DIR / "whfb6_village.yaml"), "handgunners", "orc-boyz"),
    (AOS, "judicators", "bloodreavers"),
])
def test_shoot_with_a_weapon_the_unit_does_not_carry(scene, unit, target):
    code, out, err = run_cli("shoot", scene, "--unit", unit, "--target", target,
                             "--weapon", "zap", "--samples", "40")
    assert code == 2 and out == ""
    assert f"no weapon 'zap' in unit {unit}; its weapons: " in one_line_error(err)


def test_aos2_weapon_choice_is_judged_not_filtered_afterwards():
    """--weapon used to drop the other weapons' lines after the unit had been judged with
    them: the verdict and the odds still spoke of the bow."""
    code, out, _ = run_cli("shoot", AOS, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius", "--json")
    data = json.loads(out)
    assert code == 0 and data["firers"] == [] and not data["eligible"]
    assert data["reason"] == "judicators has no missile weapon 'storm gladius'"
    assert all(t["p_hit"] == 0.0 for t in data["targets"])


def test_shoot_table_never_cuts_a_number_in_half():
    code, out, _ = run_cli("shoot", CITY, "--unit", "captain", "--target", "warboss")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("captain  "))
    assert 'bolter range 24"' in line and not line.rstrip().endswith("range 2")


def test_shoot_at_a_friendly_unit_prints_no_empty_tables():
    code, out, _ = run_cli("shoot", DEMO, "--unit", "tac-1", "--target", "tac-1")
    assert code == 0
    assert out.strip() == "tac-1 -> tac-1: cannot shoot: cannot shoot at a friendly unit"


def test_aos2_targets_table_has_no_blank_rule():
    code, out, _ = run_cli("shoot", AOS, "--unit", "judicators", "--target",
                           "bloodreavers")
    assert code == 0
    rows = [re.split(r"\s{2,}", x.strip()) for x in out.splitlines() if x.startswith("reaver-")]
    assert rows and all(len(r) == 10 for r in rows)  # p_save_fail is a column
    assert all(r[5].startswith("aos2 §") for r in rows)  # the cover verdict's rule


# ---- los ------------------------------------------------------------------------------------


def test_los_table_writes_40k_cover_as_a_save_and_only_for_seen_models():
    code, out, _ = run_cli("los", DEMO, "--from", "sgt")
    assert code == 0
    rows = {x.split()[0]: x for x in out.splitlines()[3:]}
    assert "cover 4+ (ruin-1)" in rows["boy-3"]
    assert "cover" not in rows["nob"]  # not seen: no cover to speak of
    assert "cover 4 " not in out


def test_los_from_a_model_to_itself_is_a_bad_argument():
    code, out, err = run_cli("los", DEMO, "--from", "sgt", "--to", "sgt")
    assert code == 2 and out == ""
    assert "--to sgt is the observer itself" in one_line_error(err)


def test_40k_forest_cover_note_says_seen_through_not_hidden():
    """boy-4 is seen whole (by the rules) through wood-1: the note said '100% hidden by'."""
    code, out, _ = run_cli("los", DEMO, "--from", "sgt", "--to", "boy-4", "--json")
    ruling = json.loads(out)["verdict"]
    assert code == 0 and ruling["visible"] and ruling["cover"]["source"] == "wood-1"
    assert ruling["cover"]["notes"] == ["100% seen through wood-1"]


# ---- play -----------------------------------------------------------------------------------


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
