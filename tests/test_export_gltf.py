"""`battlesight export`: glTF as other tools read it (metres, y-up, materials, a table node)."""

import json
import os
import struct

import numpy as np
import pytest
import trimesh
from battlesight.scenes import EXAMPLES_DIR
from battlesight.scenes.build import build_world
from battlesight.scenes.loader import load_scene
from battlesight.viewer import palette
from battlesight.viewer.gltf_export import TABLE_THICKNESS, UNITS

from battlesight.cli.main import main

DEMO = EXAMPLES_DIR / "demo.yaml"


def gltf_json(path) -> dict:
    """The JSON chunk of a binary glTF file."""
    data = path.read_bytes()
    length, kind = struct.unpack("<II", data[12:20])
    assert kind == 0x4E4F534A
    return json.loads(data[20:20 + length])


def export(tmp_path, *extra: str):
    out = tmp_path / "world.glb"
    assert main(["export", str(DEMO), str(out), *extra]) == 0
    return out


def world_bounds_inches() -> np.ndarray:
    """(2, 3) z-up bounds of the demo world in inches, table board included."""
    world = build_world(load_scene(DEMO))
    meshes = [e.geometry.solid for e in world.terrain.values() if e.geometry.solid is not None]
    meshes += [m.mesh for m in world.models.values()]
    lo = np.min([m.bounds[0] for m in meshes], axis=0)
    hi = np.max([m.bounds[1] for m in meshes], axis=0)
    lo = np.minimum(lo, [0.0, 0.0, -TABLE_THICKNESS])
    hi = np.maximum(hi, [*world.table, 0.0])
    return np.array([lo, hi])


@pytest.mark.parametrize("units", ["m", "in", "mm"])
def test_extents_are_in_the_units_asked_for_and_y_up(tmp_path, units):
    """The file's extents equal the world's (inches, z-up) scaled and turned y-up, within 1%."""
    scene = trimesh.load(export(tmp_path, "--units", units))
    (x0, y0, z0), (x1, y1, z1) = world_bounds_inches() * UNITS[units]
    expected = np.array([x1 - x0, z1 - z0, y1 - y0])  # glTF: x, up, -depth
    assert np.allclose(scene.extents, expected, rtol=0.01)
    assert scene.bounds[0][1] == pytest.approx(-TABLE_THICKNESS * UNITS[units], rel=0.01)


def test_default_is_metres(tmp_path):
    """A 48" table opens 1.22 m wide, not 48 m: glTF's unit is the metre."""
    scene = trimesh.load(export(tmp_path))
    table = scene.geometry["table"]
    assert table.extents[0] == pytest.approx(48 * 0.0254, rel=0.01)


def test_nodes_table_terrain_models_and_materials(tmp_path):
    doc = gltf_json(export(tmp_path))
    nodes = {n["name"]: n for n in doc["nodes"]}
    roots = {doc["nodes"][i]["name"] for i in doc["scenes"][doc["scene"]]["nodes"]}
    assert roots == {"table", "terrain", "models"}
    scene = load_scene(DEMO)
    children = {g: {doc["nodes"][i]["name"] for i in nodes[g]["children"]}
                for g in ("terrain", "models")}
    assert {m.id for m in scene.models} == children["models"]
    assert {p.id for p in scene.terrain} <= children["terrain"]
    materials = {m["name"]: m for m in doc["materials"]}
    assert {"table", "ruin", "player-1", "player-2"} <= set(materials)
    red = materials["player-1"]["pbrMetallicRoughness"]["baseColorFactor"]
    assert red == pytest.approx(list(palette.player_colour(1)), abs=1 / 255)  # 8-bit in trimesh
    canopy = materials["forest-area"]
    assert canopy["alphaMode"] == "BLEND"
    mesh_material = {doc["meshes"][nodes[m.id]["mesh"]]["primitives"][0]["material"]
                     for m in scene.models if m.player == 2}
    assert {doc["materials"][i]["name"] for i in mesh_material} == {"player-2"}


def test_file_mode_follows_the_umask(tmp_path):
    mask = os.umask(0o027)
    try:
        out = export(tmp_path)
    finally:
        os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o640


def test_bad_units_are_refused(tmp_path, capsys):
    out = tmp_path / "x.glb"
    with pytest.raises(SystemExit) as stop:
        main(["export", str(DEMO), str(out), "--units", "furlong"])
    assert stop.value.code == 2 and not out.exists()
    assert "furlong" in capsys.readouterr().err


