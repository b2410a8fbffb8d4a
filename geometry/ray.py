"""Ray engine: one API over three back-ends, chosen by an import probe or by the environment.

`RayScene` holds a list of meshes (one Embree geometry each) and answers batched queries:

- `occluded(origins, directions, lengths)`: any hit closer than `lengths` (Embree's occlusion
  query with a far distance), the fast path for line-of-sight segments;
- `first_hit(origins, directions, lengths)`: distance to and index of the closest mesh hit.

The Embree back-end (`embreex`) is used when it imports. Where embreex has no wheel (arm64:
Apple Silicon, Linux aarch64) open3d's `RaycastingScene`, itself built on Embree, serves; where
neither is installed, trimesh's pure-Python intersector (roughly 10,000x slower) keeps the project
running. `BATTLESIGHT_RAYS=embreex|open3d|trimesh` forces one (an unavailable one is an error
at the first scene). `ENGINE` names the back-end in use; `engine()` reads the environment again.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

import numpy as np

from . import embree_shared

if TYPE_CHECKING:
    from .mesh import Mesh

try:  # import probe, as trimesh does for its own ray module
    from embreex import mesh_construction as _embree_mesh
    from embreex import rtcore as _embree_core
    from embreex import rtcore_scene as _embree_scene

    HAS_EMBREE = True
except ImportError:  # pragma: no cover - exercised only where embreex has no wheel
    HAS_EMBREE = False

#: the back-ends by name, best first
ENGINES = ("embreex", "open3d", "trimesh")
_NO_HIT = np.float32(np.inf)


def available_engines() -> list[str]:
    """The back-ends this process can use, best first (open3d probed without importing it)."""
    found = ["embreex"] if HAS_EMBREE else []
    if importlib.util.find_spec("open3d") is not None:
        found.append("open3d")
    if importlib.util.find_spec("rtree") is not None:  # trimesh's intersector needs it
        found.append("trimesh")
    return found


def engine() -> str:
    """The back-end new scenes use: `BATTLESIGHT_RAYS` when set, else the best available."""
    forced = os.environ.get("BATTLESIGHT_RAYS", "").strip().lower()
    if forced:
        if forced not in ENGINES:
            raise RuntimeError(f"BATTLESIGHT_RAYS={forced!r}: the ray back-ends are "
                               f"{', '.join(ENGINES)}")
        if forced not in available_engines():
            raise RuntimeError(f"BATTLESIGHT_RAYS={forced}: that ray back-end is not installed "
                               f"here (available: {', '.join(available_engines())})")
        return forced
    found = available_engines()
    if not found:
        raise RuntimeError("no ray back-end is installed: embreex (x86_64) or open3d (arm64 "
                           "and others) casts the rays")
    return found[0]


def _engine_at_import() -> str:
    try:
        return engine()
    except RuntimeError:  # a forced back-end that is missing: the first scene says so
        return "unavailable"


ENGINE = _engine_at_import()


def _as_f32(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float32)


_DEVICE = None


def _embree_device():
    """One Embree device for every scene of the process. A scene made without a device gets
    a device of its own, and a process holding about a thousand of those crashes (segfault)."""
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = _embree_core.EmbreeDevice()
    return _DEVICE


class _EmbreeBackend:
    """Meshes in one Embree scene; geometry ids follow the order of the meshes."""

    def __init__(self, meshes: list[Mesh]):
        device = _embree_device()
        self.scene = _embree_scene.EmbreeScene(device)
        # Embree reads the arrays in place (embree_shared); embreex's copy where it cannot
        in_place = embree_shared.available(self.scene, device)
        self._buffers = []  # the arrays Embree reads: they live as long as the scene
        for mesh in meshes:
            shared = in_place and embree_shared.attach(self.scene, device, mesh.vertices,
                                                       mesh.faces)
            if shared:
                self._buffers.append(shared)
                continue
            _embree_mesh.TriangleMesh(
                self.scene,
                _as_f32(mesh.vertices),
                np.ascontiguousarray(mesh.faces, dtype=np.int32),
            )
        # A query commits the scene; do it now so building cost is paid at construction.
        self.scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="OCCLUDED")

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        result = self.scene.run(
            _as_f32(origins), _as_f32(directions), dists=_as_f32(lengths), query="OCCLUDED"
        )
        return np.asarray(result) != -1

    def first_hit(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        # embreex writes each hit's distance into the lengths it is given: a copy, never the
        # caller's array (a float32 one would come back changed)
        far = np.array(lengths, dtype=np.float32, copy=True, order="C")
        out = self.scene.run(_as_f32(origins), _as_f32(directions), dists=far, output=1)
        geom = np.asarray(out["geomID"], dtype=np.int64)
        dist = np.where(geom >= 0, out["tfar"], _NO_HIT).astype(np.float64)
        return dist, geom


class _Open3DBackend:
    """Meshes in one open3d `RaycastingScene` (Embree inside); geometry ids follow the order of
    the meshes. Used where embreex has no wheel."""

    def __init__(self, meshes: list[Mesh]):
        try:
            import open3d.core as o3c
            from open3d.t.geometry import RaycastingScene
        except ImportError as exc:  # installed, but a system library it loads is missing
            raise RuntimeError(f"open3d is installed but does not load ({exc}); on Debian "
                               "and Ubuntu it needs libusb-1.0-0") from exc

        self._o3c = o3c
        self.scene = RaycastingScene()
        for mesh in meshes:
            self.scene.add_triangles(
                o3c.Tensor(_as_f32(mesh.vertices)),
                o3c.Tensor(np.ascontiguousarray(mesh.faces, dtype=np.uint32)))

    def _rays(self, origins, directions):
        return self._o3c.Tensor(np.ascontiguousarray(
            np.hstack([_as_f32(origins), _as_f32(directions)]), dtype=np.float32))

    def first_hit(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        out = self.scene.cast_rays(self._rays(origins, directions))
        dist = out["t_hit"].numpy().astype(np.float64)
        geom = out["geometry_ids"].numpy().astype(np.int64)
        hit = np.isfinite(dist) & (geom != _OPEN3D_NO_HIT) & (
            dist <= np.asarray(lengths, dtype=np.float64))
        return np.where(hit, dist, np.inf), np.where(hit, geom, -1)

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        # any hit closer than each ray's own length: the directions scaled by the lengths make
        # t = 1 the far end for every ray, so one scalar far distance serves them all
        scaled = np.asarray(directions, dtype=np.float64) * np.asarray(
            lengths, dtype=np.float64)[:, None]
        blocked = self.scene.test_occlusions(self._rays(origins, scaled), tnear=0.0, tfar=1.0)
        return blocked.numpy().astype(bool) & (np.asarray(lengths) > 0)


#: open3d's geometry id of a ray that hit nothing (its `RaycastingScene.INVALID_ID`)
_OPEN3D_NO_HIT = np.int64(2**32 - 1)


class _TrimeshBackend:  # pragma: no cover - fallback where no Embree is installed
    """trimesh's numpy/rtree intersector over the concatenated meshes."""

    def __init__(self, meshes: list[Mesh]):
        import trimesh

        from .mesh import as_trimesh

        counts = [len(m.faces) for m in meshes]
        self.face_owner = np.repeat(np.arange(len(meshes)), counts)
        self.mesh = trimesh.util.concatenate([as_trimesh(m) for m in meshes]) if meshes \
            else None
        if self.mesh is not None:
            self.intersector = trimesh.ray.ray_triangle.RayMeshIntersector(self.mesh)

    def first_hit(self, origins, directions, lengths):
        n = len(origins)
        dist = np.full(n, np.inf)
        geom = np.full(n, -1, dtype=np.int64)
        if self.mesh is None or n == 0:
            return dist, geom
        tri, ray, loc = self.intersector.intersects_id(
            origins, directions, multiple_hits=True, return_locations=True
        )
        if len(tri):
            d = np.einsum("ij,ij->i", loc - origins[ray], directions[ray])
            ok = (d >= 0) & (d < lengths[ray])
            order = np.lexsort((d[ok], ray[ok]))
            r, t, dd = ray[ok][order], tri[ok][order], d[ok][order]
            first = np.unique(r, return_index=True)[1]
            dist[r[first]] = dd[first]
            geom[r[first]] = self.face_owner[t[first]]
        return dist, geom

    def occluded(self, origins, directions, lengths):
        return self.first_hit(origins, directions, lengths)[1] >= 0


