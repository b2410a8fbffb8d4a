"""Mesh buildings: the true plan outline of a mesh piece, its storeys found from its horizontal
surfaces, models standing on them, and one BVH for a piece whose stand is its solid."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
import trimesh
from battlesight.geometry.floors import find_floors, walkable
from battlesight.geometry.meshfile import mesh_terrain
from battlesight.geometry.outline import OUTLINE_TOLERANCE, largest_ring, plan_outline
from battlesight.geometry.world import World
from battlesight.scenes import load_scene
from battlesight.scenes.build import build_world
from battlesight.scenes.footprints import footprints, piece_footprint

from tests.helpers import line_of, run_cli, write_scene


def box(lo, hi) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return trimesh.creation.box(extents=hi - lo).apply_translation((lo + hi) / 2)


def l_building() -> trimesh.Trimesh:
    """An L of two blocks 4" tall: 8 x 3 and 3 x 3 on its end: 33 sq in, 40.5 as a hull."""
    return trimesh.util.concatenate([box((0, 0, 0), (8, 3, 4)), box((0, 3, 0), (3, 6, 4))])


def tower(storeys: int = 4, side: float = 6.0, storey: float = 3.0) -> trimesh.Trimesh:
    """A square tower, walls 0.25" thick with a doorway, a 0.2" ground slab, a slab on each
    upper storey and a roof slab: every part a closed box."""
    t, parts = 0.25, [box((0, 0, 0), (side, side, 0.2))]
    top = storeys * storey
    parts += [box((0, 0, 0.2), (t, side, top)), box((side - t, 0, 0.2), (side, side, top)),
              box((t, side - t, 0.2), (side - t, side, top)),
              box((t, 0, 2.0), (side - t, t, top))]  # the front wall, a doorway below 2"
    for k in range(1, storeys + 1):
        z = k * storey
        parts.append(box((t, t, z - 0.2), (side - t, side - t, z)))
    return trimesh.util.concatenate(parts)


def test_l_shaped_outline_within_two_percent():
    mesh = l_building()
    outline = plan_outline(mesh.vertices, mesh.faces)
    assert outline.area == pytest.approx(33.0, rel=0.02)
    assert shapely.convex_hull(outline).area == pytest.approx(40.5)  # what a hull would say
    ring = largest_ring(outline)
    assert shapely.Polygon(ring).area == pytest.approx(33.0, rel=0.02)
    assert ring[:, 0].max() == pytest.approx(8.0, abs=OUTLINE_TOLERANCE)


def test_outline_of_a_triangle_soup_with_storeys_and_a_courtyard():
    # a ring of four blocks around a courtyard, stored unshared (as STL stores faces) and
    # with a second storey over one wing: a hole, overlapping layers, no shared vertices
    ring = [box((0, 0, 0), (10, 2, 3)), box((0, 8, 0), (10, 10, 3)),
            box((0, 2, 0), (2, 8, 3)), box((8, 2, 0), (10, 8, 3)),
            box((0, 0, 3), (10, 2, 6))]
    mesh = trimesh.util.concatenate(ring)
    soup = mesh.vertices[mesh.faces].reshape(-1, 3)
    faces = np.arange(len(soup)).reshape(-1, 3)
    outline = plan_outline(soup, faces)
    assert outline.area == pytest.approx(100 - 36, rel=0.01)
    assert len(outline.interiors) == 1  # the courtyard is a hole of the full outline
    assert shapely.Polygon(largest_ring(outline)).area == pytest.approx(100, rel=0.01)


def test_mesh_piece_footprint_is_its_true_outline(tmp_path):
    l_building().export(tmp_path / "l.stl")
    path = write_scene(tmp_path, """\
        format: 1
        ruleset: wh40k6
        table: [48, 48]
        terrain:
          - {id: l, type: mesh, file: l.stl, at: [20, 20], rotation: 30}
        models:
          - {id: a, player: 1, at: [3, 3]}
          - {id: b, player: 2, at: [40, 40]}
        """)
    scene = load_scene(path)
    world = build_world(scene)
    foot = world.terrain["l"].geometry.footprint
    assert shapely.Polygon(foot).area == pytest.approx(33.0, rel=0.02)
    # the scene's outline (layout figures, set-up checks, the editor) is the same one
    layout = footprints(scene)["l"]
    assert shapely.Polygon(layout).area == pytest.approx(33.0, rel=0.02)
    assert shapely.Polygon(layout).symmetric_difference(shapely.Polygon(foot)).area < 1e-6
    np.testing.assert_allclose(piece_footprint(scene.piece("l")), layout)


def test_storeys_found_from_horizontal_surfaces():
    mesh = tower(4)
    floors = find_floors(mesh.vertices, mesh.faces)
    np.testing.assert_allclose(floors, [0.2, 3, 6, 9, 12], atol=1e-6)
    rock = trimesh.creation.icosphere(subdivisions=3, radius=2)
    assert find_floors(rock.vertices, rock.faces) == ()  # no storeys: stood on like a hill
    assert walkable([12, 11.8, 9, 8.8, 6, 5.8, 3, 2.8, 0.2, 0]) == [12, 9, 6, 3, 0.2]
    assert walkable([2.0, 1.0]) == [2.0, 0.0]  # a roof over open ground: the table under it


