"""`validate` names tables no one could set up (issue 22): overlapping bases, two models on one
spot, a model inside a wall or a ruin's walls, one on a box top too narrow for its base, a base
written in inches, a model taller than the system's models. Each is one warning line at its key
and line (exit 0, every command still runs), an error under `--strict`.
"""

from __future__ import annotations

import time

import pytest
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.core.scene_checks import check_scene
from battlesight.scenes.physical import physical_warnings
from battlesight.scenes.validate import build_scene

from tests.helpers import EXAMPLE_FILES, ROOT, run_cli
from tests.test_validate_gate import PROBLEM, scene

MARINE = "- {id: marine-1, unit: tac-1, at: [22, 20.5], profile: tactical-marine}"
BOY = "- {id: boy-1, unit: boyz-1, at: [20, 33], facing: 180, profile: ork-boy}"
SGT = "- {id: sgt, unit: tac-1, at: [14, 10], floor: 1, profile: space-marine-sergeant}"


def marine(extra: str) -> str:
    return MARINE.replace("profile: tactical-marine}", f"profile: tactical-marine, {extra}}}")


MISTAKES = [  # (old, new, key, what the warning says)
    (BOY, BOY.replace("[20, 33]", "[24, 31]"), "models[boy-1].at",
     "its base overlaps the base of 'nob' (line 17): move it 0.26\" further away"),
    (BOY, BOY.replace("[20, 33]", "[24, 30]"), "models[boy-1].at",
     "stands on the same spot as 'nob' (line 17), [24, 30]: give it its own 'at'"),
    (MARINE, MARINE.replace("[22, 20.5]", "[22, 22]"), "models[marine-1].at",
     "its 32 mm base is inside wall 'wall-1'"),
    (MARINE, MARINE.replace("[22, 20.5]", "[14, 12.9]"), "models[marine-1].at",
     "its 32 mm base is inside the walls of ruin 'ruin-1'"),
    (MARINE, MARINE.replace("[22, 20.5]", "[10.4, 32]"), "models[marine-1].at",
     "stands on the top of box 'block-1', which is too narrow for its 32 mm base"),
    (SGT, SGT.replace("[14, 10]", "[10.2, 10]"), "models[sgt].at",  # the open west side
     "stands on floor 1 of ruin 'ruin-1', which is too narrow for its 32 mm base"),
    (SGT, SGT.replace("[14, 10]", "[17.2, 10]"), "models[sgt].at",  # the east wall, upstairs
     "its 32 mm base is inside the walls of ruin 'ruin-1'"),
    (MARINE, marine("base: 1.25"), "models[marine-1].base",
     "a 1.25 mm base is smaller than any model's (10 mm and up): base sizes are millimetres; "
     "if it is inches, write base: 31.75"),
    (MARINE, marine("base: [2, 1]"), "models[marine-1].base", "write base: [50.8, 25.4]"),
    (MARINE, marine("height: 40"), "models[marine-1].height",
     "40\" is taller than any wh40k6 infantry model (at most 6\"): heights are inches; if it "
     "is millimetres, write height: 1.6"),
]


@pytest.mark.parametrize("old, new, key, message", MISTAKES)
def test_each_physical_mistake_is_one_warning_and_strict_refuses(tmp_path, old, new, key,
                                                                message):
    path, line = scene(tmp_path, "wh40k6", old, new)
    code, out, err = run_cli("validate", path)
    assert (code, out) == (0, f"{path}: ok (1 warning(s))\n"), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    m = PROBLEM.match(err.splitlines()[0])
    assert m and (m["file"], int(m["line"]), m["key"]) == (str(path), line, key), err
    assert m["message"].startswith("warning: ") and message in m["message"], err
    code, _, err = run_cli("validate", "--strict", path)
    assert code == 2 and err.splitlines() == [f"{path}:{line}: {key}: {m['message'][9:]}",
                                              f"{path}: 1 problem(s)"]


def test_a_warned_scene_is_still_accepted_by_the_commands(tmp_path):
    path, line = scene(tmp_path, "wh40k6", BOY, BOY.replace("[20, 33]", "[24, 31]"))
    code, out, err = run_cli("los", path, "--from", "marine-1")
    assert code == 0 and out and err.startswith(f"{path}:{line}: models[boy-1].at: warning:")


@pytest.mark.parametrize("old, new", [
    (BOY, BOY.replace("[20, 33]", "[25.26, 30]")),  # bases in contact with the nob's
    (MARINE, MARINE.replace("[22, 20.5]", "[14, 10]")),  # under the sergeant, a floor down
    (MARINE, MARINE.replace("[22, 20.5]", "[8, 32]")),  # on the middle of the block's top
    (MARINE, MARINE.replace("[22, 20.5]", "[22, 21.12]")),  # against the wall's face
    (MARINE, marine("base: 25, height: 2.2")),
])
def test_tables_one_could_set_up_are_silent(tmp_path, old, new):
    path, _ = scene(tmp_path, "wh40k6", old, new)
    assert run_cli("validate", "--strict", path) == (0, f"{path}: ok\n", "")


def test_bundled_scenes_have_no_physical_warning():
    from battlesight.scenes.loader import load_scene

    for path in [*EXAMPLE_FILES, ROOT / "docs" / "examples" / "scene.yaml"]:
        scene_ = load_scene(path, build=False)
        assert check_scene(scene_) == [], path


def test_each_system_bounds_the_height_by_its_own_types():
    assert get_ruleset("wh40k6").model_heights["infantry"] == 6.0
    for system, kind in (("whfb6", "cavalry"), ("aos2", "cavalry"), ("wmh2", "warjack")):
        ruleset = get_ruleset(system)
        assert ruleset.model_heights.get(kind, ruleset.model_heights[""]) > 6.0, system


def grid_scene(count: int, spacing: float) -> dict:
    """count round 25 mm models on a grid `spacing` inches apart (rows of 21), a wall through
    the first row's bases."""
    side = int(count ** 0.5) + 1
    models = [{"id": f"m{i}", "player": 1 + i % 2,
               "at": [1 + spacing * (i % side), 1 + spacing * (i // side)], "base": 25}
              for i in range(count)]
    return {"format": 1, "ruleset": "wh40k6", "table": [72, 72], "models": models,
            "terrain": [{"id": "w", "type": "wall", "from": [0.5, 0.6], "to": [71.5, 0.6],
                         "height": 2, "thickness": 0.2}]}


def test_a_large_table_is_checked_in_bounded_time():
    apart, _ = build_scene(grid_scene(400, 2.0), "<dict>", build=False)
    close, _ = build_scene(grid_scene(400, 0.9), "<dict>", build=False)  # neighbours overlap
    start = time.perf_counter()
    spaced, crowded = physical_warnings(apart), physical_warnings(close)
    assert time.perf_counter() - start < 2.0
    side, rows = 21, 400 // 21  # 19 full rows and one model in a 20th
    in_wall = [f"models[m{i}].at" for i in range(side)]
    assert [w.key for w in spaced] == in_wall
    assert all("inside wall 'w'" in w.message for w in spaced)
    overlaps = [w for w in crowded if "overlaps" in w.message]
    # along each full row, and between rows (the last row's one model over the first column)
    assert len(overlaps) == rows * (side - 1) + (rows - 1) * side + 1
    assert [w.key for w in crowded if "inside wall" in w.message] == in_wall
    start = time.perf_counter()  # the whole rules half of the gate, heights included
    assert [p.key for p in check_scene(apart)] == in_wall
    assert time.perf_counter() - start < 5.0
