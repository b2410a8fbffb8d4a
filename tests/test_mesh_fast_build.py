"""Big meshes built with the processing they need: Embree reading the arrays in place, binary
STL read straight into arrays, and storeys whose room test unions a level by its outline."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest
import shapely
import trimesh
from battlesight.geometry import embree_shared, ray
from battlesight.geometry.floors import has_room
from battlesight.geometry.meshfile import clear_cache, load_mesh_file, mesh_terrain
from battlesight.geometry.outline import OUTLINE_TOLERANCE, triangles_union
from battlesight.geometry.stl import binary_stl

from battlesight.bench.mesh import building_mesh

needs_embree = pytest.mark.skipif(not ray.HAS_EMBREE, reason="embreex has no wheel here")


def _rays(n: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    origins = rng.uniform(-2.0, 10.0, (n, 3))
    targets = rng.uniform(-2.0, 10.0, (n, 3))
    directions, lengths = ray.segments(origins, targets)
    return origins, directions, lengths


def _meshes() -> list[trimesh.Trimesh]:
    """A welded box, a triangle soup (every face its own vertices) and a sphere."""
    soup = building_mesh(2000)
    soup.apply_scale(1 / 25.4)
    soup = trimesh.Trimesh(soup.vertices[soup.faces].reshape(-1, 3),
                           np.arange(3 * len(soup.faces)).reshape(-1, 3), process=False)
    return [trimesh.creation.box((3, 3, 3)).apply_translation((1, 1, 1)), soup,
            trimesh.creation.icosphere(2, 1.5).apply_translation((6, 6, 4))]


@needs_embree
def test_in_place_scene_hits_as_embreex_copy():
    meshes = _meshes()
    in_place = ray.RayScene(meshes)
    if sys.platform.startswith("linux"):  # the wheel this project ships with: never the copy
        assert len(in_place._backend._buffers) == len(meshes)
    from embreex import mesh_construction, rtcore_scene

    copied = rtcore_scene.EmbreeScene(ray._embree_device())  # embreex's own copy of each
    for m in meshes:
        mesh_construction.TriangleMesh(copied, np.asarray(m.vertices, np.float32),
                                       np.asarray(m.faces, np.int32))
    origins, directions, lengths = _rays(20_000)
    d1, g1 = in_place.first_hit(origins, directions, lengths)
    o32, v32, l32 = (np.ascontiguousarray(a, np.float32) for a in (origins, directions, lengths))
    out = copied.run(o32, v32, dists=l32.copy(), output=1)
    g2 = np.asarray(out["geomID"], np.int64)
    d2 = np.where(g2 >= 0, out["tfar"], np.inf)
    assert (g1 >= 0).mean() > 0.2 and len(set(g1[g1 >= 0])) == 3  # every mesh is hit
    np.testing.assert_array_equal(g1, g2)  # geometry ids follow the meshes' order
    np.testing.assert_array_equal(d1, d2)
    occluded = copied.run(o32, v32, dists=l32.copy(), query="OCCLUDED") != -1
    np.testing.assert_array_equal(in_place.occluded(origins, directions, lengths), occluded)


@needs_embree
def test_in_place_buffers_live_as_long_as_the_scene():
    meshes = _meshes()
    scene = ray.RayScene(meshes)
    origins, directions, lengths = _rays(5000, seed=8)
    before = scene.first_hit(origins, directions, lengths)
    del meshes
    gc.collect()
    _ = [np.full((1000, 3), 7.0) for _ in range(50)]  # reuse what was freed, if it was
    after = scene.first_hit(origins, directions, lengths)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])


@needs_embree
def test_layout_check_refuses_a_scene_of_another_device():
    from embreex import rtcore, rtcore_scene

    device, other = ray._embree_device(), rtcore.EmbreeDevice()
    scene = rtcore_scene.EmbreeScene(device)
    assert embree_shared.available(scene, other) is False
    assert embree_shared.available(object(), device) is False
    if sys.platform.startswith("linux"):
        assert embree_shared.available(scene, device) is True
        # a face off the vertices is refused before Embree could read outside the buffer
        for face in ([0, 1, 3], [-1, 0, 1]):
            assert embree_shared.attach(scene, device, np.eye(3), np.array([face])) is None
        kept = embree_shared.attach(scene, device, np.eye(3), np.array([[0, 1, 2]]))
        assert kept is not None  # the arrays Embree reads: held while the scene builds
        scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="OCCLUDED")
        # once built, a scene would not see a mesh added: refused
        assert embree_shared.attach(scene, device, np.eye(3), np.array([[0, 1, 2]])) is None


def test_binary_stl_reads_as_trimesh_does(tmp_path):
    mesh = building_mesh(2000)
    path = tmp_path / "Building A.stl"
    mesh.export(path)
    vertices, faces = binary_stl(path)
    theirs = trimesh.load(path, process=False)
    np.testing.assert_array_equal(vertices, theirs.vertices)
    np.testing.assert_array_equal(faces, theirs.faces)
    clear_cache()
    loaded, face_part, names = load_mesh_file(path)
    assert names == ("Building A.stl",)  # the part name trimesh gives a one-mesh file
    assert (face_part == 0).all() and len(loaded.faces) == len(mesh.faces)
    # a y-up reading turns it as any other file: (x, y, z) -> (x, -z, y)
    clear_cache()
    turned, _, _ = load_mesh_file(path, y_up=True)
    np.testing.assert_allclose(turned.vertices[:, 1], -vertices[:, 2])
    np.testing.assert_allclose(turned.vertices[:, 2], vertices[:, 1])


def test_binary_stl_whose_header_says_solid_and_ascii_stl(tmp_path):
    box = trimesh.creation.box((2, 3, 4))
    data = bytearray(trimesh.exchange.stl.export_stl(box))
    data[:80] = b"solid exported by a CAD tool".ljust(80)  # binary, yet starts with 'solid'
    (tmp_path / "cad.stl").write_bytes(bytes(data))
    vertices, faces = binary_stl(tmp_path / "cad.stl")
    assert len(faces) == 12
    np.testing.assert_allclose(np.ptp(vertices, axis=0), [2, 3, 4], atol=1e-6)
    (tmp_path / "text.stl").write_text(trimesh.exchange.stl.export_stl_ascii(box))
    assert binary_stl(tmp_path / "text.stl") is None  # left to trimesh
    clear_cache()
    text, _, _ = load_mesh_file(tmp_path / "text.stl")
    np.testing.assert_allclose(np.ptp(text.vertices, axis=0), [2, 3, 4], atol=1e-6)


def test_triangles_union_of_either_winding_and_with_cracks():
    # a 2" square floor cut into 800 triangles, half of them wound clockwise, each moved by
    # rounding noise finer than the outline's tolerance (cracks and overlaps as CAD leaves)
    rng = np.random.default_rng(5)
    g = np.linspace(0.0, 2.0, 21)
    cells = [(a, b) for a in range(20) for b in range(20)]
    tris = []
    for i, j in cells:
        p = [(g[i], g[j]), (g[i + 1], g[j]), (g[i + 1], g[j + 1]), (g[i], g[j + 1])]
        tris += [[p[0], p[1], p[2]], [p[0], p[3], p[2]]]  # the second one clockwise
    tris = np.array(tris) + rng.uniform(-1e-4, 1e-4, (len(tris), 3, 2))
    union = triangles_union(tris)
    assert union.geom_type == "Polygon" and not union.interiors
    assert union.area == pytest.approx(4.0, abs=4 * 2 * OUTLINE_TOLERANCE)
    assert shapely.Polygon(shapely.get_coordinates(union.exterior)).area == \
        pytest.approx(4.0, abs=0.1)
    assert has_room(tris) and not has_room(tris * 0.45)  # 0.9" square: no 25 mm base
    assert triangles_union(np.zeros((0, 3, 2))).is_empty


def test_mesh_terrain_of_a_big_stl_keeps_outline_and_storeys(tmp_path):
    # the bench's building at a size the test suite affords: 240 * 4**3 faces
    mesh = building_mesh(15_000)
    mesh.export(tmp_path / "b.stl")
    clear_cache()
    geometry = mesh_terrain(tmp_path / "b.stl", (24, 24), 0.0, 1 / 25.4)
    assert geometry.stand is geometry.solid  # one mesh: the world builds one BVH for both
    ring = shapely.Polygon(geometry.footprint)
    expected = (200 * 75 + 75 * 75) / 25.4**2  # the L's two wings, square inches
    assert ring.area == pytest.approx(expected, rel=0.01)
    assert len(geometry.footprint) == 6
    np.testing.assert_allclose(geometry.floors, [5 / 25.4 + 76.2 / 25.4 * k for k in range(5)],
                               atol=1e-6)
