"""whfb6 rules as the seed (shared/seeds/002_9255477161266b0b.txt) writes them: the inline ward
save and wizard level, and skirmishers blocking other units' sight."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from battlesight.viewer.cli import main

from tests.helpers import write_scene
from tests.test_whfb6_scenes import game, loose, scene

#: one archer (player 1) and four targets facing it (player 2), each at the same range in the
#: open: `plain` without a ward, `inline` with `ward: 5`, `stat` with `stats: {Ward: 5}`,
#: `unit` whose unit entry gives `ward: 4`
WARD_SCENE = """\
format: 1
ruleset: whfb6
table: [36, 24]
units:
  - {{id: uu, player: 2, ward: 4}}
models:
  - {{id: a, unit: ua, player: 1, at: [18, 4], base: 20, height: 1.2}}
  - {{id: plain, unit: up, player: 2, at: [12, 16], base: 20, height: 1.2, facing: 180}}
  - {{id: inline, unit: ui, player: 2, at: [16, 16], base: 20, height: 1.2, facing: 180,
     {inline}}}
  - {{id: stat, unit: us, player: 2, at: [20, 16], base: 20, height: 1.2, facing: 180,
     stats: {{Ward: 5}}}}
  - {{id: in-unit, unit: uu, at: [24, 16], base: 20, height: 1.2, facing: 180}}
"""


def _save_fail(capsys, path, target: str) -> Fraction:
    assert main(["shoot", str(path), "--unit", "ua", "--target", target, "--json",
                 "--samples", "64"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["eligible"], report
    return Fraction(report["targets"][0]["exact"]["p_save_fail"])


def test_inline_ward_save_counts_in_shoot(capsys, tmp_path):
    # Seed, 飾物保護(Ward Saves): "飾物保護將不受力量保護所修正，而使模型獲得額外的保護。
    # 一個模型能擁有一個盔甲保護值和一個飾物保護值" -- the ward is a save of its own,
    # unmodified by Strength, rolled after the armour save.
    path = write_scene(tmp_path, WARD_SCENE.format(inline="ward: 5"))
    plain = _save_fail(capsys, path, "up")
    assert _save_fail(capsys, path, "ui") == plain * Fraction(4, 6)  # a 5+ ward fails on 1-4
    assert _save_fail(capsys, path, "us") == plain * Fraction(4, 6)  # the same as stats: Ward
    assert _save_fail(capsys, path, "uu") == plain * Fraction(3, 6)  # the unit entry's 4+
    assert main(["validate", "--strict", str(path)]) == 0  # ward: is a known key


def test_inline_wizard_level_gives_its_power_dice():
    # Seed, 魔法 (power dice): "投擲兩顆六面骰，再加上其餘依據魔法師等級所提供的骰子數 ...
    # 每個2級魔法師﹕+2顆六面骰" -- 2 dice plus one per level of each wizard; the other player
    # "每個1級魔法師﹕+1顆六面骰" dispel dice.
    models = loose("w", 1, "archer", [(20, 10)], base=20, wizard=2)
    models += loose("e", 2, "archer", [(20, 30)], base=20, facing=180, wizard=1)
    g = game(scene("whfb6", models=models), seed=2)
    while g.phase.name != "magic":
        g.apply({"do": "next"})
    dice = next(e for e in g.log if e.kind == "magic_dice").data
    assert (dice["power"], dice["dispel"]) == (4, 3)


@pytest.mark.parametrize(("line", "key", "fragment"), [
    ("ward: 7", "models[inline].ward", "from 2 to 6, got 7"),
    ("ward: 1", "models[inline].ward", "from 2 to 6, got 1"),
    ("ward: '5+'", "models[inline].ward", "whole number from 2 to 6"),
    ("wizard: 5", "models[inline].wizard", "wizard level, a whole number from 1 to 4, got 5"),
    ("wizard: 0", "models[inline].wizard", "from 1 to 4, got 0"),
    ("army: 3", "models[inline].army", "army name"),
])
def test_bad_ward_or_wizard_level_is_refused(capsys, tmp_path, line, key, fragment):
    # Saves roll one D6 (2+ to 6+); the seed's wizards are of levels 1 to 4
    # ("1級魔法師" ... "4級魔法師").
    path = write_scene(tmp_path, WARD_SCENE.format(inline=line))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:10: {key}: " in err and fragment in err
    assert main(["shoot", str(path), "--unit", "ua", "--target", "up"]) == 2
    assert f"{path}:10: {key}: " in capsys.readouterr().err