def test_a_textured_mesh_keeps_its_texture(tmp_path):
    """A textured GLB terrain piece is exported with its image, not a flat colour."""
    from PIL import Image

    crate = trimesh.creation.box((4, 4, 3))
    uv = np.random.default_rng(0).random((len(crate.vertices), 2))
    crate.visual = trimesh.visual.TextureVisuals(uv=uv, image=Image.new("RGB", (8, 8),
                                                                        (200, 30, 160)))
    crate.export(tmp_path / "crate.glb")
    scene = tmp_path / "scene.yaml"
    scene.write_text("format: 1\nname: t\nruleset: wh40k6\ntable: [24, 24]\nterrain:\n"
                     "  - {id: crate, type: mesh, file: crate.glb, at: [12, 12]}\nmodels: []\n")
    out = tmp_path / "out.glb"
    assert main(["export", str(scene), str(out)]) == 0
    loaded = trimesh.load(out)
    visual = loaded.geometry["crate"].visual
    assert visual.material.baseColorTexture.getpixel((0, 0))[:3] == (200, 30, 160)
    assert visual.uv is not None and len(visual.uv) == 3 * len(loaded.geometry["crate"].faces)
    doc = gltf_json(out)
    assert len(doc["images"]) == 1
    # the geometry is the world's: 4" wide in metres, standing on the table
    assert loaded.geometry["crate"].extents[0] == pytest.approx(4 * 0.0254, rel=0.01)


def _node_matrix(node: dict) -> np.ndarray:
    """(4, 4) matrix of a glTF node (its `matrix`, or translation/rotation/scale)."""
    if "matrix" in node:
        return np.asarray(node["matrix"], dtype=np.float64).reshape(4, 4).T  # column-major
    matrix = np.eye(4)
    if "rotation" in node:
        x, y, z, w = node["rotation"]
        matrix[:3, :3] = trimesh.transformations.quaternion_matrix([w, x, y, z])[:3, :3]
    matrix[:3, :3] *= node.get("scale", [1.0, 1.0, 1.0])
    matrix[:3, 3] = node.get("translation", [0.0, 0.0, 0.0])
    return matrix


def test_each_model_pivots_at_its_base_centre_turned_to_its_facing(tmp_path):
    """A model's node stands at the centre of the bottom of its base (metres, y-up) turned to
    its facing; its mesh is in its own frame, so node x mesh is the model where it stands."""
    from battlesight.viewer.gltf_export import file_transform

    doc = gltf_json(export(tmp_path))
    loaded = trimesh.load(tmp_path / "world.glb")
    world = build_world(load_scene(DEMO))
    to_file = file_transform("m")
    nodes = {n["name"]: n for n in doc["nodes"]}
    for model in world.models.values():
        matrix = _node_matrix(nodes[model.id])
        inches = model.position
        expected = 0.0254 * np.array([inches[0], inches[2], -inches[1]])  # x, up, -y
        assert matrix[:3, 3] == pytest.approx(expected, abs=1e-6)
        turn = np.degrees(np.arctan2(-matrix[2, 0], matrix[0, 0]))  # about +y
        assert (turn - model.facing + 180) % 360 - 180 == pytest.approx(0, abs=1e-4)
        local = np.asarray(loaded.geometry[model.id].vertices)
        assert np.abs(local[:, [0, 2]]).max() < 0.1  # about its own axis, not the table corner
        placed = trimesh.transform_points(local, matrix)
        there = trimesh.transform_points(np.asarray(model.mesh.vertices), to_file)
        assert np.allclose(np.sort(placed, axis=0), np.sort(there, axis=0), atol=1e-5)


def test_pieces_pivot_on_the_table_top_and_every_primitive_has_normals(tmp_path):
    """A terrain piece's node stands at its footprint's centre on the table top (height 0);
    every primitive carries normals; the unit is recorded; no node name holds '/'."""
    doc = gltf_json(export(tmp_path))
    nodes = {n["name"]: n for n in doc["nodes"]}
    scene = load_scene(DEMO)
    world = build_world(scene)
    for piece in scene.terrain:
        matrix = _node_matrix(nodes[piece.id])
        foot = world.terrain[piece.id].geometry.footprint
        centre = 0.5 * (foot.min(axis=0) + foot.max(axis=0))
        assert matrix[:3, 3] == pytest.approx(0.0254 * np.array([centre[0], 0.0, -centre[1]]),
                                              abs=1e-6)
        assert np.allclose(matrix[:3, :3], np.eye(3))
    for mesh in doc["meshes"]:
        for primitive in mesh["primitives"]:
            assert "NORMAL" in primitive["attributes"]
    assert doc["asset"]["extras"]["battlesight"]["units"] == "m"
    assert not [n["name"] for n in doc["nodes"] if "/" in n["name"]]
    assert any(name.endswith("_area") for name in nodes)  # the wood's canopy, by its piece


def test_inches_are_recorded_in_the_file(tmp_path):
    doc = gltf_json(export(tmp_path, "--units", "in"))
    assert doc["asset"]["extras"]["battlesight"] == {"units": "in", "up": "+y",
                                                     "source": "battlesight"}
