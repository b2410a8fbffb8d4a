"""The project's own mesh (`geometry.mesh`): the builders' arrays without trimesh, trimesh's
algorithms on demand, and commands on scenes without mesh files that never import trimesh or
scipy (0.45 s of every command's start)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import trimesh
from battlesight.geometry.mesh import Mesh, as_trimesh, shells
from battlesight.geometry.primitives import _unit_sphere, box, concatenate, oval_cylinder, sphere

from tests.helpers import DEMO


@pytest.mark.parametrize("subdivisions", [0, 1, 2, 3])
def test_icosphere_is_trimesh_s_sphere(subdivisions):
    """The unit icosphere has trimesh's vertices (as a set), faces count and volume, and is
    closed and wound outward."""
    vertices, faces = _unit_sphere(subdivisions)
    theirs = trimesh.creation.icosphere(subdivisions=subdivisions)
    ours = np.unique(np.round(vertices, 9), axis=0)
    np.testing.assert_allclose(ours, np.unique(np.round(theirs.vertices, 9), axis=0), atol=1e-9)
    assert len(faces) == len(theirs.faces) == 20 * 4**subdivisions
    mesh = sphere((1.0, 2.0, 3.0), 2.0, subdivisions)
    assert mesh.is_watertight and mesh.is_winding_consistent
    assert mesh.volume == pytest.approx(8.0 * theirs.volume, rel=1e-12)


def test_mesh_arrays_match_trimesh():
    """bounds, extents, triangles, face normals, areas and centres are trimesh's numbers."""
    mesh = box((1.0, 2.0, 0.5), (2.0, 4.0, 1.0), rotation=30.0)
    assert isinstance(mesh, Mesh)
    theirs = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    for name in ("bounds", "extents", "triangles", "face_normals", "area_faces",
                 "triangles_center"):
        np.testing.assert_allclose(getattr(mesh, name), getattr(theirs, name), atol=1e-12,
                                   err_msg=name)
    assert mesh.volume == pytest.approx(8.0)
    assert as_trimesh(mesh) is as_trimesh(mesh)  # made once
    assert as_trimesh(theirs) is theirs


def test_bounds_count_only_the_vertices_faces_use():
    mesh = box((0.0, 0.0, 0.5), (1.0, 1.0, 1.0))
    far = Mesh(np.vstack([mesh.vertices, [[50.0, 50.0, 50.0]]]), mesh.faces)
    np.testing.assert_allclose(far.bounds, mesh.bounds)


def test_shells_cut_a_concatenation_into_its_pieces():
    parts = [oval_cylinder(0.2, 0.2, 0.0, 2.0 + k, (3.0 * k, 0.0), 12) for k in range(4)]
    cut = shells(concatenate(parts))
    assert len(cut) == 4
    for piece, part in zip(cut, parts, strict=True):
        np.testing.assert_allclose(piece.bounds, part.bounds)
    assert shells(Mesh(np.zeros((0, 3)), np.zeros((0, 3), int))) == []


def test_pickled_mesh_keeps_its_arrays():
    import pickle

    mesh = box((0.0, 0.0, 0.5), (1.0, 2.0, 1.0))
    as_trimesh(mesh)
    back = pickle.loads(pickle.dumps(mesh))
    np.testing.assert_array_equal(back.vertices, mesh.vertices)
    np.testing.assert_array_equal(back.faces, mesh.faces)
    np.testing.assert_allclose(back.bounds, mesh.bounds)


_PROBE = """
import json, sys
from battlesight.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted({m.split('.')[0] for m in sys.modules
                  if m.split('.')[0] in ('trimesh', 'scipy')})}), file=sys.stderr)
"""


@pytest.mark.parametrize("command", [
    ["los", str(DEMO), "--from", "sgt", "--json"],
    ["validate", str(DEMO)],
    ["shoot", str(DEMO), "--unit", "tac-1", "--target", "boyz-1", "--json"],
])
def test_commands_on_a_scene_without_mesh_files_never_import_trimesh_or_scipy(command):
    done = subprocess.run([sys.executable, "-c", _PROBE, *command], capture_output=True,
                          text=True, timeout=300)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"code": 0, "loaded": []}, done.stderr[-2000:]


def test_first_hit_leaves_the_callers_lengths_as_they_were():
    from battlesight.geometry import terrain
    from battlesight.geometry.ray import RayScene

    scene = RayScene([terrain.box((0, 0), (2, 2, 2)).solid])
    origins = np.array([[-5.0, 0.0, 1.0], [-5.0, 5.0, 1.0]], dtype=np.float32)
    directions = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], dtype=np.float32)
    lengths = np.array([100.0, 100.0], dtype=np.float32)
    dist, geom = scene.first_hit(origins, directions, lengths)
    # Embree answers in float32: the hit may sit an ulp or two from the face (4.0 - 2.4e-7)
    assert dist[0] == pytest.approx(4.0, abs=1e-5) and dist[1] == np.inf
    assert geom.tolist() == [0, -1]
    assert lengths.tolist() == [100.0, 100.0]
