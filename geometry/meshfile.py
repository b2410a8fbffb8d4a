"""Mesh files (GLB/glTF, OBJ, STL, PLY) in and out, through trimesh, in the project's z-up frame.

Up axis. glTF is y-up by specification (and its assets face +Z); trimesh reads and writes the
coordinates exactly as stored, without converting. So:

- load_mesh_file turns a glTF/GLB's y-up coordinates into z-up by rotating +90 degrees about x:
  (x, y, z)_file -> (x, -z, y). A glTF asset's front (+Z) then looks along -y, which is also the
  front of a z-up asset made in Blender (its front view looks along +y at the model).
- OBJ, STL and PLY carry no up axis: they are taken as z-up as stored, unless y_up=True (then
  they get the same rotation).
- export_glb writes z-up meshes as a proper y-up GLB (rotation -90 degrees about x), so a mesh
  exported there and loaded back here keeps its coordinates. Exporting with trimesh directly
  would write z-up numbers into a y-up format: such a file loads back lying on its side.

Units: the numbers in the file are in `units` (UNITS: mm, cm, m or in; inches unless told),
times `scale`; `inches_per_unit` turns the two into the one factor the builders take.

Big files are read with the processing they need and no more: a binary STL straight into
arrays (`geometry.stl`: 25 ms for 1M faces), other files by trimesh without merging vertices or
repairing (process=False), and a terrain piece's outline and storeys are found once per file,
scale and axis (`geometry.outline`, `geometry.floors`). Nothing is welded: the ray engine,
the outline and the storeys take a triangle soup as it is.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from . import meshcache
from .floors import find_floors
from .mesh import Mesh, as_trimesh
from .meshdeps import file_key, references
from .outline import largest_ring, plan_outline
from .primitives import (
    ArrayLike,
    BuildInputError,
    concatenate_labeled,
    make_mesh,
    to_table,
    transform,
    z_rotation,
)
from .stl import binary_stl, facet_count
from .types import TerrainGeometry

if TYPE_CHECKING:
    import trimesh

__all__ = ["UNITS", "MeshFileError", "export_glb", "inches_per_unit", "load_mesh_file",
           "mesh_extents", "mesh_footprint", "mesh_terrain", "reading", "split_parts"]

GLTF_SUFFIXES = (".glb", ".gltf")
#: Inches per file unit of each `units` name; DEFAULT_UNITS when a scene gives none.
UNITS = {"mm": 1.0 / 25.4, "cm": 1.0 / 2.54, "m": 1.0 / 0.0254, "in": 1.0}
DEFAULT_UNITS = "in"
SUPPORTED_SUFFIXES = (".glb", ".gltf", ".obj", ".stl", ".ply")

#: +90 degrees about x: a y-up file's (x, y, z) -> z-up (x, -z, y).
Y_UP_TO_Z_UP = np.array(
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
)
#: -90 degrees about x: z-up (x, y, z) -> y-up (x, z, -y); the inverse of Y_UP_TO_Z_UP.
Z_UP_TO_Y_UP = Y_UP_TO_Z_UP.T.copy()


def _suffix(path: str | os.PathLike) -> str:
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ValueError(
            f"unsupported mesh file {os.fspath(path)!r}: use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    return suffix


class MeshFileError(BuildInputError):
    """A mesh file that is not a mesh battlesight can use (named by the scene key ``file``)."""

    def __init__(self, path: str | os.PathLike, why: str):
        super().__init__("file", f"{os.path.basename(os.fspath(path))}: {why}")


_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_CACHE_SIZE = 32
_cache: OrderedDict[tuple, tuple[trimesh.Trimesh, np.ndarray, tuple[str, ...]]] = OrderedDict()


def _check_bytes(path: str, suffix: str, size: int) -> None:
    """Refuse files that cannot be the mesh their suffix says, from their first bytes."""
    if size == 0:
        raise MeshFileError(path, "the file is empty")
    with open(path, "rb") as f:
        head = f.read(84)
    if head.startswith(_LFS_POINTER):
        raise MeshFileError(path, "is a Git LFS pointer, not the mesh (fetch it: git lfs pull)")
    if suffix == ".glb":
        if len(head) < 12 or head[:4] != b"glTF":
            raise MeshFileError(path, "is not a binary glTF file (no 'glTF' header)")
        declared = int.from_bytes(head[8:12], "little")
        if declared != size:
            raise MeshFileError(path, f"is truncated or padded: its header says {declared} "
                                      f"bytes, the file has {size}")
    elif suffix == ".stl" and not head.lstrip().lower().startswith(b"solid"):
        count = int.from_bytes(head[80:84], "little") if len(head) >= 84 else -1
        if count < 1 or size != 84 + 50 * count:
            raise MeshFileError(path, "is neither an ASCII STL nor a whole binary STL")


def _read_mesh(path: str, suffix: str, y_up: bool) -> tuple[trimesh.Trimesh, np.ndarray,
                                                           tuple[str, ...]]:
    stl = binary_stl(path) if suffix == ".stl" else None
    if stl is not None:  # the commonest big file, read without trimesh: one part, the file's
        mesh = make_mesh(*stl)
        parts = [(os.path.basename(path), transform(mesh, Y_UP_TO_Z_UP) if y_up else mesh)]
    else:
        parts = _trimesh_parts(path, suffix, y_up)
    if not parts:
        raise MeshFileError(path, "holds no triangles")
    mesh, face_part, names = concatenate_labeled(parts)
    verts = np.asarray(mesh.vertices)
    if not np.isfinite(verts).all():
        raise MeshFileError(path, "has vertices that are not finite numbers")
    lo, hi = _corners(verts)
    extent = hi - lo
    if not np.all(extent[:2] > 0) or not extent[2] > 0:
        raise MeshFileError(path, "has no size in one of x, y or z")
    return mesh, face_part, names


def _trimesh_parts(path: str, suffix: str, y_up: bool) -> list[tuple[str, trimesh.Trimesh]]:
    """(node name, z-up mesh) of each geometry node of a file trimesh reads."""
    import trimesh  # with scipy, 0.45 s: only where a scene has a mesh file

    try:
        # an OBJ's `o` objects (or `g` groups, as some exporters write) are its parts: without
        # splitting trimesh merges them into one mesh named after the first object (a figure
        # whose first object is its base became all base) or after the file
        extra = {"split_objects": True, "split_groups": True} if suffix == ".obj" else {}
        scene = trimesh.load(path, force="scene", process=False, **extra)
    except Exception as exc:  # trimesh raises many kinds on bad files: all mean "not a mesh"
        missing = [os.path.basename(r) for r in references(path) if not os.path.isfile(r)]
        if missing and suffix in GLTF_SUFFIXES:  # trimesh names a missing buffer, no more
            raise MeshFileError(path, f"cannot be read as {suffix[1:].upper()}: it refers to "
                                      f"{', '.join(missing[:3])}, not found beside it") from None
        raise MeshFileError(path, f"cannot be read as {suffix[1:].upper()}: "
                                  f"{unreadable_why(exc, suffix)}") from None
    parts: list[tuple[str, trimesh.Trimesh]] = []
    for node in scene.graph.nodes_geometry:
        matrix, geom_name = scene.graph[node]
        geom = scene.geometry.get(geom_name)
        if not isinstance(geom, trimesh.Trimesh) or len(geom.faces) == 0:
            continue
        vertices, faces = np.asarray(geom.vertices), np.asarray(geom.faces)
        if faces.min() < 0 or faces.max() >= len(vertices):
            raise MeshFileError(path, f"part {str(node)[:40]!r} has triangles whose corners "
                                      f"point past its {len(vertices):,} vertices (index "
                                      f"{int(faces.max()):,}): the file is broken")
        mesh = make_mesh(vertices, faces)
        if y_up:
            matrix = Y_UP_TO_Z_UP @ np.asarray(matrix)
        matrix = np.asarray(matrix, dtype=np.float64)
        parts.append((str(node), mesh if np.array_equal(matrix, np.eye(4)) else
                      transform(mesh, matrix)))
    return parts


def unreadable_why(exc: Exception, suffix: str) -> str:
    """Why a mesh file could not be read, in a modeller's terms: the reader library's own
    text (its module names, its variable names) never reaches the user."""
    if isinstance(exc, (UnicodeDecodeError, ImportError)):  # trimesh guesses an encoding
        return "it is not UTF-8 text (save it as UTF-8)"
    if isinstance(exc, json.JSONDecodeError):
        return f"its JSON is broken at line {exc.lineno}"
    if isinstance(exc, (KeyError, IndexError, UnboundLocalError, TypeError, AttributeError)):
        what = "accessor, buffer view or buffer" if suffix in GLTF_SUFFIXES else "vertex or face"
        return f"it refers to an {what} it does not hold, or gives one in the wrong form"
    if isinstance(exc, MemoryError):
        return "it declares more data than can be held"
    return "it is not a valid file of this format"


def _corners(verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) corners of the box of vertices (n, 3), a column at a time (numpy reduces an
    (n, 3) array along axis 0 ten times slower)."""
    return (np.array([verts[:, i].min() for i in range(3)]),
            np.array([verts[:, i].max() for i in range(3)]))


