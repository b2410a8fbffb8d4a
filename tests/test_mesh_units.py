"""Meshes as they come: units and up axes on mesh terrain and mesh models, a model mesh's own
size, and the validate warning when a mesh's size makes another unit far likelier."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from battlesight.geometry.meshfile import export_glb, inches_per_unit, mesh_terrain
from battlesight.geometry.volumes import mesh_model
from battlesight.scenes import load_scene
from battlesight.scenes.build import build_world
from battlesight.scenes.save import model_to_dict

from tests.helpers import line_of, run_cli, write_scene

MM = 25.4


def mm_wall_stl(folder) -> str:
    """A wall 200 mm long, 10 mm thick and 76.2 mm (3") tall, z-up, numbers in millimetres."""
    wall = trimesh.creation.box(extents=(200.0, 10.0, 76.2))
    wall.apply_translation((500.0, 300.0, 38.1))  # anywhere in the file
    wall.export(folder / "wall.stl")
    return "wall.stl"


def y_up_figure_obj(folder, name: str = "goblin.obj", tall: float = 28.0,
                    base_mm: float = 25.0) -> str:
    """A figure in millimetres with +y up (as Unity and Tabletop Simulator export): a round
    base base_mm wide (3 mm thick for a 28 mm figure), a body on it, its top `tall` mm up."""
    thick = 3.0 * tall / 28.0
    base = trimesh.creation.cylinder(radius=base_mm / 2, height=thick, sections=48)
    base.apply_translation((0, 0, thick / 2))
    body = trimesh.creation.box(extents=(0.4 * base_mm, 0.3 * base_mm, tall - thick))
    body.apply_translation((0, 0, thick + (tall - thick) / 2))
    z_up = trimesh.util.concatenate([base, body])
    y_up = z_up.copy()
    y_up.apply_transform(trimesh.transformations.rotation_matrix(-np.pi / 2, (1, 0, 0)))
    assert y_up.extents[1] == pytest.approx(tall)  # tall along +y in the file
    y_up.export(folder / name)
    return name


SCENE = """\
format: 1
ruleset: wh40k6
table: [120, 120]
terrain:
  - {{id: wall, type: mesh, file: {wall}, at: [60, 60]{wall_keys}}}
models:
  - {{id: gob, player: 1, at: [30, 30], shape: {fig}{fig_keys}}}
  - {{id: troll, player: 2, at: [90, 90], shape: {troll}, units: mm, up: y}}
"""


def scene_file(tmp_path, wall_keys=", units: mm", fig_keys=", units: mm, up: y"):
    text = SCENE.format(wall=mm_wall_stl(tmp_path), fig=y_up_figure_obj(tmp_path),
                        troll=y_up_figure_obj(tmp_path, "troll.obj", tall=80.0, base_mm=50.0),
                        wall_keys=wall_keys, fig_keys=fig_keys)
    return write_scene(tmp_path, text)


def test_inches_per_unit():
    assert inches_per_unit("mm") == pytest.approx(1 / 25.4)
    assert inches_per_unit("cm", 2.0) == pytest.approx(2 / 2.54)
    assert inches_per_unit("m") == pytest.approx(39.37, rel=1e-3)
    assert inches_per_unit() == 1.0


def test_millimetre_stl_wall_is_three_inches_tall(tmp_path):
    world = build_world(load_scene(scene_file(tmp_path)))
    solid = world.terrain["wall"].geometry.solid
    assert solid.extents[2] == pytest.approx(3.0, rel=0.01)
    np.testing.assert_allclose(solid.extents[:2], [200 / MM, 10 / MM], rtol=0.01)
    np.testing.assert_allclose(0.5 * (solid.bounds[0][:2] + solid.bounds[1][:2]), [60, 60])
    assert solid.bounds[0][2] == pytest.approx(0.0, abs=1e-9)


def test_y_up_obj_model_stands_at_its_own_height(tmp_path):
    scene = load_scene(scene_file(tmp_path))
    gob, troll = scene.model("gob"), scene.model("troll")
    # its height comes from its mesh, not the 1.6" default: a goblin and a troll differ
    assert gob.height == pytest.approx(28 / MM, rel=0.01)
    assert troll.height == pytest.approx(80 / MM, rel=0.01)
    assert gob.base == pytest.approx(25.0, abs=0.3)  # found on the mesh's lowest slab
    assert troll.base == pytest.approx(50.0, abs=0.5)
    world = build_world(scene)
    placed = world.models["gob"]
    assert placed.mesh.extents[2] == pytest.approx(28 / MM, rel=0.01)  # standing, not lying
    assert placed.volume.part_names[-1] == "base"  # its own base, no disc added under it
    # what the rulesets measure is the same height
    assert world.models["troll"].data["height"] == pytest.approx(80 / MM, rel=0.01)
    # saved back, the measured sizes are not written: they stay the mesh's own
    out = model_to_dict(gob)
    assert "height" not in out and "base" not in out
    assert out["units"] == "mm" and out["up"] == "y"


def test_y_up_model_without_up_lies_down(tmp_path):
    scene = load_scene(scene_file(tmp_path, fig_keys=", units: mm"))
    assert scene.model("gob").height == pytest.approx(25 / MM, rel=0.02)  # its base's width


def test_height_only_overrides_and_scale_applies(tmp_path):
    fig = y_up_figure_obj(tmp_path)
    found = mesh_model(tmp_path / fig, y_up=True, scale=1 / MM)
    assert found.height == pytest.approx(28 / MM, rel=0.01) and found.own_base
    doubled = mesh_model(tmp_path / fig, y_up=True, scale=2 / MM)
    assert doubled.height == pytest.approx(2 * found.height)
    fixed = mesh_model(tmp_path / fig, height=2.0, y_up=True, scale=1 / MM)
    assert fixed.height == pytest.approx(2.0)
    assert fixed.volume.mesh.bounds[1][2] == pytest.approx(2.0)
    # given a base its lowest slab is not, the figure has no base of its own: a disc is added
    disc = mesh_model(tmp_path / fig, base=60, y_up=True, scale=1 / MM)
    assert not disc.own_base and disc.base_mm == 60
    assert disc.height == pytest.approx(28 / MM + 0.12, rel=0.01)


def test_glb_terrain_units_and_up(tmp_path):
    box = trimesh.creation.box(extents=(0.1, 0.05, 0.0762))  # metres, z-up numbers
    export_glb([("block", box)], tmp_path / "block.glb")  # written as a proper y-up GLB
    geom = mesh_terrain(tmp_path / "block.glb", (10, 10), scale=inches_per_unit("m"))
    assert geom.solid.extents[2] == pytest.approx(3.0, rel=1e-3)
    raw = trimesh.creation.box(extents=(100, 76.2, 50))  # z-up file numbers, tall along y
    raw.export(tmp_path / "raw.stl")
    stood = mesh_terrain(tmp_path / "raw.stl", (10, 10), scale=inches_per_unit("mm"), y_up=True)
    assert stood.solid.extents[2] == pytest.approx(3.0, rel=1e-3)


def test_validate_warns_of_millimetres_read_as_inches(tmp_path):
    path = scene_file(tmp_path, wall_keys="", fig_keys=", up: y")
    code, out, err = run_cli("validate", path)
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "warning:" in ln]
    wall = next(ln for ln in lines if "terrain[wall]" in ln)
    assert wall.startswith(f"{path}:{line_of(path, 'id: wall')}: terrain[wall].units: warning:")
    assert "76.2\" tall read as inches, 3\" as mm" in wall and "(add 'units: mm')" in wall
    gob = next(ln for ln in lines if "models[gob]" in ln)
    assert "add 'units: mm'" in gob
    assert not any("models[troll]" in ln for ln in lines)  # its units are given
    code, _, err = run_cli("validate", "--strict", path)
    assert code == 2 and "terrain[wall].units" in err


