"""One report schema for `battlesight shoot --json` in every system: per target p_hit, p_wound,
p_save_fail and p_unsaved = p_hit x p_wound x p_save_fail exactly (per attack), and every
modifier applied listed with its rule (wmh2 aiming, 40k cover, whfb6 long range, aos2 cover).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from battlesight.rulesets.core.report import chain

from battlesight.cli.main import main
from tests.helpers import RULESET_EXAMPLES, write_scene

#: a shooting pair per system; None: the bundled example has none in range, a small scene
#: written by the test is used
PAIRS = {
    "wh40k6": ("dev-1", "boyz-1"),
    "wmh2": ("long-gunners", "winter-guard"),
}

#: one shooter (player 1, the system's standard model) and three targets facing it (player 2):
#: `near` in short range, `far` at long range in the shooter's front arc, both in the open;
#: `guard` just behind an obstacle
SMALL = """\
format: 1
name: small
ruleset: {ruleset}
table: [24, 24]
terrain:
  - {{id: wall, type: wall, from: [12, 6], to: [12, 11], height: 1, thickness: 0.5,
     obstacle: true}}
models:
  - {{id: a, unit: ua, player: 1, at: [4, 8], base: 32, height: 1.6}}
  - {{id: near, unit: ub, player: 2, at: [4, 14], base: 32, height: 1.6,
     facing: 180}}
  - {{id: far, unit: uf, player: 2, at: [9, 22], base: 32, height: 1.6,
     facing: 180}}
  - {{id: guard, unit: ug, player: 2, at: [13.2, 8], base: 32, height: 1.6,
     facing: 90}}
"""


def shoot(capsys, scene, unit: str, target: str, *extra: str) -> dict:
    assert main(["shoot", str(scene), "--unit", unit, "--target", target, "--json",
                 "--samples", "200", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def shoot_text(capsys, scene, unit: str, target: str, *extra: str) -> str:
    assert main(["shoot", str(scene), "--unit", unit, "--target", target, *extra]) == 0
    return capsys.readouterr().out


def small(tmp_path, ruleset: str):
    return write_scene(tmp_path, SMALL.format(ruleset=ruleset))


def assert_chain(report: dict) -> None:
    """p_unsaved is the product of the three steps: exactly as fractions, and as floats."""
    assert report["targets"]
    for t in report["targets"]:
        exact = {k: Fraction(v) for k, v in t["exact"].items()}
        assert exact["p_unsaved"] == exact["p_hit"] * exact["p_wound"] * exact["p_save_fail"]
        for key, value in exact.items():
            assert t[key] == float(value)
        assert t["p_unsaved"] == pytest.approx(t["p_hit"] * t["p_wound"] * t["p_save_fail"],
                                               abs=1e-12)
        assert all(0 <= t[k] <= 1 for k in ("p_hit", "p_wound", "p_save_fail", "p_unsaved"))


def modifiers(report: dict, model: str | None = None) -> list[dict]:
    return [m for t in report["targets"] if model in (None, t["model"]) for m in t["modifiers"]]


def test_chain_keeps_the_product_of_a_mix():
    """Two weapons with different odds: the steps are conditional, their product is the
    mix's P(unsaved) per attack; a step no attack reaches falls back to the mean."""
    parts = [(Fraction(2), Fraction(2, 3), Fraction(1, 2), Fraction(1, 3)),
             (Fraction(3), Fraction(1, 2), Fraction(5, 6), Fraction(1))]
    p_hit, p_wound, p_fail = chain(parts)
    mixed = sum(w * h * d * s for w, h, d, s in parts) / 5
    assert p_hit * p_wound * p_fail == mixed
    assert p_hit == Fraction(2 * 2, 3 * 5) + Fraction(3, 10)
    assert chain([(Fraction(1), Fraction(0), Fraction(1, 2), Fraction(1, 3))]) == (
        0, Fraction(1, 2), Fraction(1, 3))
    assert chain([]) == (0, 0, 1)


@pytest.mark.parametrize("ruleset", ["wh40k6", "wmh2"])
def test_bundled_example_chain(capsys, ruleset):
    unit, target = PAIRS[ruleset]
    report = shoot(capsys, RULESET_EXAMPLES[ruleset], unit, target)
    assert report["eligible"]
    assert_chain(report)
    if ruleset == "wh40k6":  # the MK II example's shooters are all out of range (auto misses)
        assert any(t["p_unsaved"] > 0 for t in report["targets"])


@pytest.mark.parametrize("ruleset", ["wmh2", "whfb6", "aos2"])
def test_small_scene_chain(capsys, tmp_path, ruleset):
    report = shoot(capsys, small(tmp_path, ruleset), "ua", "ub")
    assert report["eligible"], report["reason"]
    assert_chain(report)
    assert report["targets"][0]["p_unsaved"] > 0


def test_wmh2_no_save_and_aiming(capsys, tmp_path):
    scene = small(tmp_path, "wmh2")
    still = shoot(capsys, scene, "ua", "ub")
    moved = shoot(capsys, scene, "ua", "ub", "--moved")
    assert all(t["p_save_fail"] == 1.0 for t in still["targets"])
    aiming = [m for m in modifiers(still) if m["name"].startswith("aiming")]
    assert aiming and all(m["value"] == 2 and m["rule"] == "wmh2 §9.2" for m in aiming)
    assert not [m for m in modifiers(moved) if m["name"].startswith("aiming")]
    for a, b in zip(still["targets"], moved["targets"], strict=True):
        assert a["p_hit"] >= b["p_hit"]  # aiming only helps
    assert any(a["p_hit"] > b["p_hit"] for a, b in zip(still["targets"], moved["targets"],
                                                        strict=True))
    # trooper RAT 5 against DEF 13: 2d6 >= 8 (15/36), aiming 2d6 >= 6 (26/36)
    assert moved["targets"][0]["exact"]["p_hit"] == "5/12"
    assert still["targets"][0]["exact"]["p_hit"] == "13/18"
    text = shoot_text(capsys, scene, "ua", "ub")
    assert "aiming" in text and "+2 to hit [wmh2 §9.2]" in text
    assert "aiming" not in shoot_text(capsys, scene, "ua", "ub", "--moved")


