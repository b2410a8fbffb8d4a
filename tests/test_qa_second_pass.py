"""Regressions from a second QA pass: argument errors name their command, wmh2 stats are
checked one by one, the API takes readings as the CLI does, shares under 1% read '<1%',
shoot tables do not show 100% for attacks that cannot hit, and captions read with units."""

from __future__ import annotations

from pathlib import Path

import pytest
from battlesight.scenes import EXAMPLES_DIR
from battlesight.viewer.cli import main

DEMO = str(EXAMPLES_DIR / "demo.yaml")
DATA = Path(__file__).parent / "data"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, command", [
    (["play", DEMO, "--actions", "a.yaml", "--readings", "all"], "play"),
    (["validate", DEMO, "--no-such-flag"], "validate"),
])
def test_unknown_arguments_are_refused_by_their_command(capsys, argv, command):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"battlesight {command}: unrecognized arguments: "), err


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
def test_wmh2_weapon_stats_are_refused_naming_the_weapon_key(capsys, tmp_path, weapon, key):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    lines = [line for line in err.strip().splitlines() if "problem(s)" not in line]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"{path}:6: models[pyro].weapons[0].{key}: must be a whole"), err
    assert "invalid literal" not in err


@pytest.mark.parametrize("weapon", ["ROF: 3, POW: 12", "ROF: '-', POW: '-'", "ROF: '*'"])
def test_wmh2_weapon_stats_that_read_are_accepted(capsys, tmp_path, weapon):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    assert code == 0, err


def test_wmh2_characteristic_text_is_refused(capsys, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon="POW: 10", stats=", stats: {RAT: '4+'}"),
                    encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    assert code == 2 and "models[pyro].stats.RAT: a wmh2 characteristic is a whole number" \
        in err, err


@pytest.mark.parametrize("chosen", ["wh40k6.A5=whole-model", ["wh40k6.A5=whole-model"],
                                    ("wh40k6.A5=whole-model", "wh40k6.A2=seen-only")])
def test_api_readings_take_id_value_texts_as_the_cli(chosen):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    readings = field.readings(chosen)
    assert readings["wh40k6.A5"] == "whole-model"
    assert readings == field.readings({"wh40k6.A5": "whole-model", **(
        {"wh40k6.A2": "seen-only"} if isinstance(chosen, tuple) else {})})


@pytest.mark.parametrize("chosen, says", [
    ("wh40k6.A5", "expected ID=VALUE"), (42, "expected a mapping of reading id to value"),
    ([1, 2], "expected a mapping of reading id to value"),
])
def test_api_readings_of_another_shape_are_refused_clearly(chosen, says):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    with pytest.raises(ValueError, match=says):
        field.readings(chosen)
