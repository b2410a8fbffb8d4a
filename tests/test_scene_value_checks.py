"""Scene values checked one by one: wmh2 weapon stats and characteristics refused naming their key
(or accepted when they read), a unit name a checked key."""

from __future__ import annotations

import pytest

from tests.helpers import run_cli

WMH2_PYRO = """\
format: 1
ruleset: wmh2
table: [48, 48]
models:
  - {{id: pyro, player: 1, at: [10, 10], base: 30, profile: solo,
     weapons: [{{name: torch, RNG: 8, {weapon}}}]{stats}}}
  - {{id: foe, player: 2, at: [20, 10], base: 30}}
"""


@pytest.mark.parametrize("weapon, key", [
    ("ROF: 0, POW: 12", "ROF"), ("ROF: 2.5, POW: 12", "ROF"), ("POW: -3", "POW"),
    ("POW: abc", "POW"), ("ROF: many, POW: 10", "ROF"), ("POW: 101", "POW"),
])
def test_wmh2_weapon_stats_are_refused_naming_the_weapon_key(tmp_path, weapon, key):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    lines = [line for line in err.strip().splitlines() if "problem(s)" not in line]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"{path}:6: models[pyro].weapons[0].{key}: must be a whole"), err
    assert "invalid literal" not in err


@pytest.mark.parametrize("weapon", ["ROF: 3, POW: 12", "ROF: '-', POW: '-'", "ROF: '*'"])
def test_wmh2_weapon_stats_that_read_are_accepted(tmp_path, weapon):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 0, err


def test_wmh2_characteristic_text_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon="POW: 10", stats=", stats: {RAT: '4+'}"),
                    encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 2 and "models[pyro].stats.RAT: a wmh2 characteristic is a whole number" \
        in err, err


def test_a_unit_name_is_a_checked_scene_key(tmp_path):
    from tests.helpers import minimal_with, write_scene

    good = write_scene(tmp_path, minimal_with().replace(
        "profile: tactical-squad}", "profile: tactical-squad, name: Tactical Squad}"))
    assert run_cli("validate", str(good))[0] == 0
    bad = write_scene(tmp_path, minimal_with().replace(
        "profile: tactical-squad}", "profile: tactical-squad, name: 3}"), "bad.yaml")
    code, _, err = run_cli("validate", str(bad))
    assert code == 2 and "units[tac-1].name: must be a non-empty string, got 3" in err
