"""whfb6 rules as the seed (shared/seeds/002_9255477161266b0b.txt) writes them: the inline ward
save and wizard level, and skirmishers blocking other units' sight."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from battlesight.cli.main import main
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


def _screen_scene(tmp_path, screen_rules: str) -> str:
    """Five archers (player 1, facing the far edge), a line of six models of another unit 8"
    in front of them with 1" between bases (`screen_rules` their rules), and a target unit of
    three 8" behind that line."""
    rows = ["format: 1", "ruleset: whfb6", "table: [36, 30]", "models:"]
    rows += [f"  - {{id: arch-{i + 1}, unit: archers, player: 1, at: [{15 + i}, 4], base: 20, "
             "height: 1.2}" for i in range(5)]
    step = 20 / 25.4 + 1.0  # a 20 mm base and a 1" gap
    rows += [f"  - {{id: sk-{i + 1}, unit: screen, player: 1, at: [{14 + i * step:.3f}, 12], "
             f"base: 20, height: 1.2, rules: [{screen_rules}]}}" for i in range(6)]
    rows += [f"  - {{id: tgt-{i + 1}, unit: target, player: 2, at: [{16 + i}, 20], base: 20, "
             "height: 1.2, facing: 180}" for i in range(3)]
    return str(write_scene(tmp_path, "\n".join(rows) + "\n"))


def _los(capsys, path: str, a: str, b: str) -> dict:
    assert main(["los", path, "--from", a, "--to", b, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["verdict"]


def _shoot(capsys, path: str) -> dict:
    assert main(["shoot", path, "--unit", "archers", "--target", "target", "--json",
                 "--samples", "64"]) == 0
    return json.loads(capsys.readouterr().out)


def test_skirmishers_block_sight_through_the_gaps_between_them(capsys, tmp_path):
    # Seed, 散亂戰陣(Skirmishers) 1 and 3: "組成散亂戰陣的部隊，每個模型彼此間距1吋" ...
    # "位於散亂部隊之中的每個單位將不會擾亂彼此視線，但是散亂部隊本身卻會阻礙其餘單位的視線"
    # -- skirmishers stand 1" apart, and the skirmishing unit itself blocks other units'
    # sight: the archers cannot pick out the target between the skirmishers' bases.
    path = _screen_scene(tmp_path, "skirmishers")
    verdict = _los(capsys, path, "arch-3", "tgt-2")
    assert not verdict["visible"] and verdict["rule"] == "whfb6 §4.2 LV-6"
    assert "skirmishers screen" in verdict["reason"]
    assert verdict["geometric_share"] > 0.5  # the gaps are there: the meshes hardly hide it
    report = _shoot(capsys, path)
    assert not report["eligible"] and "skirmishers screen" in report["reason"]
    assert all(not f["can_fire"] for f in report["firers"])
    # the skirmishers see past each other (own unit), and the target sees them
    assert _los(capsys, path, "sk-3", "tgt-2")["visible"]
    assert _los(capsys, path, "tgt-2", "sk-3")["visible"]


def test_a_ranked_line_with_the_same_gaps_is_seen_through(capsys, tmp_path):
    # the same line without the skirmishers rule: only the bases block (LV-1), and the
    # archers shoot through the 1" gaps as before
    path = _screen_scene(tmp_path, "")
    verdict = _los(capsys, path, "arch-3", "tgt-2")
    assert verdict["visible"] and verdict["rule"] != "whfb6 §4.2 LV-6"
    assert _shoot(capsys, path)["eligible"]