def load_mesh_file(
    path: str | os.PathLike, *, y_up: bool | None = None
) -> tuple[trimesh.Trimesh, np.ndarray, tuple[str, ...]]:
    """Read a mesh file into one z-up mesh with a part label per face.

    y_up: None means True for .glb/.gltf (the glTF convention) and False for .obj/.stl/.ply;
    a y-up file is rotated +90 degrees about x into z-up (see the module docstring).

    Each geometry node of the file's scene (its world transform applied) becomes a part named
    after the node (glTF node name; for a single-mesh file, the name trimesh gives it). Faces are
    kept exactly as stored: nothing is merged, repaired or re-oriented.

    Files are parsed once: the result is cached by real path, modification time and size, its
    own and those of the files it refers to (`meshdeps`; the scene check and the command that
    follows share it); each call gets its own copy.

    Returns (mesh, face_part (n_faces,) int index into part_names, part_names).
    Raises FileNotFoundError, ValueError for an unsupported suffix, or MeshFileError for a file
    that is not a usable mesh (empty, truncated, a Git LFS pointer, garbage, no triangles).
    """
    mesh, face_part, names = _cached(path, y_up)[1]
    return mesh.copy(), face_part.copy(), names


def _cached(path: str | os.PathLike, y_up: bool | None
            ) -> tuple[tuple, tuple[trimesh.Trimesh, np.ndarray, tuple[str, ...]]]:
    """(cache key, the cached (mesh, face_part, names)) of a file: read once, never modified
    (callers copy or transform it)."""
    suffix = _suffix(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"mesh file not found: {os.fspath(path)!r}")
    if y_up is None:
        y_up = suffix in GLTF_SUFFIXES
    real, mtime, size, deps = file_key(path)  # and the files it reads (a texture, a .bin)
    key = (real, mtime, size, bool(y_up), deps)
    if key not in _cache:
        _cache[key] = _kept_reading(key) or _read_and_keep(key, suffix)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    _cache.move_to_end(key)
    return key, _cache[key]


