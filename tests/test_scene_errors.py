"""Bad scene input: every problem names file, line and key, in one line, and none raises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from battlesight.scenes import (
    SceneError,
    SceneProblem,
    load_scene,
    scene_from_dict,
    validate_scene_file,
)
from battlesight.scenes import paths as scene_paths

from tests.helpers import MINIMAL, line_of, minimal_with, write_scene


def problem(tmp_path: Path, text: str, key: str, fragment: str,
            needle: str | None = None, nth: int = 1) -> SceneProblem:
    """Validate text as a file; assert a problem for ``key`` whose message has ``fragment``.

    ``needle`` names the text of the line the problem must point at. Also checks that
    load_scene raises SceneError carrying the same problem and that str() is one line.
    """
    path = write_scene(tmp_path, text)
    problems = validate_scene_file(path)
    found = [p for p in problems if p.key == key and fragment in p.message]
    assert found, f"no problem for {key!r} with {fragment!r}; got:\n" + "\n".join(
        str(p) for p in problems)
    p = found[0]
    assert p.file == str(path)
    if needle is not None:
        assert p.line == line_of(path, needle, nth), str(p)
    text_line = str(p)
    assert "\n" not in text_line
    assert text_line.startswith(f"{path}:{p.line}: {key}: ") if p.line else True
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert p in info.value.problems
    assert "\n" not in str(info.value)
    assert str(info.value) == str(info.value.problems[0])
    return p


# -- the document ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind", [
    ("- a\n- b\n", "list"),
    ("just a string\n", "a string"),
    ("42\n", "the value 42"),
    ("", "empty document"),
    ("# only a comment\n", "empty document"),
])
def test_not_a_mapping(tmp_path, text, kind):
    p = problem(tmp_path, text, "scene", "must be a YAML mapping")
    assert kind in p.message
    assert p.line == 1


def test_yaml_syntax_error_has_its_line(tmp_path):
    text = MINIMAL + "  - {id: bad, player: 1, at: [1, 2}\n"
    p = problem(tmp_path, text, "yaml", "YAML error", needle="id: bad")
    assert "scene.yaml:" in str(p)


def test_yaml_bad_indentation(tmp_path):
    text = "format: 1\nruleset: wh40k6\n table: [72, 48]\nterrain: []\n"
    p = problem(tmp_path, text, "yaml", "YAML error")
    assert p.line in (2, 3)


def test_multiple_documents(tmp_path):
    problem(tmp_path, MINIMAL + "---\nformat: 1\n", "yaml", "single document")


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/object:pathlib.Path {{}}",
    "!custom {{a: 1}}",
])
def test_tags_that_build_objects_are_refused(tmp_path, tag):
    marker = tmp_path / "pwned"
    text = MINIMAL + "evil: " + tag.format(marker=marker) + "\n"
    p = problem(tmp_path, text, "yaml", "constructor", needle="evil:")
    assert "tag" in p.message
    assert not marker.exists()


def test_duplicate_yaml_key(tmp_path):
    text = MINIMAL + "table: [72, 48]\n"
    p = problem(tmp_path, text, "table", "duplicate key", needle="table:", nth=2)
    assert f"line {line_of(text, 'table:')}" in p.message


def test_merge_keys_are_not_duplicates(tmp_path):
    text = minimal_with(models="""
        - &ork {id: ork-1, player: 2, at: [40, 40], height: 1.7}
        - {<<: *ork, id: ork-2, at: [42, 40]}
    """)
    path = write_scene(tmp_path, text)
    assert validate_scene_file(path) == []
    assert load_scene(path).model("ork-2").height == 1.7


# -- top-level keys --------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["2", "'1'", "true", "1.5"])
def test_format_not_1(tmp_path, value):
    text = MINIMAL.replace("format: 1", f"format: {value}")
    problem(tmp_path, text, "format", "unsupported format", needle="format:")


def test_unknown_ruleset(tmp_path):
    text = MINIMAL.replace("ruleset: wh40k6", "ruleset: wh40k9")
    p = problem(tmp_path, text, "ruleset", "unknown ruleset 'wh40k9'", needle="ruleset:")
    assert "wh40k6, wmh2, whfb6, aos2" in p.message


def test_missing_ruleset_and_table(tmp_path):
    text = MINIMAL.replace("ruleset: wh40k6\n", "").replace("table: [48, 48]\n", "")
    problem(tmp_path, text, "ruleset", "missing required key")
    problem(tmp_path, text, "table", "missing required key")


@pytest.mark.parametrize("value, fragment", [
    ("[72]", "list of 2 numbers"),
    ("[72, 48, 3]", "list of 2 numbers"),
    ("[72, -48]", "greater than 0"),
    ("[0, 48]", "greater than 0"),
    ("[72, .nan]", "finite"),
    ("[.inf, 48]", "finite"),
    ("72x48", "list of 2 numbers"),
    ("[72, '48']", "finite numbers"),
])
def test_bad_table(tmp_path, value, fragment):
    text = MINIMAL.replace("table: [48, 48]", f"table: {value}")
    problem(tmp_path, text, "table", fragment, needle="table:")


@pytest.mark.parametrize("key", ["terrain", "models", "units"])
def test_lists_must_be_lists(tmp_path, key):
    text = f"ruleset: aos2\ntable: [72, 48]\n{key}: {{a: 1}}\n"
    problem(tmp_path, text, key, "must be a list", needle=f"{key}:")


def test_name_must_be_a_string(tmp_path):
    problem(tmp_path, MINIMAL.replace("name: test scene", "name: [a, b]"), "name",
            "must be a string", needle="name:")


# -- terrain ---------------------------------------------------------------------------------

def test_unknown_terrain_type(tmp_path):
    text = minimal_with(terrain="- {id: tower-1, type: tower, at: [5, 5], height: 3}")
    p = problem(tmp_path, text, "terrain[tower-1].type", "unknown terrain type 'tower'",
                needle="tower-1")
    for kind in ("wall", "box", "ruin", "hill", "forest", "crater", "mesh"):
        assert kind in p.message


def test_terrain_entry_not_a_mapping(tmp_path):
    text = minimal_with(terrain="- just a wall")
    problem(tmp_path, text, "terrain[2]", "must be a mapping", needle="just a wall")


def test_missing_type_and_id(tmp_path):
    text = minimal_with(terrain="- {at: [5, 5], size: [2, 2, 2]}")
    problem(tmp_path, text, "terrain[2].id", "missing required key 'id'", needle="at: [5, 5]")
    problem(tmp_path, text, "terrain[2].type", "missing required key 'type'", needle="[5, 5]")


@pytest.mark.parametrize("entry, key, fragment", [
    ("{id: t, type: wall, from: [1, 1], height: 2}", "to", "missing required key 'to'"),
    ("{id: t, type: wall, to: [1, 1], height: 2}", "from", "missing required key 'from'"),
    ("{id: t, type: wall, from: [1, 1], to: [5, 1]}", "height", "missing required key"),
    ("{id: t, type: wall, from: [1, 1], to: [1, 1], height: 2}", "to", "zero length"),
    ("{id: t, type: wall, from: [1], to: [5, 1], height: 2}", "from", "list of 2 numbers"),
    ("{id: t, type: box, at: [5, 5], size: [2, 2]}", "size", "list of 3 numbers"),
    ("{id: t, type: box, size: [2, 2, 2]}", "at", "missing required key 'at'"),
    ("{id: t, type: ruin, at: [5, 5], size: [4, 4]}", "height", "missing required key"),
    ("{id: t, type: ruin, at: [5, 5], size: [4, 4, 4], height: 3}", "size", "list of 2"),
    ("{id: t, type: hill, at: [5, 5], height: 2}", "size", "missing required key 'size'"),
    ("{id: t, type: hill, at: [5, 5], size: [4, 4]}", "height", "missing required key"),
    ("{id: t, type: forest, polygon: [[0, 0], [4, 0]], height: 4}", "polygon", "at least 3"),
    ("{id: t, type: forest, height: 4}", "polygon", "missing required key 'polygon'"),
    ("{id: t, type: forest, polygon: [[0, 0], [4, 0], [8, 0]], height: 4}", "polygon",
     "no area"),
    ("{id: t, type: forest, polygon: [[0, 0], [4, 0], [4, 4]]}", "height", "missing"),
    ("{id: t, type: crater, at: [5, 5]}", "size", "'size' or 'radius'"),
    ("{id: t, type: crater, size: 3}", "at", "missing required key 'at'"),
    ("{id: t, type: mesh, at: [5, 5]}", "file", "missing required key 'file'"),
    ("{id: t, type: mesh, file: statue.glb}", "at", "missing required key 'at'"),
])
def test_missing_or_bad_keys_per_type(tmp_path, entry, key, fragment):
    text = minimal_with(terrain=f"- {entry}")
    problem(tmp_path, text, f"terrain[t].{key}", fragment, needle="id: t,")


@pytest.mark.parametrize("extra, fragment", [
    ("floors: [6, 3]", "must increase"),
    ("floors: [3, 3]", "must increase"),
    ("floors: [3, 8]", "below the ruin's height 8"),
    ("floors: [0, 3]", "greater than 0"),
    ("floors: 3", "list of floor heights"),
    ("floors: [0.3, 3]", "at least 0.4\" above"),
    ("floors: [3, 3.2]", "at least 0.4\" above"),
])
def test_bad_ruin_floors(tmp_path, extra, fragment):
    text = minimal_with(terrain=f"- {{id: t, type: ruin, at: [5, 5], size: [4, 4], height: 8, "
                                f"{extra}}}")
    problem(tmp_path, text, "terrain[t].floors", fragment, needle="id: t,")


@pytest.mark.parametrize("walls, fragment", [
    ("[north, up]", "north, south, east, west"),
    ("north", "north, south, east, west"),
    ("[north, north]", "twice"),
])
def test_bad_ruin_walls(tmp_path, walls, fragment):
    text = minimal_with(terrain=f"- {{id: t, type: ruin, at: [5, 5], size: [4, 4], height: 8, "
                                f"walls: {walls}}}")
    problem(tmp_path, text, "terrain[t].walls", fragment, needle="id: t,")


@pytest.mark.parametrize("entry, key, fragment", [
    ("{id: t, type: wall, from: [1, 1], to: [5, 1], height: -2}", "height", "greater than 0"),
    ("{id: t, type: wall, from: [1, 1], to: [5, 1], height: 0}", "height", "greater than 0"),
    ("{id: t, type: wall, from: [1, 1], to: [5, 1], height: .nan}", "height", "finite"),
    ("{id: t, type: wall, from: [1, 1], to: [5, 1], height: 2, thickness: 0}", "thickness",
     "greater than 0"),
    ("{id: t, type: wall, from: [1, .inf], to: [5, 1], height: 2}", "from", "finite"),
    ("{id: t, type: box, at: [5, 5], size: [2, .inf, 2]}", "size", "finite"),
    ("{id: t, type: box, at: [5, 5], size: [2, -1, 2]}", "size", "greater than 0"),
    ("{id: t, type: hill, at: [5, 5], size: [4, 4], height: -.inf}", "height", "finite"),
    ("{id: t, type: crater, at: [5, 5], radius: -2}", "radius", "greater than 0"),
    ("{id: t, type: crater, at: [5, 5], size: 0}", "size", "greater than 0"),
    ("{id: t, type: mesh, file: terrain/x.glb, at: [5, 5], scale: -1}", "scale",
     "greater than 0"),
    ("{id: t, type: mesh, file: terrain/x.glb, at: [5, 5], scale: [1, 2, 1]}", "scale",
     "must be a number"),
    ("{id: t, type: crater, at: [5, 5], radius: 1}", "radius", "rim (1) must be narrower"),
    ("{id: t, type: crater, at: [5, 5], size: 4, rim: 2.5}", "rim", "narrower than its radius"),
    ("{id: t, type: crater, at: [5, 5], radius: 3, rim: 0}", "rim", "greater than 0"),
    ("{id: t, type: hill, at: [5, 5], size: [4, 4], height: 1, top: 1.5}", "top", "(0, 1]"),
    ("{id: t, type: hill, at: [5, 5], size: [4, 4], height: 1, top: 0}", "top", "greater"),
    ("{id: t, type: box, at: [5, 5], size: [2, 2, 2], rotation: .nan}", "rotation", "finite"),
    ("{id: t, type: box, at: [5, 5], size: [2, 2, 2], rotation: ninety}", "rotation",
     "must be a number"),
])
def test_nan_inf_negative_zero(tmp_path, entry, key, fragment):
    text = minimal_with(terrain=f"- {entry}")
    problem(tmp_path, text, f"terrain[t].{key}", fragment, needle="id: t,")


def test_key_line_is_the_line_of_the_key(tmp_path):
    text = minimal_with(terrain="""
        - id: tall-wall
          type: wall
          from: [1, 1]
          to: [5, 1]
          height: -3
    """)
    problem(tmp_path, text, "terrain[tall-wall].height", "greater than 0", needle="height: -3")


# -- ids -------------------------------------------------------------------------------------

def test_duplicate_terrain_ids(tmp_path):
    text = minimal_with(terrain="- {id: wall-1, type: hill, at: [5, 5], size: [4, 4], height: 1}")
    p = problem(tmp_path, text, "terrain[wall-1].id", "duplicate id 'wall-1'",
                needle="id: wall-1", nth=2)
    assert f"line {line_of(text, 'id: wall-1')}" in p.message


def test_model_id_duplicates_terrain_id(tmp_path):
    text = minimal_with(models="- {id: ruin-1, player: 1, at: [40, 10]}")
    problem(tmp_path, text, "models[ruin-1].id", "duplicate id 'ruin-1'",
            needle="{id: ruin-1, player")


def test_duplicate_model_ids(tmp_path):
    text = minimal_with(models="- {id: sgt, player: 1, at: [40, 10]}")
    p = problem(tmp_path, text, "models[sgt].id", "duplicate id", needle="id: sgt", nth=2)
    assert "models" in p.message


@pytest.mark.parametrize("value", ["5", "''", "[a]", "null"])
def test_id_must_be_a_string(tmp_path, value):
    text = minimal_with(models=f"- {{id: {value}, player: 1, at: [40, 10]}}")
    problem(tmp_path, text, "models[2].id", "non-empty string", needle="at: [40, 10]")


def test_duplicate_unit_ids(tmp_path):
    text = MINIMAL.replace("units:\n", "units:\n  - {id: tac-1, player: 1}\n")
    problem(tmp_path, text, "units[tac-1].id", "duplicate unit id", needle="id: tac-1", nth=2)


# -- models ----------------------------------------------------------------------------------

@pytest.mark.parametrize("entry, key, fragment", [
    ("{id: m, player: 1, at: [10, 10], base: 0}", "base", "greater than 0"),
    ("{id: m, player: 1, at: [10, 10], base: -32}", "base", "greater than 0"),
    ("{id: m, player: 1, at: [10, 10], base: [60, -35]}", "base", "greater than 0"),
    ("{id: m, player: 1, at: [10, 10], base: [60, 35, 10]}", "base", "list of 2"),
    ("{id: m, player: 1, at: [10, 10], base: .nan}", "base", "finite"),
    ("{id: m, player: 1, at: [10, 10], height: .nan}", "height", "finite"),
    ("{id: m, player: 1, at: [10, 10], height: -1}", "height", "greater than 0"),
    ("{id: m, player: 1, at: [10, 10], eye: 0}", "eye", "greater than 0"),
    ("{id: m, player: 1, at: [10, 10], height: 1.6, eye: 2}", "eye", "above the model's"),
    ("{id: m, player: 1, at: [10, 10], facing: .inf}", "facing", "finite"),
    ("{id: m, player: 1, at: [10, .nan]}", "at", "finite"),
    ("{id: m, player: 1, at: [10, 10, 0]}", "at", "list of 2"),
    ("{id: m, player: 1}", "at", "missing required key 'at'"),
    ("{id: m, player: 1, at: [10, 10], shape: 3}", "shape", "non-empty string"),
    ("{id: m, player: 1, at: [10, 10], unit: [a]}", "unit", "non-empty string"),
    ("{id: m, player: 1, at: [10, 10], profile: 7}", "profile", "non-empty string"),
    ("{id: m, player: 1, at: [10, 10], shape: humanoid, height: 0.2}", "height", "taller"),
])
def test_bad_model_values(tmp_path, entry, key, fragment):
    text = minimal_with(models=f"- {entry}")
    problem(tmp_path, text, f"models[m].{key}", fragment, needle="id: m,")


@pytest.mark.parametrize("value", ["one", "1.5", "true", "[1]"])
def test_player_not_an_int(tmp_path, value):
    text = minimal_with(models=f"- {{id: m, player: {value}, at: [10, 10]}}")
    problem(tmp_path, text, "models[m].player", "whole number", needle="id: m,")


def test_missing_player(tmp_path):
    text = minimal_with(models="- {id: m, at: [10, 10]}")
    problem(tmp_path, text, "models[m].player", "missing required key 'player'",
            needle="id: m,")


def test_model_player_differs_from_its_unit(tmp_path):
    text = minimal_with(models="- {id: m, unit: tac-1, player: 2, at: [10, 10]}")
    p = problem(tmp_path, text, "models[m].player", "differs", needle="id: m,")
    assert "'tac-1'" in p.message
    assert "player 1" in p.message


def test_unit_player_must_be_an_int(tmp_path):
    text = MINIMAL.replace("{id: tac-1, player: 1,", "{id: tac-1, player: first,")
    problem(tmp_path, text, "units[tac-1].player", "whole number", needle="id: tac-1")


@pytest.mark.parametrize("at, base, facing", [
    ("[0.2, 10]", "32", "0"),
    ("[47.9, 10]", "32", "0"),
    ("[10, -1]", "32", "0"),
    ("[10, 48.5]", "32", "0"),
    ("[60, 10]", "25", "0"),
    ("[10, 0.8]", "[60, 35]", "0"),  # oval along y at facing 0: 1.18" half-length
    ("[0.8, 10]", "[60, 35]", "90"),  # turned: the long axis runs along x
])
def test_model_off_the_table(tmp_path, at, base, facing):
    text = minimal_with(models=f"- {{id: m, player: 1, at: {at}, base: {base}, "
                               f"facing: {facing}}}")
    p = problem(tmp_path, text, "models[m].at", "not wholly on the 48x48 table", needle="id: m,")
    assert "scene.yaml" in str(p)


@pytest.mark.parametrize("at, base, facing", [
    ("[0.63, 10]", "32", "0"),  # 32 mm base: radius 0.6299"
    ("[0.8, 10]", "[60, 35]", "0"),  # oval across x: 0.689" half-width
    ("[10, 0.8]", "[60, 35]", "90"),
    ("[47.37, 47.37]", "32", "45"),
])
def test_model_just_on_the_table_is_fine(tmp_path, at, base, facing):
    text = minimal_with(models=f"- {{id: m, player: 1, at: {at}, base: {base}, "
                               f"facing: {facing}}}")
    assert validate_scene_file(write_scene(tmp_path, text)) == []


def test_floor_outside_any_ruin(tmp_path):
    text = minimal_with(models="- {id: m, player: 1, at: [40, 10], floor: 1}")
    problem(tmp_path, text, "models[m].floor", "does not stand inside any ruin", needle="id: m,")


def test_floor_the_ruin_does_not_have(tmp_path):
    text = minimal_with(models="- {id: m, player: 1, at: [24, 34], floor: 3}")
    p = problem(tmp_path, text, "models[m].floor", "has no floor 3", needle="id: m,")
    assert "'ruin-1'" in p.message and "2 upper floors" in p.message


def test_floor_of_a_ruin_without_floors(tmp_path):
    text = minimal_with(
        terrain="- {id: shell, type: ruin, at: [40, 10], size: [6, 6], height: 4}",
        models="- {id: m, player: 1, at: [40, 10], floor: 1}")
    p = problem(tmp_path, text, "models[m].floor", "has no floor 1", needle="id: m,")
    assert "'shell'" in p.message and "0 upper floors" in p.message


@pytest.mark.parametrize("value", ["-1", "1.5", "first", "true"])
def test_floor_must_be_a_whole_number(tmp_path, value):
    text = minimal_with(models=f"- {{id: m, player: 1, at: [24, 34], floor: {value}}}")
    problem(tmp_path, text, "models[m].floor", "whole number", needle="id: m,")


def test_floors_that_exist_are_fine(tmp_path):
    text = minimal_with(
        terrain="- {id: r2, type: ruin, at: [40, 10], size: [6, 6], height: 4, rotation: 45,"
                " floors: [2]}",
        models="""
            - {id: m1, player: 1, at: [24, 34], floor: 2}
            - {id: m2, player: 1, at: [19, 32], floor: 1}
            - {id: m3, player: 1, at: [40, 13.5], floor: 1}
            - {id: m4, player: 1, at: [40, 40], floor: 0}
        """)
    assert validate_scene_file(write_scene(tmp_path, text)) == []


def test_floor_just_outside_a_rotated_ruin(tmp_path):
    # the 6x6 ruin turned 45 degrees reaches 4.24" up from its centre, but not at x + 2.5
    text = minimal_with(
        terrain="- {id: r2, type: ruin, at: [40, 10], size: [6, 6], height: 4, rotation: 45,"
                " floors: [2]}",
        models="- {id: m, player: 1, at: [42.5, 13], floor: 1}")
    problem(tmp_path, text, "models[m].floor", "does not stand inside", needle="id: m,")


# -- mesh files ------------------------------------------------------------------------------

def test_mesh_file_missing(tmp_path):
    text = minimal_with(terrain="- {id: s, type: mesh, file: nowhere/statue.glb, at: [5, 5]}")
    p = problem(tmp_path, text, "terrain[s].file", "not found", needle="id: s,")
    assert "nowhere/statue.glb" in p.message


def test_mesh_file_outside_scene_folder_and_assets(tmp_path):
    (tmp_path / "secret.glb").write_bytes(b"glTF")
    text = minimal_with(terrain="- {id: s, type: mesh, file: ../secret.glb, at: [5, 5]}")
    path = write_scene(tmp_path / "scenes", text)
    problems = validate_scene_file(path)
    assert [p.key for p in problems] == ["terrain[s].file"]
    assert "outside" in problems[0].message
    assert problems[0].line == line_of(path, "id: s,")


def test_mesh_file_absolute_path_outside(tmp_path):
    (tmp_path / "abs.glb").write_bytes(b"glTF")
    text = minimal_with(terrain=f"- {{id: s, type: mesh, file: '{tmp_path / 'abs.glb'}', "
                                f"at: [5, 5]}}")
    path = write_scene(tmp_path / "scenes", text)
    assert "outside" in validate_scene_file(path)[0].message


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_mesh_symlink_leaving_the_scene_folder(tmp_path):
    (tmp_path / "secret.glb").write_bytes(b"glTF")
    scene_dir = tmp_path / "scenes"
    scene_dir.mkdir()
    (scene_dir / "link.glb").symlink_to(tmp_path / "secret.glb")
    text = minimal_with(terrain="- {id: s, type: mesh, file: link.glb, at: [5, 5]}")
    path = write_scene(scene_dir, text)
    problems = validate_scene_file(path)
    assert len(problems) == 1 and "outside" in problems[0].message


def test_model_shape_that_is_not_a_mesh(tmp_path):
    text = minimal_with(models="- {id: m, player: 1, at: [10, 10], shape: humanoyd}")
    p = problem(tmp_path, text, "models[m].shape", "not cylinder or humanoid", needle="id: m,")
    assert "'humanoyd'" in p.message and "not found" in p.message


def test_model_shape_mesh_outside(tmp_path):
    (tmp_path / "m.glb").write_bytes(b"glTF")
    text = minimal_with(models="- {id: m, player: 1, at: [10, 10], shape: ../m.glb}")
    path = write_scene(tmp_path / "s", text)
    problems = validate_scene_file(path)
    assert [p.key for p in problems] == ["models[m].shape"]
    assert "outside" in problems[0].message


def test_mesh_in_scene_folder_and_assets_are_found(tmp_path, monkeypatch):
    assets = tmp_path / "assets"
    (assets / "terrain").mkdir(parents=True)
    # real meshes: validation parses them (the statue's bytes, a tetrahedron as OBJ)
    (assets / "terrain" / "tree.glb").write_bytes(
        (scene_paths.ASSETS_DIR / "terrain" / "statue.glb").read_bytes())
    monkeypatch.setattr(scene_paths, "ASSETS_DIR", assets)
    scene_dir = tmp_path / "tables"
    scene_dir.mkdir()
    (scene_dir / "hero.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n")
    text = minimal_with(
        terrain="""
            - {id: t1, type: mesh, file: terrain/tree.glb, at: [5, 5]}
            - {id: t2, type: mesh, file: assets/terrain/tree.glb, at: [8, 5], scale: 2}
        """,
        models="- {id: hero, player: 1, at: [10, 10], shape: hero.obj}")
    path = write_scene(scene_dir, text)
    assert validate_scene_file(path) == []
    assert load_scene(path).model("hero").is_mesh


# -- units and deployment --------------------------------------------------------------------

def test_bad_formation(tmp_path):
    text = MINIMAL.replace(
        "profile: tactical-squad}",
        "profile: tactical-squad,\n     formation: {front: [1, 2], facing: 0, files: 0, ranks: 2}}")
    problem(tmp_path, text, "units[tac-1].formation.files", "at least 1", needle="formation:")


def test_unit_not_a_mapping(tmp_path):
    text = MINIMAL.replace("units:\n", "units:\n  - tac-2\n")
    problem(tmp_path, text, "units[0]", "must be a mapping", needle="- tac-2")


@pytest.mark.parametrize("deployment, key, fragment", [
    ("{1: [[0, 0], [48, 0]]}", "deployment[1]", "at least 3"),
    ("{one: [[0, 0], [48, 0], [48, 12]]}", "deployment[one]", "whole number"),
    ("{1: [[0, 0], [48, 0], [48, .nan]]}", "deployment[1][2]", "finite"),
    ("5", "deployment", "map name or a mapping"),
    ("''", "deployment", "must not be empty"),
])
def test_bad_deployment(tmp_path, deployment, key, fragment):
    text = MINIMAL + f"deployment: {deployment}\n"
    problem(tmp_path, text, key, fragment, needle="deployment:")


# -- all problems at once --------------------------------------------------------------------

SEVERAL = """\
format: 1
ruleset: wh40k6
table: [48, 48]
terrain:
  - {id: w, type: wall, from: [1, 1], to: [5, 1], height: -1}
  - {id: t, type: tower}
  - {id: w, type: hill, at: [10, 10], size: [4, 4], height: 1}