TOWER_SCENE = """\
format: 1
ruleset: wh40k6
table: [48, 48]
terrain:
  - {{id: tower, type: mesh, file: tower.stl, units: mm, at: [24, 24]}}
models:
  - {{id: lookout, player: 1, at: [24, 24]{keys}}}
  - {{id: enemy, player: 2, at: [40, 40]}}
"""


def tower_scene(tmp_path, keys: str):
    mesh = tower(4)
    mesh.apply_scale(25.4)  # written in millimetres
    mesh.export(tmp_path / "tower.stl")
    return write_scene(tmp_path, TOWER_SCENE.format(keys=keys))


def test_model_stands_on_the_second_storey_of_a_mesh_tower(tmp_path):
    world = build_world(load_scene(tower_scene(tmp_path, ", floor: 2")))
    assert world.terrain["tower"].floors == pytest.approx((0.2, 3, 6, 9, 12), abs=1e-4)
    assert world.models["lookout"].position[2] == pytest.approx(6.0, abs=1e-4)
    # the enemy outside stands on the table
    assert world.models["enemy"].position[2] == 0.0


@pytest.mark.parametrize("keys, z", [
    ("", 0.2),  # inside a building with storeys: its ground floor, as in a ruin
    (", floor: 0", 0.2),
    (", floor: 1", 3.0),
    (", floor: 4", 12.0),  # the roof
    (", z: 8.2", 9.0),  # the surface nearest to 8.2"
    (", z: 100", 12.0),
])
def test_standing_in_a_mesh_tower(tmp_path, keys, z):
    world = build_world(load_scene(tower_scene(tmp_path, keys)))
    assert world.models["lookout"].position[2] == pytest.approx(z, abs=1e-4)


def test_floor_a_mesh_tower_lacks_is_refused(tmp_path):
    path = tower_scene(tmp_path, ", floor: 5")
    code, out, err = run_cli("validate", path)
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:{line_of(path, 'id: lookout')}: models[lookout].floor: ")
    assert "has no floor 5 (it has 4 above the ground" in err


def test_one_bvh_for_a_piece_that_stands_on_its_solid(tmp_path):
    tower(2).export(tmp_path / "tower.stl")
    world = World((48, 48))
    world.add_terrain("t", "mesh", mesh_terrain(tmp_path / "tower.stl", (23, 23)))
    world.solid_scene  # noqa: B018 - builds the scenes
    assert world._stand.triangles == 0  # the tower is not built a second time to stand on
    assert world.stand_height((23, 23)) == pytest.approx(0.2)
    assert world.stand_height((23, 23), 1) == pytest.approx(3.0)


def test_bench_big_mesh_row(capsys):
    from battlesight.cli.main import main

    assert main(["bench", "--rays", "2000", "--models", "4", "--pieces", "2", "--only", "rays",
                 "--mesh-faces", "4000"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "world build, " in line)
    assert "M-face mesh" in row and "x the raw embreex BVH build of its triangles" in row
    from battlesight.bench.mesh import big_mesh_figures

    figures = big_mesh_figures(4000, repeat=1)
    assert figures["faces"] >= 3840 and figures["storeys"] == 5
    assert figures["stands_at"] == pytest.approx(2 * 76.2 / 25.4 + 5 / 25.4, abs=1e-3)
    assert figures["world_vs_raw"] > 0
    # the engine's own BVH build of the same triangles is part of the world build
    assert 0 < figures["bvh_in_place_s"] <= figures["world_build_s"]


def test_z_off_a_mesh_piece_refused(tmp_path):
    path = tower_scene(tmp_path, "")
    text = path.read_text().replace("at: [40, 40]}", "at: [40, 40], z: 3}")
    path.write_text(text)
    code, _, err = run_cli("validate", path)
    assert code == 2
    assert f"{path}:{line_of(path, 'id: enemy')}: models[enemy].z: cannot stand here: no mesh" \
        in err


def test_outline_of_a_cone_and_of_a_mesh_with_t_junctions():
    cone = trimesh.creation.cone(radius=3.0, height=2.0, sections=64)
    outline = plan_outline(cone.vertices, cone.faces)
    assert outline.area == pytest.approx(shapely.Polygon(cone.vertices[:64, :2]).convex_hull.area,
                                         rel=0.01)
    # a 4 x 2 top whose diagonal is one edge below it and two above it, split at a vertex
    # lying on it (a T-junction: those edges cannot cancel): still one rectangle
    top = np.array([[0, 0, 1], [4, 0, 1], [4, 2, 1], [0, 2, 1], [2, 1, 1]], float)
    tris = np.array([[0, 1, 2], [0, 4, 3], [4, 2, 3]])
    outline = plan_outline(top, tris)
    assert outline.area == pytest.approx(8.0) and outline.geom_type == "Polygon"
    assert len(largest_ring(outline)) == 4


def test_floor_and_z_together_refused(tmp_path):
    path = tower_scene(tmp_path, ", floor: 1, z: 3")
    code, _, err = run_cli("validate", path)
    assert code == 2 and "models[lookout].z: give floor or z, not both" in err