def _kept_reading(key: tuple) -> tuple[Mesh, np.ndarray, tuple[str, ...]] | None:
    """The reading of an earlier command (`meshcache`), None when there is none."""
    kept = meshcache.read("mesh", key)
    if kept is None or not {"vertices", "faces", "face_part", "names"} <= kept.keys():
        return None
    return (make_mesh(kept["vertices"], kept["faces"]), kept["face_part"],
            tuple(str(n) for n in kept["names"]))


def _read_and_keep(key: tuple, suffix: str) -> tuple[Mesh, np.ndarray, tuple[str, ...]]:
    """Read the file and keep what trimesh read for later commands (a binary STL is read with
    numpy as fast as an entry would be: it is not kept; an ASCII STL is trimesh's: kept)."""
    real, _, size, y_up, _ = key
    _check_bytes(real, suffix, size)
    mesh, face_part, names = _read_mesh(real, suffix, y_up)
    if suffix != ".stl" or facet_count(real) is None:
        meshcache.write("mesh", key, {"vertices": np.asarray(mesh.vertices),
                                      "faces": np.asarray(mesh.faces), "face_part": face_part,
                                      "names": np.array(names, dtype=str)})
    return mesh, face_part, names


def clear_cache() -> None:
    """Forget every file read (the benchmark times a cold read)."""
    _cache.clear()
    _local_plan.cache_clear()
    _bounds.cache_clear()