def test_metres_read_as_inches_warned(tmp_path):
    fig = y_up_figure_obj(tmp_path, "metres.obj", tall=0.028, base_mm=0.025)  # numbers in m
    path = write_scene(tmp_path, SCENE.format(
        wall=mm_wall_stl(tmp_path), fig=fig, troll=fig, wall_keys=", units: mm",
        fig_keys=", up: y"))
    _, _, err = run_cli("validate", path)
    assert "models[gob].units: warning:" in err and "add 'units: m'" in err


@pytest.mark.parametrize("keys, key, fragment", [
    (", units: furlongs", "terrain[wall].units", "must be one of mm, cm, m, in"),
    (", up: x", "terrain[wall].up", "must be z or y"),
    (", scale: -2", "terrain[wall].scale", "greater than 0"),
])
def test_bad_terrain_reading_keys_refused(tmp_path, keys, key, fragment):
    path = scene_file(tmp_path, wall_keys=keys)
    code, out, err = run_cli("validate", path)
    assert code == 2 and out == ""
    assert f"{path}:{line_of(path, 'id: wall')}: {key}: " in err and fragment in err


def test_reading_keys_on_a_cylinder_refused(tmp_path):
    path = write_scene(tmp_path, SCENE.format(
        wall=mm_wall_stl(tmp_path), fig="cylinder", troll="cylinder", wall_keys="",
        fig_keys=", units: mm"))
    code, _, err = run_cli("validate", path)
    assert code == 2 and "models[gob].units: 'units' says how to read a mesh file" in err


