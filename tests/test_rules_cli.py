"""The rules commands: `battlesight shoot`, `battlesight phases`, `battlesight play`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from battlesight.scenes import EXAMPLES_DIR, load_scene

from battlesight.cli.main import main
from tests.helpers import run_cli

SCENE = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
ACTIONS = str(Path(__file__).parent / "data" / "wh40k6_city_ruins_actions.yaml")


def test_phases(capsys):
    data = run_cli("phases", "wh40k6", "--json").ok().json()
    assert [p["phase"] for p in data["phases"]] == ["movement", "shooting", "assault"]
    assert data["phases"][2]["steps"][0]["actions"] == ["charge"]
    assert main(["phases", "wh40k6"]) == 0
    assert "assault" in capsys.readouterr().out
    assert main(["phases", "chess"]) == 2
    assert "no ruleset" in capsys.readouterr().err


def test_shoot_json():
    data = run_cli("shoot", SCENE, "--unit", "dev-1", "--target", "boyz-1", "--json",
                   "--samples", "200").ok().json()
    assert data["eligible"] is True and data["reason"] == ""
    firer = data["firers"][0]
    assert {"model", "can_fire", "sees", "in_range"} <= set(firer)
    target = data["targets"][0]
    assert {"model", "visible", "visible_fraction", "cover", "p_hit", "p_wound",
            "p_unsaved"} <= set(target)
    assert {"in_cover", "value", "source", "rule"} <= set(target["cover"])
    covered = [t for t in data["targets"] if t["cover"]["in_cover"]]
    assert covered and all(t["cover"]["rule"].startswith("wh40k6 §") for t in covered)
    assert data["expected_unsaved"] > 0
    for t in data["targets"]:
        assert 0 <= t["p_unsaved"] <= t["p_hit"] <= 1


def test_shoot_not_eligible_and_bad_ids(capsys):
    data = run_cli("shoot", SCENE, "--unit", "tac-1", "--target", "lootas-1",
                   "--json", "--samples", "100").ok().json()
    assert data["eligible"] is False and data["reason"]
    assert main(["shoot", SCENE, "--unit", "nobody", "--target", "boyz-1"]) == 2
    assert "no unit 'nobody'" in capsys.readouterr().err
    # a weapon the unit does not carry is a bad argument, like an unknown unit
    assert main(["shoot", SCENE, "--unit", "dev-1", "--target", "boyz-1",
                 "--weapon", "lascannon", "--samples", "100"]) == 2
    err = capsys.readouterr().err
    assert "no weapon 'lascannon' in unit dev-1" in err and "heavy bolter" in err


def test_play_writes_scene_and_log(tmp_path, capsys):
    out, log = tmp_path / "after.yaml", tmp_path / "log.json"
    assert main(["play", SCENE, "--actions", ACTIONS, "--seed", "15", "--out", str(out),
                 "--log", str(log)]) == 0
    text = capsys.readouterr().out
    assert "0 refused" in text
    after = load_scene(out)
    before = load_scene(SCENE)
    assert len(after.models) < len(before.models)
    moved = {m.id: m.at for m in after.models}
    assert moved["marine-1"] != before.model("marine-1").at
    events = json.loads(log.read_text())
    assert events["seed"] == 15 and any(e["kind"] == "fight" for e in events["events"])
    assert not list(tmp_path.glob(".*.tmp"))


def test_play_refuses_illegal_actions_without_failing(tmp_path, capsys):
    script = tmp_path / "bad.yaml"
    script.write_text("- {do: shoot, unit: tac-1, target: boyz-1}\n"
                      "- {do: move, unit: boyz-1, by: [0, -1]}\n"
                      "- {do: move, unit: tac-1, by: [0, 9]}\n")
    data = run_cli("play", SCENE, "--actions", str(script), "--json").ok().json()
    assert data["refused"] == 3
    reasons = [r["reason"] for r in data["results"]]
    assert "not allowed now" in reasons[0] and "player 2" in reasons[1]
    assert "at most 6" in reasons[2]
    # an action the system does not know is no refusal of timing: the file is refused
    script.write_text("- {do: fly, unit: tac-1}\n")
    assert main(["play", SCENE, "--actions", str(script)]) == 2
    assert ": action 1.do: unknown action 'fly'" in capsys.readouterr().err
    script.write_text("not: [a list")
    assert main(["play", SCENE, "--actions", str(script)]) == 2
    assert main(["play", SCENE, "--actions", str(tmp_path / "missing.yaml")]) == 2
    capsys.readouterr()


def test_rules_commands_do_not_import_panda3d():
    code = ("import sys; from battlesight.cli.main import main; "
            f"main(['phases', 'wh40k6']); main(['shoot', {SCENE!r}, '--unit', 'dev-1', "
            "'--target', 'boyz-1', '--samples', '50']); "
            "sys.exit(1 if any(m.startswith('panda3d') for m in sys.modules) else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("argv", [["shoot", SCENE, "--unit", "dev-1"],
                                  ["play", SCENE]])
def test_required_arguments(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    capsys.readouterr()