def mesh_extents(path: str | os.PathLike, *, y_up: bool | None = None) -> np.ndarray:
    """(3,) size of a mesh file along x, y and z (z-up, file units), from the cached read."""
    lo, hi = _corners(np.asarray(_cached(path, y_up)[1][0].vertices))
    return hi - lo


def reading(units: str | None = None, up: str | None = None,
            scale: float | None = None) -> tuple[float, bool | None]:
    """(inches per file unit, y_up) of a scene's ``units``, ``up`` ('z' or 'y'; None: the
    file format's own axis) and ``scale``."""
    return inches_per_unit(units, 1.0 if scale is None else float(scale)), (
        None if up is None else up == "y")


def inches_per_unit(units: str | None = None, scale: float = 1.0) -> float:
    """The factor from file numbers to inches: UNITS[units] (DEFAULT_UNITS when None) times
    scale. Raises BuildInputError for an unknown unit or a scale that is not positive."""
    name = DEFAULT_UNITS if units is None else units
    if name not in UNITS:
        raise BuildInputError("units", f"units must be one of {', '.join(UNITS)}, got {units!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise BuildInputError("scale", f"mesh scale must be a positive number, got {scale!r}")
    return UNITS[name] * scale


def export_glb(
    parts: Iterable[tuple[str, trimesh.Trimesh]] | dict[str, trimesh.Trimesh],
    path: str | os.PathLike,
) -> None:
    """Write z-up meshes as a y-up GLB, one node (and mesh) per (name, mesh), names kept.

    Loading the file back with load_mesh_file gives the same coordinates and part names.
    """
    with open(path, "wb") as f:
        f.write(glb_bytes(parts))


def glb_bytes(
    parts: Iterable[tuple[str, trimesh.Trimesh]] | dict[str, trimesh.Trimesh],
) -> bytes:
    """The y-up GLB of z-up meshes, one node (and mesh) per (name, mesh)."""
    items = list(parts.items()) if isinstance(parts, dict) else list(parts)
    if not items:  # an empty table: a valid glTF with one empty scene (trimesh refuses it)
        return _empty_glb()
    import trimesh

    scene = trimesh.Scene()
    for name, mesh in items:
        scene.add_geometry(as_trimesh(transform(mesh, Z_UP_TO_Y_UP)), node_name=name,
                           geom_name=name)
    return scene.export(file_type="glb")


def _empty_glb() -> bytes:
    """A binary glTF 2.0 file holding one scene without nodes."""
    doc = json.dumps({"asset": {"version": "2.0", "generator": "battlesight"},
                      "scene": 0, "scenes": [{"nodes": []}]}, separators=(",", ":")).encode()
    doc += b" " * (-len(doc) % 4)
    chunk = struct.pack("<II", len(doc), 0x4E4F534A) + doc  # 'JSON'
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunk)) + chunk


def split_parts(
    mesh: trimesh.Trimesh, face_part: np.ndarray, part_names: Sequence[str]
) -> list[tuple[str, trimesh.Trimesh]]:
    """(name, mesh) per part of a labelled mesh (only the vertices each part uses)."""
    out = []
    faces = np.asarray(mesh.faces)
    for i, name in enumerate(part_names):
        sel = faces[face_part == i]
        if len(sel) == 0:
            continue
        used, inverse = np.unique(sel, return_inverse=True)
        out.append((name, make_mesh(mesh.vertices[used], inverse.reshape(-1, 3))))
    return out