models:
  - {id: a, player: 1, at: [100, 10]}
  - {id: b, player: two, at: [10, 10]}
  - {id: c, player: 1, at: [30, 30], floor: 1}
  - {id: d, player: 1, at: [20, 20], base: .nan}
deployment: {1: [[0, 0], [1, 1]]}
"""


def test_validate_reports_every_problem(tmp_path):
    path = write_scene(tmp_path, SEVERAL)
    problems = validate_scene_file(path)
    keys = [p.key for p in problems]
    assert keys == [
        "terrain[w].height", "terrain[t].type", "terrain[w].id", "models[a].at",
        "models[b].player", "models[c].floor", "models[d].base", "deployment[1]",
    ]
    assert [p.line for p in problems] == [5, 6, 7, 9, 10, 11, 12, 13]
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert info.value.problems == problems
    assert str(info.value) == str(problems[0])
    assert len(info.value.report().splitlines()) == len(problems)


def test_problem_str_is_one_line():
    p = SceneProblem("a.yaml", 3, "models[x].at", "bad\nvalue\r\nhere")
    assert str(p) == "a.yaml:3: models[x].at: bad value here"
    assert str(SceneProblem("a.yaml", None, "table", "oops")) == "a.yaml: table: oops"


def test_scene_error_needs_problems():
    with pytest.raises(ValueError):
        SceneError([])


# -- files and dicts -------------------------------------------------------------------------

def test_missing_file(tmp_path):
    path = tmp_path / "nope.yaml"
    problems = validate_scene_file(path)
    assert len(problems) == 1 and "no such file" in str(problems[0])
    assert str(path) in str(problems[0])
    with pytest.raises(SceneError):
        load_scene(path)


def test_directory_and_binary_file(tmp_path):
    assert "directory" in validate_scene_file(tmp_path)[0].message
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"\xff\xfe\x00bad")
    assert "UTF-8" in validate_scene_file(path)[0].message


def test_scene_from_dict_problems_have_no_lines():
    with pytest.raises(SceneError) as info:
        scene_from_dict({"ruleset": "chess", "table": [8, 8]}, file="<test>")
    p = info.value.problems[0]
    assert (p.file, p.line, p.key) == ("<test>", None, "ruleset")
    assert str(p).startswith("<test>: ruleset: unknown ruleset 'chess'")


def test_scene_from_dict_not_a_mapping():
    with pytest.raises(SceneError, match="must be a YAML mapping"):
        scene_from_dict([1, 2])


# -- hostile or odd YAML ---------------------------------------------------------------------

def test_alias_bomb_is_cheap(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        ref = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([ref] * 9)}]")
    text = MINIMAL + "\n".join(lines) + "\ntable2: *a9\n"
    path = write_scene(tmp_path, text)
    problems = validate_scene_file(path)  # refused while it is read, wherever it is
    assert len(problems) == 1 and "an alias counts as a copy" in problems[0].message
    bomb = MINIMAL.replace("table: [48, 48]", "table: *a9") + "\n".join(lines) + "\n"
    problems = validate_scene_file(write_scene(tmp_path, bomb, "bomb.yaml"))
    assert problems and len(str(problems[0])) < 400


def test_unhashable_key(tmp_path):
    problem(tmp_path, MINIMAL + "? [a, b]\n: 1\n", "yaml", "unhashable key")


def test_recursive_alias(tmp_path):
    problem(tmp_path, MINIMAL + "loop: &l [*l]\n", "yaml", "YAML error")


def test_internal_errors_become_one_line_problems(tmp_path, monkeypatch):
    from battlesight.scenes import validate as validate_module

    def boom(*args, **kwargs):
        raise RuntimeError("bug\nwith two lines")

    monkeypatch.setattr(validate_module, "build_scene", boom)
    path = write_scene(tmp_path, MINIMAL)
    problems = validate_scene_file(path)
    assert len(problems) == 1 and "internal error" in str(problems[0])
    assert "\n" not in str(problems[0]) and "(RuntimeError)" in str(problems[0])
    assert "with two lines" not in str(problems[0])  # the code's text never reaches the user
    with pytest.raises(SceneError, match="internal error"):
        load_scene(path)


@pytest.mark.parametrize("entry, key", [
    ("{id: m, player: 1, at: [10, 10], height: 18446744073709551616}", "models[m].height"),
    ("{id: m, player: 1, at: [10, 18446744073709551616]}", "models[m].at[1]"),
])
def test_a_number_too_large_under_a_known_key_says_so(tmp_path, entry, key):
    """The reader keeps no value for 2^64: the checker, which would see None there ('must be a
    number, got None'), gives way to the reader's own words, once."""
    text = f"ruleset: wh40k6\ntable: [48, 48]\nmodels:\n  - {entry}\n"
    found = problem(tmp_path, text, key, "whole number too large", needle="id: m,")
    assert "None" not in found.message
    assert len(validate_scene_file(write_scene(tmp_path, text))) == 1
