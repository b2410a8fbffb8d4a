"""Terrain builders, primitives and mesh files: closed meshes at the right place and size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh
from battlesight.geometry import planar
from battlesight.geometry.mesh import as_trimesh
from battlesight.geometry.meshfile import export_glb, load_mesh_file, mesh_terrain
from battlesight.geometry.primitives import (
    mesh_problems,
    prism,
    rectangle,
    signed_area,
    to_table,
    triangulate,
)
from battlesight.geometry.ruins import ruin
from battlesight.geometry.terrain import box, crater, forest, hill, wall
from battlesight.geometry.types import TerrainGeometry

ROOT = Path(__file__).resolve().parent.parent
UP = np.array([0.0, 0.0, 1.0])


def assert_closed(mesh: trimesh.Trimesh) -> None:
    assert mesh is not None
    assert mesh_problems(mesh) == []


def assert_piece(geom: TerrainGeometry) -> None:
    for mesh in (geom.solid, geom.area, geom.stand):
        if mesh is not None:
            assert_closed(mesh)
    assert geom.footprint.shape[1] == 2 and len(geom.footprint) >= 3
    assert signed_area(geom.footprint) > 0


def first_hit(mesh: trimesh.Trimesh, origin, direction) -> float | None:
    """Distance to the first hit of one ray, None on a miss."""
    loc, idx, _ = as_trimesh(mesh).ray.intersects_location([origin], [direction],
                                                           multiple_hits=True)
    if len(idx) == 0:
        return None
    return float(np.min(np.linalg.norm(loc - np.asarray(origin, dtype=float), axis=1)))


def drop_z(mesh: trimesh.Trimesh, x: float, y: float) -> float | None:
    """z of the highest surface of mesh under plan point (x, y)."""
    d = first_hit(mesh, (x, y, 100.0), -UP)
    return None if d is None else 100.0 - d


def shell_count(mesh: trimesh.Trimesh) -> int:
    """Number of connected shells (faces joined through shared vertices)."""
    parent = np.arange(len(mesh.vertices))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b, c in mesh.faces:
        for u, v in ((a, b), (b, c)):
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[ru] = rv
    return len({find(i) for i in np.unique(mesh.faces)})


def blocked(mesh: trimesh.Trimesh, a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = first_hit(mesh, a, (b - a) / np.linalg.norm(b - a))
    return d is not None and d < np.linalg.norm(b - a)


# ---- primitives ------------------------------------------------------------------------------


def test_triangulation_keeps_collinear_vertices_so_prisms_stay_closed():
    # an outline with many points on straight runs and notches: earcut drops such vertices
    poly = [
        [0, 0],
        [4, 0],
        [4, 1],
        [3, 1],
        [3, 2],
        [4, 2],
        [4, 4],
        [2, 4],
        [2, 3],
        [1, 3],
        [1, 4],
        [0, 4],
        [0, 3],
        [0.5, 2],
        [0, 1],
    ]
    points, tris = triangulate(poly)
    assert len(tris) == len(points) - 2
    assert_closed(prism(poly, 0, 1))
    holes = [rectangle(0.5, 0.5) + [x, 0] for x in (-2, -1, 0, 1, 2)]
    m = prism(rectangle(6, 2), 0, 1, holes)
    assert_closed(m)
    assert m.volume == pytest.approx(12 - 5 * 0.25)


def test_convex_hull_and_rotation_helpers():
    hull = planar.convex_hull([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 0]])
    assert len(hull) == 4 and signed_area(hull) == pytest.approx(4)
    np.testing.assert_allclose(to_table([[1, 0]], (5, 5), 90), [[5, 6]], atol=1e-12)


# ---- wall and box ----------------------------------------------------------------------------


def test_wall_extents_and_footprint():
    g = wall((10, 20), (22, 20), 2.5, thickness=0.5)
    assert_piece(g)
    assert g.stand is None and g.area is None
    np.testing.assert_allclose(g.solid.bounds, [[10, 19.75, 0], [22, 20.25, 2.5]], atol=1e-9)
    assert g.solid.volume == pytest.approx(12 * 0.5 * 2.5)
    assert signed_area(g.footprint) == pytest.approx(6.0)


def test_diagonal_wall_follows_its_segment():
    g = wall((0, 0), (3, 4), 2.0, thickness=0.2)
    assert_piece(g)
    assert g.solid.volume == pytest.approx(5 * 0.2 * 2)
    assert blocked(g.solid, (3, -1, 1), (0, 4, 1))  # crosses the wall's middle
    assert not blocked(g.solid, (4, 6, 1), (6, 4, 1))  # beyond its end


def test_wall_rejects_zero_length():
    with pytest.raises(ValueError):
        wall((1, 1), (1, 1), 2.0)


def test_box_rotation_moves_footprint():
    g = box((40, 30), (6, 4, 5), rotation=90)
    assert_piece(g)
    np.testing.assert_allclose(g.solid.bounds, [[38, 27, 0], [42, 33, 5]], atol=1e-9)
    assert g.stand is g.solid
    assert drop_z(g.stand, 40, 32.5) == pytest.approx(5)
    g15 = box((40, 30), (6, 4, 5), rotation=15)
    np.testing.assert_allclose(g15.footprint, to_table(rectangle(6, 4), (40, 30), 15), atol=1e-9)


# ---- ruins -----------------------------------------------------------------------------------


def test_ruin_floors_walls_and_footprint():
    g = ruin((24, 34), (12, 6), 8, floors=(3, 6), walls=("north", "west"))
    assert_piece(g)
    assert g.floors == (0.2, 3.0, 6.0)
    np.testing.assert_allclose(g.solid.bounds, [[18, 31, 0], [30, 37, 8]], atol=1e-9)
    # slabs at the given heights: dropping through the interior meets 6, then 3, then 0.2
    loc, _, _ = as_trimesh(g.stand).ray.intersects_location([[26, 33, 50]], [-UP],
                                                            multiple_hits=True)
    tops = sorted({round(z, 6) for z in loc[:, 2]}, reverse=True)
    assert tops[0] == pytest.approx(6.0) and 3.0 in tops and 0.2 in tops
    assert drop_z(g.stand, 26, 33) == pytest.approx(6.0)
    # walls stand on the named sides only: north edge blocked, south edge open
    assert blocked(g.solid, (26.5, 40, 7.5), (26.5, 34, 7.5))  # a pier of the north wall
    assert not blocked(g.solid, (26.5, 28, 7.5), (26.5, 34, 7.5))


def test_ruin_rotation_turns_everything_about_its_centre():
    g = ruin((10, 10), (8, 4), 3, walls=("north",), rotation=90)
    assert_piece(g)
    # the north wall (+y edge) now stands on the -x edge
    lo, hi = g.solid.bounds
    np.testing.assert_allclose([lo[0], hi[0], lo[1], hi[1]], [8, 12, 6, 14], atol=1e-9)
    assert blocked(g.solid, (5, 10, 2.9), (9, 10, 2.9))
    assert not blocked(g.solid, (15, 10, 2.9), (11, 10, 2.9))
    np.testing.assert_allclose(g.footprint, to_table(rectangle(8, 4), (10, 10), 90), atol=1e-9)


def test_window_lets_sight_through_and_pier_blocks():
    # south wall 8" long, one storey: windows at x in [-3.25,-1.75], [-0.75,0.75], [1.75,3.25],
    # z in [1.0, 2.2]
    g = ruin((0, 0), (8, 6), 4, walls=("south",))
    assert_piece(g)
    m = g.solid
    origins = np.array(
        [[0, -10, 1.6], [1.25, -10, 1.6], [2.5, -10, 1.6], [0, -10, 0.6], [0, -10, 2.6]]
    )
    hits = as_trimesh(m).ray.intersects_any(origins, np.tile([0.0, 1.0, 0.0], (len(origins), 1)))
    assert hits.tolist() == [False, True, False, True, True]  # window, pier, window, sill, lintel


def test_window_through_rotated_upper_storey():
    g = ruin((20, 20), (8, 6), 6, floors=(3,), walls=("south",), rotation=90)
    # rotated 90: the south wall faces +x; upper storey window from z 3.8 to 5.0
    sight = [(30, 20, 4.4), (20.5, 20, 4.4)]
    assert not blocked(g.solid, *sight)
    assert blocked(g.solid, (30, 21.25, 4.4), (20.5, 21.25, 4.4))  # pier
    assert blocked(g.solid, (30, 20, 2.0), (20.5, 20, 2.0)) is False  # lower storey window
    no_windows = ruin(
        (20, 20), (8, 6), 6, floors=(3,), walls=("south",), rotation=90, windows=False
    )
    assert blocked(no_windows.solid, *sight)


def test_broken_ruin_is_deterministic_and_jagged():
    kw = {"floors": (3,), "broken": True, "seed": 7}
    a = ruin((10, 10), (10, 6), 6, **kw)
    b = ruin((10, 10), (10, 6), 6, **kw)
    c = ruin((10, 10), (10, 6), 6, floors=(3,), broken=True, seed=8)
    assert_piece(a)
    np.testing.assert_array_equal(a.solid.vertices, b.solid.vertices)
    assert not np.array_equal(a.solid.vertices, c.solid.vertices)
    # the top edge along the north wall varies but stays above the top floor
    tops = [drop_z(a.solid, x, 12.9) for x in np.linspace(6, 14, 17)]
    assert max(tops) <= 6 + 1e-9 and min(tops) > 3.0 and max(tops) - min(tops) > 0.2


def test_ruin_stair_gap_and_all_walls():
    g = ruin((0, 0), (10, 8), 7, floors=(3.5,), stair_gap=True)
    assert_piece(g)
    x0, y0 = -5 + 0.25, -4 + 0.25  # interior south-west corner
    assert drop_z(g.stand, x0 + 0.5, y0 + 0.5) == pytest.approx(0.2)  # through the stair gap
    assert drop_z(g.stand, 2, 2) == pytest.approx(3.5)


def test_ruin_rejects_bad_input():
    with pytest.raises(ValueError):
        ruin((0, 0), (6, 6), 4, walls=("up",))
    with pytest.raises(ValueError):
        ruin((0, 0), (6, 6), 4, floors=(5,))
    with pytest.raises(ValueError):
        ruin((0, 0), (6, 6), 8, floors=(4, 4.1))


# ---- hill, forest, crater --------------------------------------------------------------------


def test_hill_mesa_shape():
    g = hill((52, 12), (10, 8), 2, top=0.6)
    assert_piece(g)
    assert g.stand is g.solid
    np.testing.assert_allclose(g.solid.bounds, [[47, 8, 0], [57, 16, 2]], atol=1e-9)
    assert drop_z(g.stand, 52, 12) == pytest.approx(2)
    assert drop_z(g.stand, 54.5, 12) == pytest.approx(2)  # inside the top (semi-axis 3)
    assert 0 < drop_z(g.stand, 56, 12) < 2  # on the flank
    turned = hill((52, 12), (10, 8), 2, rotation=90)
    np.testing.assert_allclose(turned.solid.bounds[:, :2], [[48, 7], [56, 17]], atol=1e-9)


def test_forest_canopy_and_trunks():
    poly = [[5, 5], [15, 4], [14, 12], [6, 13]]
    g = forest(poly, 6)
    assert_piece(g)
    assert g.stand is None
    np.testing.assert_allclose(g.area.bounds, [[5, 4, 0], [15, 13, 6]], atol=1e-9)
    area = signed_area(np.array(poly, dtype=float))
    assert shell_count(g.solid) == max(1, round(area / 12)) == 6
    # 24 vertices per trunk (two rings of 12), in order
    for trunk in g.solid.vertices.reshape(-1, 24, 3):
        lo, hi = trunk.min(axis=0), trunk.max(axis=0)
        assert lo[2] == 0 and hi[2] == pytest.approx(3.6)
        assert hi[0] - lo[0] == pytest.approx(0.5, abs=1e-6)
        centre = 0.5 * (lo[:2] + hi[:2])
        assert planar.inside([centre], poly)[0]
        assert planar.edge_distance([centre], poly)[0] >= 0.25
    again = forest(poly, 6)
    np.testing.assert_array_equal(g.solid.vertices, again.solid.vertices)


def test_forest_trunk_options_and_small_concave_polygons():
    l_shape = [[0, 0], [6, 0], [6, 2], [2, 2], [2, 6], [0, 6]]
    g = forest(l_shape, 4, trunks=3, seed=2)
    assert_piece(g)
    assert shell_count(g.solid) == 3
    tiny = forest([[0, 0], [0.6, 0], [0.6, 0.6], [0, 0.6]], 3)
    assert_piece(tiny)
    assert shell_count(tiny.solid) == 1
    given = forest(l_shape, 4, trunks=[[1, 1], [1, 4]])
    assert shell_count(given.solid) == 2


def test_crater_ring():
    g = crater((30, 30), 3, depth=0.5, rim=1.0)
    assert_piece(g)
    np.testing.assert_allclose(g.solid.bounds, [[27, 27, 0], [33, 33, 0.5]], atol=1e-9)
    assert drop_z(g.stand, 30, 30) is None  # the bowl is the table
    assert drop_z(g.stand, 32.5, 30) == pytest.approx(0.5)  # the crest
    with pytest.raises(ValueError):
        crater((0, 0), 1, rim=1.5)


# ---- mesh files ------------------------------------------------------------------------------


def test_glb_round_trip_keeps_z_up_and_names(tmp_path):
    tall = trimesh.creation.box(extents=(1, 2, 3))  # z-up, 3" tall
    flat = trimesh.creation.box(extents=(4, 1, 0.5))
    flat.apply_translation((0, 0, 5))
    path = tmp_path / "pair.glb"
    export_glb([("tower", tall), ("roof", flat)], path)
    mesh, face_part, names = load_mesh_file(path)
    assert set(names) == {"tower", "roof"}
    tower = mesh.vertices[np.unique(mesh.faces[face_part == names.index("tower")])]
    np.testing.assert_allclose(tower.min(axis=0), [-0.5, -1, -1.5], atol=1e-6)
    np.testing.assert_allclose(tower.max(axis=0), [0.5, 1, 1.5], atol=1e-6)
    assert mesh.bounds[1][2] == pytest.approx(5.25)


def test_gltf_is_converted_from_y_up(tmp_path):
    # a raw trimesh export writes numbers as they are: a box tall along y is tall in glTF terms
    tall_y = trimesh.creation.box(extents=(1, 3, 2))
    tall_y.apply_translation((0, 1.5, 0))  # glTF floor at y = 0
    path = tmp_path / "raw.glb"
    tall_y.export(path)
    mesh, _, _ = load_mesh_file(path)
    np.testing.assert_allclose(mesh.extents, [1, 2, 3], atol=1e-6)
    assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-9)
    as_is, _, _ = load_mesh_file(path, y_up=False)
    np.testing.assert_allclose(as_is.extents, [1, 3, 2], atol=1e-6)


def test_stl_is_z_up_unless_told(tmp_path):
    m = trimesh.creation.box(extents=(1, 3, 2))
    path = tmp_path / "b.stl"
    m.export(path)
    np.testing.assert_allclose(load_mesh_file(path)[0].extents, [1, 3, 2], atol=1e-6)
    np.testing.assert_allclose(load_mesh_file(path, y_up=True)[0].extents, [1, 2, 3], atol=1e-6)


def test_mesh_terrain_placement_and_statue_asset():
    g = mesh_terrain(ROOT / "assets" / "terrain" / "statue.glb", (36, 24))
    assert_piece(g)
    lo, hi = g.solid.bounds
    assert lo[2] == pytest.approx(0, abs=1e-9)
    assert 3.5 < hi[2] <= 4.01
    np.testing.assert_allclose(0.5 * (lo[:2] + hi[:2]), [36, 24], atol=1e-9)
    big = mesh_terrain(ROOT / "assets" / "terrain" / "statue.glb", (36, 24), rotation=90, scale=2)
    assert big.solid.extents[2] == pytest.approx(2 * g.solid.extents[2])
    np.testing.assert_allclose(big.solid.extents[:2], 2 * g.solid.extents[1::-1], atol=1e-6)


def test_mesh_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_mesh_file(tmp_path / "missing.glb")
    bad = tmp_path / "x.txt"
    bad.write_text("hello")
    with pytest.raises(ValueError):
        load_mesh_file(bad)