def test_misspelt_scale_is_reported_on_mesh_pieces_and_models(tmp_path):
    path = scene_file(tmp_path, wall_keys=", units: mm, scael: 2",
                      fig_keys=", units: mm, up: y, scael: 2")
    code, _, err = run_cli("validate", path)
    assert code == 0
    assert "terrain[wall].scael: warning: unknown key; did you mean 'scale'?" in err
    assert "models[gob].scael: warning: unknown key; did you mean 'scale'" in err
    assert run_cli("validate", "--strict", path)[0] == 2


def test_mesh_models_round_trip(tmp_path):
    from battlesight.scenes.loader import scene_from_dict
    from battlesight.scenes.save import scene_to_dict

    scene = load_scene(scene_file(tmp_path))
    again = scene_from_dict(scene_to_dict(scene), scene_dir=tmp_path)
    assert again.models == scene.models and again.terrain == scene.terrain
    assert again.model("gob").measured == ("height", "base")


def test_the_rules_measure_the_height_the_world_stands(tmp_path):
    import battlesight

    bf = battlesight.load(scene_file(tmp_path))
    for model_id in ("gob", "troll"):
        volume_top = bf.world.models[model_id].mesh.bounds[1][2]
        assert bf.board.outline(model_id).height == pytest.approx(volume_top, rel=1e-9)
        ry, _ = bf.board.outline(model_id).radii
        assert 2 * ry * MM == pytest.approx(bf.scene.model(model_id).base, rel=1e-9)


def test_wrong_units_given_are_to_be_set_not_added(tmp_path):
    path = scene_file(tmp_path, wall_keys=", units: m", fig_keys=", up: y")
    code, out, err = run_cli("validate", path)
    assert code == 0, err
    wall = next(ln for ln in err.splitlines() if "terrain[wall].units: warning:" in ln)
    assert "tall read as metres" in wall and wall.endswith("(set 'units: mm')")


def test_exported_extents_in_metres_match_the_files_millimetres(tmp_path):
    """The mm STL wall and the y-up mm OBJ figures, placed with units/up, export as glTF in
    metres: each node's extents are the file's millimetres / 1000 (y-up), within 1%."""
    scene = scene_file(tmp_path)
    out = tmp_path / "out.glb"
    code, _, err = run_cli("export", scene, out)
    assert code == 0, err
    loaded = trimesh.load(out)
    wall = loaded.geometry["wall"]  # glTF axes: x, up, -depth
    np.testing.assert_allclose(wall.extents, [0.200, 0.0762, 0.010], rtol=0.01)
    gob, troll = loaded.geometry["gob"], loaded.geometry["troll"]
    assert gob.extents[1] == pytest.approx(0.028, rel=0.01)  # standing: its height is up
    assert troll.extents[1] == pytest.approx(0.080, rel=0.01)
    assert troll.extents[0] == pytest.approx(0.050, rel=0.01)  # its 50 mm base across