class RayTally:
    """Rays this process has asked the ray engine to cast (occlusion and first-hit queries
    of every `RayScene`): what `battlesight bench` sets raw embreex casting beside."""

    rays = 0


class RayScene:
    """A static set of meshes for batched ray queries.

    meshes: list of meshes (`Mesh` or trimesh.Trimesh); a hit reports the index of its mesh
    in this list. engine: a back-end by name (`ENGINES`), default `engine()`.
    """

    def __init__(self, meshes: list[Mesh], engine_name: str | None = None):
        self.size = len(meshes)
        self.triangles = int(sum(len(m.faces) for m in meshes))
        self.engine = engine_name or engine()
        self._backend = _BACKENDS[self.engine](meshes) if meshes else None

    def occluded(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """(n,) bool: whether rays origins (n, 3) along unit directions (n, 3) hit anything
        closer than lengths (n,)."""
        if self._backend is None or len(origins) == 0:
            return np.zeros(len(origins), dtype=bool)
        RayTally.rays += len(origins)
        return self._backend.occluded(origins, directions, lengths)

    def first_hit(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Closest hit of each ray within lengths (default unbounded).

        Returns distance (n,) float (inf where none) and mesh index (n,) int (-1 where none).
        """
        n = len(origins)
        if lengths is None:
            lengths = np.full(n, 1e30)
        if self._backend is None or n == 0:
            return np.full(n, np.inf), np.full(n, -1, dtype=np.int64)
        RayTally.rays += n
        return self._backend.first_hit(origins, directions, lengths)


_BACKENDS = {"embreex": _EmbreeBackend, "open3d": _Open3DBackend, "trimesh": _TrimeshBackend}


def segments(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions (n, 3) and lengths (n,) of the segments starts (n, 3) -> ends (n, 3)."""
    delta = np.asarray(ends, dtype=np.float64) - np.asarray(starts, dtype=np.float64)
    lengths = np.linalg.norm(delta, axis=1)
    safe = np.where(lengths > 0, lengths, 1.0)
    return delta / safe[:, None], lengths
