"""The published JSON Schemas (battlesight/schemas/): every bundled example scene validates
against scene.schema.json, broken scenes do not; `shoot --json` for a unit pair of every
bundled example (and a plain scene of every system) validates against shoot.schema.json;
`analyze --json` of every bundled example, alone and as a batch, against analyze.schema.json
(`render --json` against render.schema.json: tests/test_render_layout.py).
"""

from __future__ import annotations

import pytest
import yaml
from battlesight.scenes.systems import SYSTEMS

from tests.helpers import EXAMPLE_FILES, ROOT, run_cli, write_scene
from tests.schema_helpers import assert_valid, errors, schema
from tests.test_plain_scenes import PLAIN

#: one shooting pair (unit, target) per bundled example, firers with a ranged weapon
SHOOT_PAIRS = {
    "demo.yaml": ("tac-1", "boyz-1"),
    "wh40k6_city_ruins.yaml": ("dev-1", "boyz-1"),
    "wmh2_hills_forest.yaml": ("long-gunners", "winter-guard"),
    "whfb6_village.yaml": ("handgunners", "orc-boyz"),
    "aos2_ruins_obstacles.yaml": ("judicators", "bloodreavers"),
}


def test_schemas_are_valid_and_shipped():
    for name in ("scene", "shoot", "analyze", "render"):
        assert schema(name)["$schema"].endswith("2020-12/schema")
    assert sorted(p.name for p in EXAMPLE_FILES) == sorted(SHOOT_PAIRS)


@pytest.mark.parametrize("path", [*EXAMPLE_FILES, ROOT / "docs" / "examples" / "scene.yaml"],
                         ids=lambda p: p.name)
def test_bundled_scenes_validate(path):
    assert_valid("scene", yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_plain_scene_validates(ruleset):
    assert_valid("scene", yaml.safe_load(PLAIN.format(ruleset=ruleset)))


BROKEN = {
    "no table": ({"table": None}, "table"),
    "unknown ruleset": ({"ruleset": "chess"}, "ruleset"),
    "wall without an end": ({"terrain": [{"id": "w", "type": "wall", "from": [1, 1],
                                          "height": 1}]}, "'to' is a required property"),
    "unknown terrain type": ({"terrain": [{"id": "t", "type": "lava", "at": [1, 1]}]},
                             "terrain/0/type"),
    "crater without a size": ({"terrain": [{"id": "c", "type": "crater", "at": [1, 1]}]},
                              "terrain/0"),
    "negative height": ({"models": [{"id": "m", "player": 1, "at": [1, 1], "height": -1}]},
                        "models/0/height"),
    "model without a place": ({"models": [{"id": "m", "player": 1}]}, "'at' is a required"),
    "base of three numbers": ({"models": [{"id": "m", "player": 1, "at": [1, 1],
                                           "base": [25, 25, 25]}]}, "models/0/base"),
    "bad ruin side": ({"terrain": [{"id": "r", "type": "ruin", "at": [5, 5], "size": [4, 4],
                                    "height": 3, "walls": ["up"]}]}, "terrain/0/walls/0"),
    "deployment polygon of two points": ({"deployment": {1: [[0, 0], [1, 1]]}}, "deployment"),
}


@pytest.mark.parametrize("change", BROKEN, ids=str)
def test_broken_scenes_do_not_validate(change):
    base = yaml.safe_load(PLAIN.format(ruleset="wh40k6"))
    patch, expect = BROKEN[change]
    base.update(patch)
    if base.get("table") is None:
        del base["table"]
    found = errors("scene", base)
    assert found and any(expect in line for line in found), found


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_shoot_json_validates(path):
    unit, target = SHOOT_PAIRS[path.name]
    report = run_cli("shoot", path, "--unit", unit, "--target", target, "--json",
                     "--samples", "100").ok().json()
    assert report["firers"] and report["targets"]
    assert_valid("shoot", report)


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_plain_scene_shoot_json_validates(tmp_path, ruleset):
    scene = write_scene(tmp_path, PLAIN.format(ruleset=ruleset))
    for moved in ((), ("--moved",)):
        report = run_cli("shoot", scene, "--unit", "ua", "--target", "ub", "--json",
                         *moved).ok().json()
        assert_valid("shoot", report)


def test_shoot_schema_rejects_the_old_keys():
    unit, target = SHOOT_PAIRS["demo.yaml"]
    report = run_cli("shoot", ROOT / "scenes" / "examples" / "demo.yaml", "--unit",
                     unit, "--target", target, "--json", "--samples", "100").ok().json()
    for t in report["targets"]:
        del t["p_save_fail"]
    assert any("'p_save_fail' is a required property" in e for e in errors("shoot", report))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_analyze_json_validates(path):
    report = run_cli("analyze", path, "--grid", "6", "--json").ok().json()
    assert report["ruleset"] == yaml.safe_load(path.read_text(encoding="utf-8"))["ruleset"]
    assert_valid("analyze", report)


def test_analyze_batch_json_validates():
    batch = run_cli("analyze", *EXAMPLE_FILES[:2], "--grid", "8", "--json").ok().json()
    assert len(batch["layouts"]) == 2
    assert_valid("analyze", batch)
