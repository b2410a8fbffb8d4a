"""The project's triangle mesh: vertices and faces, and trimesh's algorithms on demand.

Every builder makes its meshes with `make_mesh` (`primitives`), and what the world, the ray
engine, the plan outline and the drawing read of a mesh is its arrays: `vertices`, `faces`,
`bounds`, `triangles`, `face_normals`. A `Mesh` holds just those, so a command that only casts
rays never imports trimesh: trimesh imports scipy.spatial, scipy.optimize and scipy.sparse at
its own import, about 0.45 s of every command's 0.85 s start on this machine. Anything more
(volume, watertightness, splitting, export) is trimesh's: `as_trimesh(mesh)` gives a
trimesh.Trimesh of the same arrays (made once per mesh, nothing merged or repaired), and
`volume`, `is_watertight` and `is_winding_consistent` ask it. Meshes read from files are
trimesh's own objects; both kinds have the arrays the hot path reads, so either may stand
wherever a mesh does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import trimesh


class Mesh:
    """A triangle mesh: vertices (n, 3) float64, faces (m, 3) int64, exactly as given."""

    __slots__ = ("vertices", "faces", "_bounds", "_trimesh")

    def __init__(self, vertices: Any, faces: Any):
        self.vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
        self.faces = np.ascontiguousarray(faces, dtype=np.int64).reshape(-1, 3)
        self._bounds: np.ndarray | None = None
        self._trimesh: trimesh.Trimesh | None = None

    def __repr__(self) -> str:
        return f"<Mesh vertices={len(self.vertices)} faces={len(self.faces)}>"

    def __getstate__(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vertices, self.faces

    def __setstate__(self, state: tuple[np.ndarray, np.ndarray]) -> None:
        self.vertices, self.faces = state
        self._bounds = self._trimesh = None

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) lowest and highest corner of the vertices the faces use."""
        if self._bounds is None:
            used = self.vertices
            if len(self.faces):  # the vertices the faces use, as trimesh's bounds
                used = used[np.bincount(self.faces.ravel(), minlength=len(used)) > 0]
            self._bounds = np.array([used.min(axis=0), used.max(axis=0)]) if len(used) \
                else np.zeros((2, 3))
        return self._bounds

    @property
    def extents(self) -> np.ndarray:
        """(3,) size of `bounds` along x, y, z."""
        return np.ptp(self.bounds, axis=0)

    @property
    def triangles(self) -> np.ndarray:
        """(m, 3, 3) the corners of every face."""
        return self.vertices[self.faces]

    @property
    def triangles_center(self) -> np.ndarray:
        """(m, 3) the centroid of every face."""
        return self.triangles.mean(axis=1)

    def _face_cross(self) -> np.ndarray:
        """(m, 3) cross product of every face's two edges from its first corner."""
        tri = self.triangles
        return np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])

    @property
    def face_normals(self) -> np.ndarray:
        """(m, 3) unit normal of every face by its winding (zero for a degenerate face)."""
        cross = self._face_cross()
        length = np.linalg.norm(cross, axis=1)
        return np.divide(cross, length[:, None], out=np.zeros_like(cross),
                         where=length[:, None] > 0)

    @property
    def area_faces(self) -> np.ndarray:
        """(m,) area of every face."""
        return 0.5 * np.linalg.norm(self._face_cross(), axis=1)

    def copy(self) -> Mesh:
        """A mesh of copies of the arrays."""
        return Mesh(self.vertices.copy(), self.faces.copy())

    @property
    def volume(self) -> float:
        """Enclosed volume (trimesh's)."""
        return float(as_trimesh(self).volume)

    @property
    def is_watertight(self) -> bool:
        """Every edge shared by exactly two faces (trimesh's)."""
        return bool(as_trimesh(self).is_watertight)

    @property
    def is_winding_consistent(self) -> bool:
        """Neighbouring faces wound the same way (trimesh's)."""
        return bool(as_trimesh(self).is_winding_consistent)


def shells(mesh: Mesh) -> list[Mesh]:
    """The mesh cut where its faces stop sharing vertices with the faces before them: one mesh
    per shell of a mesh concatenated from closed shells (`primitives.concatenate` keeps each
    shell's vertices and faces in one block; shells stored interleaved stay together). Each
    part keeps all the vertices, its faces only."""
    faces = mesh.faces
    if not len(faces):
        return []
    reach = np.maximum.accumulate(faces.max(axis=1))
    starts = np.flatnonzero(faces.min(axis=1)[1:] > reach[:-1]) + 1
    return [Mesh(mesh.vertices, part) for part in np.split(faces, starts)]


def as_trimesh(mesh: Mesh | trimesh.Trimesh) -> trimesh.Trimesh:
    """The trimesh.Trimesh of a mesh (the same arrays, `process=False`; a Trimesh is itself),
    for trimesh's algorithms. Imports trimesh (and scipy) on first use."""
    if not isinstance(mesh, Mesh):
        return mesh
    if mesh._trimesh is None:
        import trimesh

        mesh._trimesh = trimesh.Trimesh(vertices=mesh.vertices, faces=mesh.faces, process=False)
    return mesh._trimesh
