"""The big-mesh figure of `battlesight bench`: building the world of a table holding one
1M-face mesh building, from its STL file, beside the raw embreex BVH build of the same
triangles (embreex's `TriangleMesh`, which copies every vertex and index through Python item
access, then the commit) and beside the ray engine's own build of them alone (Embree reading
the arrays in place, `geometry.embree_shared`: the least any world build of them can cost).

The building is an L of four storeys (walls, storey slabs, a roof), its faces subdivided until
it has the faces asked for, written as a binary STL in millimetres as CAD tools export it
(every face with its own three vertices). Timed cold: the mesh file caches are emptied before
each run and nothing kept on disk by an earlier command is read (`meshcache.disabled`), so
reading, placing, the outline, the storeys and the BVH are all in the figure.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import trimesh

from battlesight.bench.timing import best_of
from battlesight.geometry import meshcache, meshfile, ray
from battlesight.scenes.build import build_world
from battlesight.scenes.loader import scene_from_dict

__all__ = ["big_mesh_figures", "building_mesh"]


def _box(lo, hi) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return trimesh.creation.box(extents=hi - lo).apply_translation((lo + hi) / 2)


def building_mesh(faces: int) -> trimesh.Trimesh:
    """An L-shaped four-storey building in millimetres with at least `faces` faces (and at
    least its 20 boxes' 240; 983,040 for 1M asked: 240 times 4 ** 6)."""
    parts = []
    for k in range(5):  # ground slab, three storey slabs, the roof
        z = 76.2 * k
        parts += [_box((0, 0, z), (200, 75, z + 5)), _box((0, 75, z), (75, 150, z + 5))]
    parts += [_box((0, 0, 0), (200, 5, 305)), _box((0, 0, 0), (5, 150, 305))]
    parts += [_box((x, 70, 0), (x + 5, 75, 305)) for x in (75, 110, 145, 195)]  # pillars
    parts += [_box((70, y, 0), (75, y + 5, 305)) for y in (90, 120, 145, 5)]
    mesh = trimesh.util.concatenate(parts)
    vertices, tris = mesh.vertices, mesh.faces
    while 4 * len(tris) <= faces * 1.1:
        vertices, tris = trimesh.remesh.subdivide(vertices, tris)
    return trimesh.Trimesh(vertices, tris, process=False)


def big_mesh_figures(faces: int = 1_000_000, repeat: int = 3) -> dict:
    """Seconds to build the world of a table with one `faces`-face mesh building (cold, best of
    `repeat`) and to build the raw embreex BVH of its triangles, and their ratio."""
    mesh = building_mesh(faces)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "building.stl"
        mesh.export(path)
        scene = scene_from_dict({
            "format": 1, "ruleset": "wh40k6", "table": [48, 48],
            "terrain": [{"id": "building", "type": "mesh", "file": "building.stl",
                         "units": "mm", "at": [24, 24]}],
            "models": [{"id": "a", "player": 1, "at": [22, 22], "floor": 2},
                       {"id": "b", "player": 2, "at": [44, 44]}],
        }, scene_dir=Path(folder))
        scene.path = Path(folder) / "bench.yaml"  # its mesh resolves in that folder

        def build() -> None:
            meshfile.clear_cache()
            with meshcache.disabled():  # cold: nothing kept by an earlier command either
                world = build_world(scene)
            world.solid_scene  # noqa: B018 - the BVH build is part of the figure

        world_s = best_of(build, repeat)
        world = build_world(scene)
        solid = world.terrain["building"].geometry.solid
        vertices = np.ascontiguousarray(solid.vertices, dtype=np.float32)
        tris = np.ascontiguousarray(solid.faces, dtype=np.int32)
        raw_s = best_of(lambda: _raw_bvh(vertices, tris), repeat)
        bvh_s = best_of(lambda: ray.RayScene([solid]), repeat)
        return {
            "faces": len(mesh.faces),
            "world_build_s": round(world_s, 3),
            "raw_bvh_s": round(raw_s, 3),
            "world_vs_raw": round(world_s / raw_s, 2),
            "bvh_in_place_s": round(bvh_s, 3),
            "world_vs_bvh": round(world_s / bvh_s, 2),
            "outline_points": len(world.terrain["building"].geometry.footprint),
            "storeys": len(world.terrain["building"].floors),
            "stands_at": round(float(world.models["a"].position[2]), 3),
        }


def _raw_bvh(vertices: np.ndarray, faces: np.ndarray) -> None:
    """One embreex scene of the triangles, committed (as the ray engine commits its own)."""
    if not ray.HAS_EMBREE:  # pragma: no cover - no raw engine to compare with
        ray.RayScene([trimesh.Trimesh(vertices, faces, process=False)])
        return
    from embreex import mesh_construction, rtcore_scene

    scene = rtcore_scene.EmbreeScene()
    mesh_construction.TriangleMesh(scene, vertices, faces)
    scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="OCCLUDED")