@lru_cache(maxsize=_CACHE_SIZE)
def _bounds(key: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) corners of a cached file's bounding box, once per file (not trimesh's bounds:
    it hashes the whole array first)."""
    return _corners(np.asarray(_cached(key[0], key[3])[1][0].vertices))


def _centring(key: tuple, scale: float) -> np.ndarray:
    """4x4 matrix: scaled, its plan bounding-box centre on the origin, its lowest point at 0."""
    lo, hi = _bounds(key)
    centre = 0.5 * (lo[:2] + hi[:2])
    m = np.diag([scale, scale, scale, 1.0])
    m[:3, 3] = [-scale * centre[0], -scale * centre[1], -scale * lo[2]]
    return m


@lru_cache(maxsize=64)
def _local_plan(key: tuple, scale: float) -> tuple[np.ndarray, tuple[float, ...]]:
    """The outline ring (k, 2) and storeys of a cached file placed at the origin (`_centring`),
    once per file and scale (and kept for later commands, `meshcache`)."""
    kept = meshcache.read("plan", (key, scale))
    if kept is not None and {"ring", "floors"} <= kept.keys():
        return kept["ring"], tuple(float(z) for z in kept["floors"])
    ring, floors = _work_out_plan(key, scale)
    meshcache.write("plan", (key, scale), {"ring": ring, "floors": np.array(floors, float)})
    return ring, floors


def _work_out_plan(key: tuple, scale: float) -> tuple[np.ndarray, tuple[float, ...]]:
    """`_local_plan` from the mesh itself."""
    mesh = _cached(key[0], key[3])[1][0]
    m = _centring(key, scale)  # a scale and a shift: applied per axis, no matrix product
    source = np.asarray(mesh.vertices)
    verts = np.empty_like(source, dtype=np.float64)
    for i in range(3):  # a column at a time: an (n, 3) array times a (3,) row is 3x slower
        np.multiply(source[:, i], m[i, i], out=verts[:, i])
        verts[:, i] += m[i, 3]
    faces = np.asarray(mesh.faces)
    return largest_ring(plan_outline(verts, faces)), find_floors(verts, faces)


def mesh_footprint(path: str | os.PathLike, at: ArrayLike, rotation: float = 0.0,
                   scale: float = 1.0, *, y_up: bool | None = None) -> np.ndarray:
    """(k, 2) counter-clockwise footprint of a mesh piece on the table, as mesh_terrain gives
    it (the largest part of its true plan outline, see geometry.outline)."""
    key = _cached(path, y_up)[0]
    ring, _ = _local_plan(key, float(scale))
    return to_table(ring, at, rotation) if len(ring) else ring


def mesh_terrain(
    path: str | os.PathLike,
    at: ArrayLike,
    rotation: float = 0.0,
    scale: float = 1.0,
    *,
    y_up: bool | None = None,
) -> TerrainGeometry:
    """A terrain piece from a mesh file: scaled by `scale` (inches per file unit, see
    `inches_per_unit`), its plan bounding-box centre on at, its lowest point on the table,
    turned by rotation about at.

    solid: every part of the file in one mesh (taken as stored: closed only if the file is);
    stand: the same mesh (the world builds one BVH for both); floors: its storeys
    (geometry.floors, () for a rock or a hill); footprint: the largest part of its true plan
    outline (geometry.outline: union of the triangles seen from above, holes dropped).
    """
    if not (math.isfinite(scale) and scale > 0):
        raise BuildInputError("scale", f"mesh scale must be a positive number, got {scale!r}")
    key, (mesh, _, _) = _cached(path, y_up)
    placed = transform(mesh, z_rotation(rotation, at) @ _centring(key, scale))
    ring, floors = _local_plan(key, float(scale))
    footprint = to_table(ring, at, rotation) if len(ring) else ring
    return TerrainGeometry(solid=placed, stand=placed, floors=floors, footprint=footprint)