def test_wh40k6_cover_save(capsys):
    report = shoot(capsys, RULESET_EXAMPLES["wh40k6"], *PAIRS["wh40k6"])
    covered = [t for t in report["targets"] if t["cover"]["in_cover"] and t["p_hit"] > 0]
    assert covered
    for t in covered:
        cover = [m for m in t["modifiers"] if m["name"] == "cover"]
        assert cover == [{"name": "cover", "value": t["cover"]["value"],
                          "rule": t["cover"]["rule"], "applies_to": "save",
                          "text": f"{t['cover']['value']}+ save"}]
        assert cover[0]["rule"].startswith("wh40k6 §5")
    open_ground = [t for t in report["targets"] if not t["cover"]["in_cover"]]
    assert all(m["name"] != "cover" for t in open_ground for m in t["modifiers"])
    text = shoot_text(capsys, RULESET_EXAMPLES["wh40k6"], *PAIRS["wh40k6"])
    assert "modifiers:" in text and f"[{covered[0]['cover']['rule']}]" in text


def test_whfb6_long_range(capsys, tmp_path):
    scene = small(tmp_path, "whfb6")
    far = shoot(capsys, scene, "ua", "uf")
    near = shoot(capsys, scene, "ua", "ub")
    assert far["eligible"] and near["eligible"]
    assert far["firers"][0]["band"] == "long" and near["firers"][0]["band"] == "short"
    long_range = [m for m in modifiers(far) if m["name"] == "long range"]
    assert long_range == [{"name": "long range", "value": -1, "rule": "whfb6 §8.2",
                           "applies_to": "to_hit", "text": "-1 to hit"}]
    assert not [m for m in modifiers(near) if m["name"] == "long range"]
    # BS 3: 4+ at short range, 5+ at long range
    assert near["targets"][0]["exact"]["p_hit"] == "1/2"
    assert far["targets"][0]["exact"]["p_hit"] == "1/3"
    moved = shoot(capsys, scene, "ua", "uf", "--moved")
    assert {m["name"] for m in modifiers(moved)} >= {"long range", "moved"}
    assert moved["targets"][0]["exact"]["p_hit"] == "1/6"
    assert "long range -1 to hit [whfb6 §8.2]" in shoot_text(capsys, scene, "ua", "uf")


def test_aos2_obstacle_cover(capsys, tmp_path):
    scene = small(tmp_path, "aos2")
    behind = shoot(capsys, scene, "ua", "ug")
    open_ground = shoot(capsys, scene, "ua", "ub")
    t = behind["targets"][0]
    assert t["cover"]["in_cover"] and t["cover"]["source"] == "wall"
    assert [m for m in t["modifiers"] if m["name"] == "cover"] == [
        {"name": "cover", "value": 1, "rule": "aos2 §5.2", "applies_to": "save_mod",
         "text": "+1 save"}]
    assert not [m for m in modifiers(open_ground) if m["name"] == "cover"]
    # the archer's save 5+ becomes 4+: a wound is saved half the time instead of a third
    assert open_ground["targets"][0]["exact"]["p_save_fail"] == "2/3"
    assert t["exact"]["p_save_fail"] == "1/2"
    assert "cover +1 save [aos2 §5.2]" in shoot_text(capsys, scene, "ua", "ug")


def test_wh40k6_gone_to_ground_is_listed_with_the_cover():
    """Going to ground in the open: a 6+ cover save, listed with the +1 that made it (§5.7)."""
    from battlesight.rulesets.wh40k6.shooting import ShotContext, analyse

    from tests.rules_helpers import Table

    t = Table()
    t.model("gm", "guard", 2, (30, 24), "imperial-guardsman")
    t.squad("tac", 1, "tactical-marine", [(30, 10), (31.5, 10)])
    report = analyse(t.board(), "tac", "guard", ShotContext(gone_to_ground=True, samples=200))
    line = report.targets[0]
    assert line.cover.value == 6 and line.p_save_fail == Fraction(5, 6)
    names = {m.name: m for m in line.modifiers}
    assert names["cover"].value == 6 and names["gone to ground"].value == 1
    assert names["gone to ground"].rule == "wh40k6 §5.7"
    assert line.p_unsaved == line.p_hit * line.p_wound * line.p_save_fail


def test_wmh2_cover_def_is_listed(capsys, tmp_path):
    """Behind a wall: +4 DEF (wmh2 §6) with aiming: RAT 5 + 2 against DEF 13 + 4 needs 10 on
    2d6 (1/6)."""
    report = shoot(capsys, small(tmp_path, "wmh2"), "ua", "ug")
    t = report["targets"][0]
    assert {"name": "cover (wall)", "value": 4, "rule": "wmh2 §6", "applies_to": "def",
            "text": "+4 DEF"} in t["modifiers"]
    assert t["exact"]["p_hit"] == "1/6" and t["p_save_fail"] == 1.0
