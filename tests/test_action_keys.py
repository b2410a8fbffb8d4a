"""An actions file's misspelt action or key is named with the closest known name, before any
question of timing (issue 22): `play` refuses the whole file, one `FILE:LINE: KEY: message` line
each, exit 2, nothing played or written; the game refuses such an action with the same words."""

from __future__ import annotations

import re

import pytest
import yaml
from battlesight.rulesets.core.action_keys import action_names, action_problems
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes import load_scene

from tests.helpers import EXAMPLES, ROOT, run_cli

CITY = EXAMPLES / "wh40k6_city_ruins.yaml"
SYSTEMS = ("wh40k6", "wmh2", "whfb6", "aos2")

BAD = """\
seed: 3
actions:
  - {do: move, unit: tac-1, by: [0, 1]}
  - {do: next, 2001-01-01: x}
  - do: shot
    unit: dev-1
  - {do: shoot, unit: dev-1, target: boyz-1, wepon: heavy bolter}
"""


def test_play_names_every_unknown_action_and_key_and_plays_nothing(tmp_path):
    actions, out = tmp_path / "bad.yaml", tmp_path / "after.yaml"
    actions.write_text(BAD, encoding="utf-8")
    code, stdout, err = run_cli("play", CITY, "--actions", actions, "--out", out)
    assert (code, stdout) == (2, "") and not out.exists()
    assert err.splitlines() == [
        f"{actions}:4: action 2.2001-01-01: unknown key '2001-01-01' for 'next' ('next' takes "
        "no parameters)",
        f"{actions}:5: action 3.do: unknown action 'shot' (did you mean 'shoot'?); wh40k6 "
        "actions: arrive, charge, end_phase, fight, move, next, psychic, run, shoot",
        f"{actions}:7: action 4.wepon: unknown key 'wepon' for 'shoot' (did you mean "
        "'weapon'?)",
    ]


def test_an_unknown_action_is_not_called_untimely():
    game = Game(load_scene(CITY), "wh40k6", 1)  # the movement phase: no shooting now
    assert "is not allowed now" in game.apply({"do": "shoot", "unit": "dev-1"}).reason
    result = game.apply({"do": "shot", "unit": "dev-1", "target": "boyz-1"})
    assert not result.ok
    assert result.reason.startswith("unknown action 'shot' (did you mean 'shoot'?)")


def test_the_game_refuses_a_misspelt_key_with_the_closest_name():
    game = Game(load_scene(EXAMPLES / "wmh2_hills_forest.yaml"), "wmh2", 1)
    result = game.apply({"do": "advance", "unit": "stryker", "by": [0, 1], "facng": 90})
    assert (result.ok, result.reason) == (
        False, "unknown key 'facng' for 'advance' (did you mean 'facing'?)")
    assert action_problems(get_ruleset("aos2"), {"do": "battleshock", "unit": "u", "x": 1}) == [
        ("x", "unknown key 'x' for 'battleshock' ('battleshock' takes no parameters)")]


def test_the_bundled_action_files_use_only_known_actions_and_keys():
    files = sorted((ROOT / "docs" / "examples").glob("*_actions.yaml")) + sorted(
        (ROOT / "tests" / "data").glob("*_actions.yaml"))
    assert len(files) >= 8
    for path in files:
        ruleset = get_ruleset(next(s for s in SYSTEMS if path.name.startswith(s)))
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for action in data["actions"] if isinstance(data, dict) else data:
            assert action_problems(ruleset, action) == [], (path, action)


def documented_params(system: str) -> dict[str, set[str]]:
    """Per action of a system's table in docs/actions.md, the names in its parameters cell."""
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {system}:")[1].split("\n## ")[0]
    out: dict[str, set[str]] = {}
    for action, cell in re.findall(r"^\| `([a-z_]+)` \|[^|]*\|([^|]*)\|", section, re.M):
        same = re.match(r"\s*as `([a-z_]+)`", cell)  # "as `move`": the same parameters
        out[action] = out[same[1]] if same else set(re.findall(r"`([a-z_]+)", cell))
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_declared_parameter_is_documented(system):
    ruleset = get_ruleset(system)
    documented = documented_params(system)
    assert set(ruleset.action_params) <= set(action_names(ruleset))
    for action, params in ruleset.action_params.items():
        missing = set(params) - documented[action]
        assert not missing, (system, action, missing)
