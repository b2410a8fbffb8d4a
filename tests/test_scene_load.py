"""Loading valid scenes: values, defaults, inheritance, helpers, footprints, mesh paths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from battlesight.geometry import planar
from battlesight.scenes import (
    ASSETS_DIR,
    TERRAIN_TYPES,
    ModelSpec,
    Scene,
    TerrainPiece,
    load_scene,
    piece_footprint,
    resolve_mesh_file,
    scene_from_dict,
    validate_scene_file,
)
from battlesight.scenes import paths as scene_paths
from battlesight.scenes.footprints import base_half_extents, base_polygon, signed_area
from battlesight.scenes.model import DEFAULT_WALL_THICKNESS
from battlesight.scenes.systems import SYSTEMS

from tests.helpers import MINIMAL, line_of, minimal_with, write_scene


def test_constants():
    assert SYSTEMS == ("wh40k6", "wmh2", "whfb6", "aos2")
    assert TERRAIN_TYPES == ("wall", "box", "ruin", "hill", "forest", "crater", "mesh", "area")
    assert ASSETS_DIR.name == "assets" and (ASSETS_DIR.parent / "scenes").is_dir()


def test_load_minimal(tmp_path):
    path = write_scene(tmp_path, MINIMAL)
    scene = load_scene(path)
    assert isinstance(scene, Scene)
    assert scene.path == path and scene.scene_dir == tmp_path
    assert (scene.format, scene.name, scene.ruleset) == (1, "test scene", "wh40k6")
    assert scene.table == (48.0, 48.0)
    assert [p.id for p in scene.terrain] == ["wall-1", "ruin-1"]
    wall = scene.piece("wall-1")
    assert wall.type == "wall"
    assert wall.data == {"from": [10, 20], "to": [22, 20], "height": 2.5, "thickness": 0.5}
    assert type(wall.data) is dict and type(wall.data["from"]) is list
    assert scene.piece("ruin-1").data["floors"] == [3, 6]
    assert scene.units == [{"id": "tac-1", "player": 1, "profile": "tactical-squad"}]
    assert scene.deployment is None and scene.extra == {}


def test_model_defaults_and_inheritance(tmp_path):
    text = minimal_with(models="- {id: m, unit: tac-1, at: [5, 5]}")
    scene = load_scene(write_scene(tmp_path, text))
    m = scene.model("m")
    assert m == ModelSpec(id="m", unit="tac-1", player=1, at=(5.0, 5.0), floor=None,
                          facing=0.0, base=32.0, height=1.6, eye=None, shape="cylinder",
                          profile="tactical-squad", extra={})
    # an explicit profile wins over the unit's
    assert scene.model("sgt").profile == "tactical-marine"
    assert scene.model("sgt").player == 1
    boy = scene.model("boy")
    assert (boy.unit, boy.player, boy.profile, boy.facing, boy.height) == (
        None, 2, None, 180.0, 1.7)


def test_base_radii_and_eye_height():
    m = ModelSpec("a", None, 1, (1, 1), None, 0, 32, 1.6, None, "cylinder", None, {})
    assert m.base_radii_in == pytest.approx((32 / 25.4 / 2, 32 / 25.4 / 2))
    assert m.is_round and not m.is_mesh
    assert m.eye_height == pytest.approx(0.9 * 1.6)
    oval = ModelSpec("b", None, 1, (1, 1), None, 0, (60, 35), 2.0, None, "humanoid", None, {})
    assert oval.base_radii_in == pytest.approx((60 / 50.8, 35 / 50.8))
    assert not oval.is_round
    assert oval.eye_height == pytest.approx(0.92 * 2.0)
    eyed = ModelSpec("c", None, 1, (1, 1), None, 0, 40, 2.0, 1.5, "humanoid", None, {})
    assert eyed.eye_height == 1.5
    mesh = ModelSpec("d", None, 1, (1, 1), None, 0, 40, 2.0, None, "models/x.glb", None, {})
    assert mesh.is_mesh and mesh.eye_height == pytest.approx(1.8)


def test_oval_base_is_read_as_tuple(tmp_path):
    text = minimal_with(models="- {id: cav, player: 1, at: [20, 10], base: [60, 35], "
                               "facing: 90}")
    m = load_scene(write_scene(tmp_path, text)).model("cav")
    assert m.base == (60.0, 35.0) and m.base_mm == (60.0, 35.0)


def test_unknown_keys_are_kept_verbatim(tmp_path):
    text = minimal_with(
        terrain="- {id: w2, type: wall, from: [1, 1], to: [3, 1], height: 1, obstacle: true,"
                " cover: 4, notes: {painted: yes}}",
        models="""
            - id: hero
              player: 1
              at: [30, 10]
              stats: {WS: 4, BS: 4, S: 4}
              weapons: [bolter, {name: sword, ap: 3}]
              keywords: [infantry, character]
              wounds: 2
        """,
        top="""
            mission: {name: purge, objectives: [[10, 10], [30, 30]]}
            author: me
        """)
    scene = load_scene(write_scene(tmp_path, text))
    assert scene.piece("w2").data["notes"] == {"painted": True}
    assert scene.piece("w2").get("cover") == 4
    assert scene.model("hero").extra == {
        "stats": {"WS": 4, "BS": 4, "S": 4},
        "weapons": ["bolter", {"name": "sword", "ap": 3}],
        "keywords": ["infantry", "character"],
        "wounds": 2,
    }
    assert scene.extra == {"mission": {"name": "purge", "objectives": [[10, 10], [30, 30]]},
                           "author": "me"}
    assert type(scene.extra["mission"]) is dict


def test_deployment_polygons_and_names(tmp_path):
    text = MINIMAL + "deployment:\n  1: [[0, 0], [48, 0], [48, 12], [0, 12]]\n" \
                     "  2: [[0, 36], [48, 36], [48, 48], [0, 48]]\n"
    scene = load_scene(write_scene(tmp_path, text))
    assert scene.deployment == {1: [[0, 0], [48, 0], [48, 12], [0, 12]],
                                2: [[0, 36], [48, 36], [48, 48], [0, 48]]}
    named = load_scene(write_scene(tmp_path, MINIMAL + "deployment: dawn-of-war\n", "b.yaml"))
    assert named.deployment == "dawn-of-war"


def test_scene_helpers(tmp_path):
    text = minimal_with(models="""
        - {id: m2, unit: tac-1, at: [14, 6]}
        - {id: m3, unit: tac-1, at: [16, 6]}
    """)
    scene = load_scene(write_scene(tmp_path, text))
    assert scene.model("m2").at == (14.0, 6.0)
    with pytest.raises(KeyError):
        scene.model("nobody")
    with pytest.raises(KeyError):
        scene.piece("nothing")
    assert [m.id for m in scene.models_of(1)] == ["sgt", "m2", "m3"]
    assert [m.id for m in scene.models_of(2)] == ["boy"]
    assert [m.id for m in scene.unit_models("tac-1")] == ["sgt", "m2", "m3"]
    assert scene.unit("tac-1")["profile"] == "tactical-squad"
    assert scene.unit("none") is None
    assert scene.players == [1, 2]


def test_source_lines_are_recorded_but_not_compared(tmp_path):
    path = write_scene(tmp_path, MINIMAL)
    scene = load_scene(path)
    assert scene.piece("ruin-1").line == line_of(path, "id: ruin-1")
    assert scene.model("boy").line == line_of(path, "id: boy")
    shifted = load_scene(write_scene(tmp_path, "# a comment\n\n" + MINIMAL, "b.yaml"))
    assert shifted.model("boy").line == scene.model("boy").line + 2
    assert shifted == scene


def test_optional_top_keys(tmp_path):
    path = write_scene(tmp_path, "ruleset: aos2\ntable: [72, 48]\n", "my-table.yaml")
    scene = load_scene(path)
    assert (scene.name, scene.format, scene.terrain, scene.models, scene.units) == (
        "my-table", 1, [], [], [])
    nulls = "ruleset: aos2\ntable: [72, 48]\nterrain:\nmodels:\nunits:\n"
    assert validate_scene_file(write_scene(tmp_path, nulls, "n.yaml")) == []


def test_every_terrain_type_loads(tmp_path, monkeypatch):
    assets = tmp_path / "assets"
    (assets / "terrain").mkdir(parents=True)
    (assets / "terrain" / "statue.glb").write_bytes(  # validation parses it: a real one
        (scene_paths.ASSETS_DIR / "terrain" / "statue.glb").read_bytes())
    monkeypatch.setattr(scene_paths, "ASSETS_DIR", assets)
    text = minimal_with(terrain="""
        - {id: b, type: box, at: [40, 30], size: [6, 4, 5], rotation: 15}
        - {id: h, type: hill, at: [30, 12], size: [10, 8], height: 2}
        - {id: f, type: forest, polygon: [[5, 5], [15, 4], [14, 12], [6, 13]], height: 6}
        - {id: c1, type: crater, at: [20, 10], radius: 2}
        - {id: c2, type: crater, at: [20, 15], size: 3}
        - {id: c3, type: crater, at: [20, 25], size: [3, 2], depth: 0.5}
        - {id: s, type: mesh, file: assets/terrain/statue.glb, at: [36, 24], scale: 1}
        - {id: a1, type: area, polygon: [[2, 40], [8, 40], [6, 45], [3, 45]]}
        - {id: a2, type: area, at: [44, 42], size: [4, 3], height: 0.5}
    """)
    scene = load_scene(write_scene(tmp_path, text))
    assert sorted({p.type for p in scene.terrain}) == sorted(TERRAIN_TYPES)


def test_scene_from_dict():
    data = {"ruleset": "wmh2", "table": [48, 48],
            "terrain": [{"id": "w", "type": "wall", "from": [1, 1], "to": [5, 1], "height": 1}],
            "models": [{"id": "a", "player": 1, "at": [10, 10], "base": 40, "height": 2.25}]}
    scene = scene_from_dict(data)
    assert scene.name == "" and scene.path is None
    assert scene.model("a").base == 40.0
    assert scene.piece("w").line is None and scene.model("a").line is None


def test_scene_from_dict_resolves_meshes_against_scene_dir(tmp_path):
    tris = (("0 0 0", "0 1 0", "1 0 0"), ("0 0 0", "1 0 0", "0 0 1"),
            ("1 0 0", "0 1 0", "0 0 1"), ("0 0 0", "0 0 1", "0 1 0"))
    facets = "".join("facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {v}\n" for v in t)
                     + "endloop\nendfacet\n" for t in tris)
    # validation parses it: one closed tetrahedron
    (tmp_path / "rock.stl").write_text(f"solid x\n{facets}endsolid x\n")
    data = {"ruleset": "aos2", "table": [72, 48],
            "terrain": [{"id": "r", "type": "mesh", "file": "rock.stl", "at": [5, 5]}]}
    assert scene_from_dict(data, scene_dir=tmp_path).piece("r").data["file"] == "rock.stl"


# -- footprints ------------------------------------------------------------------------------

def _area(poly):
    return signed_area(poly)


def test_wall_footprint():
    wall = TerrainPiece("w", "wall", {"from": [10, 20], "to": [22, 20], "height": 2,
                                      "thickness": 0.5})
    fp = piece_footprint(wall)
    assert fp.shape == (4, 2) and _area(fp) == pytest.approx(12 * 0.5)
    assert fp[:, 1].min() == pytest.approx(19.75) and fp[:, 1].max() == pytest.approx(20.25)
    assert fp[:, 0].min() == pytest.approx(10) and fp[:, 0].max() == pytest.approx(22)
    default = piece_footprint(TerrainPiece("w", "wall", {"from": [0, 0], "to": [0, 4],
                                                         "height": 1}))
    assert _area(default) == pytest.approx(4 * DEFAULT_WALL_THICKNESS)


@pytest.mark.parametrize("kind", ["box", "ruin"])
def test_rotated_rectangle_footprint(kind):
    size = [6, 4, 5] if kind == "box" else [6, 4]
    piece = TerrainPiece("p", kind, {"at": [40, 30], "size": size, "rotation": 90, "height": 5})
    fp = piece_footprint(piece)
    assert _area(fp) == pytest.approx(24)
    assert fp[:, 0].min() == pytest.approx(38) and fp[:, 0].max() == pytest.approx(42)
    assert fp[:, 1].min() == pytest.approx(27) and fp[:, 1].max() == pytest.approx(33)
    turned = piece_footprint(TerrainPiece("p", kind, {"at": [0, 0], "size": size,
                                                      "rotation": 30}))
    # counter-clockwise: the +x corner (3, 2) turns by 30 degrees
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    assert np.allclose(turned[2], [3 * c - 2 * s, 3 * s + 2 * c])


def test_hill_crater_forest_mesh_footprints():
    hill = piece_footprint(TerrainPiece("h", "hill", {"at": [10, 10], "size": [10, 6],
                                                      "height": 2}))
    assert hill.shape == (32, 2) and _area(hill) > 0
    assert hill[:, 0].max() == pytest.approx(15) and hill[:, 1].max() <= 13 + 1e-9
    assert _area(hill) == pytest.approx(math.pi * 5 * 3, rel=0.01)
    crater = piece_footprint(TerrainPiece("c", "crater", {"at": [0, 0], "radius": 2}))
    assert np.allclose(np.hypot(crater[:, 0], crater[:, 1]), 2)
    crater2 = piece_footprint(TerrainPiece("c", "crater", {"at": [0, 0], "size": 4}))
    assert np.allclose(crater, crater2)
    crater3 = piece_footprint(TerrainPiece("c", "crater", {"at": [0, 0], "size": [3, 4]}))
    assert np.allclose(crater, crater3)
    clockwise = [[0, 0], [0, 4], [4, 4], [4, 0]]
    forest = piece_footprint(TerrainPiece("f", "forest", {"polygon": clockwise, "height": 3}))
    assert _area(forest) == pytest.approx(16)
    mesh = piece_footprint(TerrainPiece("m", "mesh", {"file": "x.glb", "at": [5, 5]}))
    assert planar.covers([[5, 5]], mesh)[0] and _area(mesh) > 0
    sized = piece_footprint(TerrainPiece("m", "mesh", {"file": "x.glb", "at": [5, 5],
                                                       "size": [2, 3, 4], "scale": 2}))
    assert _area(sized) == pytest.approx(24)


def test_footprint_of_bad_piece_raises():
    with pytest.raises(ValueError):
        piece_footprint(TerrainPiece("b", "box", {"at": [1, 1]}))
    with pytest.raises(ValueError):
        piece_footprint(TerrainPiece("b", "tower", {"at": [1, 1]}))


def test_planar_covers_points():
    square = np.array([[0, 0], [4, 0], [4, 4], [0, 4]])
    pts = np.array([[2, 2], [5, 2], [0, 2], [4, 4], [-0.001, 1], [2, 4.0001]])
    assert planar.covers(pts, square).tolist() == [True, False, True, True, False, False]
    concave = np.array([[0, 0], [6, 0], [6, 6], [3, 2], [0, 6]])  # a notch from the top
    assert planar.covers([[3, 4], [1, 1], [5, 4]], concave).tolist() == [False, True, True]
    assert planar.covers([[1, 1], [3, 3]], square[::-1]).tolist() == [True, True]
    assert planar.covers(np.zeros((0, 2)), square).shape == (0,)


def test_base_extents_follow_facing():
    ry, rx = 60 / 50.8, 35 / 50.8
    assert base_half_extents(ry, rx, 0) == pytest.approx((rx, ry))
    assert base_half_extents(ry, rx, 90) == pytest.approx((ry, rx))
    poly = base_polygon((0, 0), ry, rx, 90)
    assert poly[:, 0].max() == pytest.approx(ry) and poly[:, 1].max() == pytest.approx(rx)


# -- mesh paths ------------------------------------------------------------------------------

@pytest.fixture()
def assets(tmp_path, monkeypatch):
    root = tmp_path / "assets"
    (root / "terrain").mkdir(parents=True)
    (root / "terrain" / "statue.glb").write_bytes(b"glTF")
    monkeypatch.setattr(scene_paths, "ASSETS_DIR", root)
    return root


def test_resolve_from_assets_both_spellings(assets, tmp_path):
    want = (assets / "terrain" / "statue.glb").resolve()
    assert resolve_mesh_file("terrain/statue.glb", None) == want
    assert resolve_mesh_file("assets/terrain/statue.glb", None) == want
    assert resolve_mesh_file("assets/terrain/statue.glb", tmp_path / "elsewhere") == want


def test_resolve_prefers_scene_folder(assets, tmp_path):
    scene_dir = tmp_path / "tables"
    (scene_dir / "terrain").mkdir(parents=True)
    (scene_dir / "terrain" / "statue.glb").write_bytes(b"mine")
    assert resolve_mesh_file("terrain/statue.glb", scene_dir) == (
        scene_dir / "terrain" / "statue.glb").resolve()


def test_resolve_refuses(assets, tmp_path):
    scene_dir = tmp_path / "tables"
    scene_dir.mkdir()
    (tmp_path / "secret.glb").write_bytes(b"x")
    with pytest.raises(ValueError, match="not found"):
        resolve_mesh_file("terrain/missing.glb", scene_dir)
    with pytest.raises(ValueError, match="outside"):
        resolve_mesh_file("../secret.glb", scene_dir)
    with pytest.raises(ValueError, match="outside"):
        resolve_mesh_file("../../../../../etc/passwd", scene_dir)
    with pytest.raises(ValueError, match="is a directory, not a mesh file"):
        resolve_mesh_file("terrain", scene_dir)  # a folder, not a file
    with pytest.raises(ValueError):
        resolve_mesh_file("", scene_dir)


def test_resolve_scene_relative_path_into_assets(assets, tmp_path):
    scene_dir = tmp_path / "tables"
    scene_dir.mkdir()
    assert resolve_mesh_file("../assets/terrain/statue.glb", scene_dir) == (
        assets / "terrain" / "statue.glb").resolve()
