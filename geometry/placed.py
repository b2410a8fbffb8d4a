"""What the world holds: terrain entries and placed models, each owned by its id.

A placed model keeps its volume in world coordinates, its eye, and small ray scenes of its own
(to find where rays leave it, and where they meet the parts that count as the target): those
are its volume's scenes in the volume's own frame, built once per volume and shared by every
model of that shape, with the rays moved into the model's frame (`LocalScene`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .mesh import Mesh
from .plan import rotation_2d
from .primitives import make_mesh, transform
from .ray import RayScene
from .types import ModelVolume, TerrainGeometry

#: Distance kept from surfaces at both ends of a segment, so grazing hits at the very end
#: points (the observer's skin, the target's skin) never count as blocking.
EPSILON = 1e-4


@dataclass
class TerrainEntry:
    """A terrain piece in the world: its id, kind (scene type) and rules data verbatim."""

    id: str
    kind: str
    geometry: TerrainGeometry
    data: dict = field(default_factory=dict)

    @property
    def floors(self) -> tuple[float, ...]:
        return self.geometry.floors


def volume_scene(volume: ModelVolume, parts: frozenset[str] | None) -> RayScene:
    """The ray scene of a volume's parts (all when None) in its own frame, built once per
    volume (volumes are shared by the models of one shape and size)."""
    cache = volume.__dict__.setdefault("_scenes", {})
    if parts not in cache:
        if parts is None:
            cache[parts] = RayScene([volume.mesh])
        else:
            faces = volume.faces_of(set(parts))
            # the parts' faces over all the volume's vertices (Embree ignores unused ones)
            cache[parts] = RayScene([make_mesh(volume.mesh.vertices, volume.mesh.faces[faces])]
                                    if len(faces) else [])
    return cache[parts]


def volume_part_vertices(volume: ModelVolume, parts: frozenset[str] | None) -> np.ndarray:
    """(k, 3) vertices of a volume's parts (all when None) in its own frame, found once per
    volume (shared by the models of one shape and size, as `volume_scene`)."""
    cache = volume.__dict__.setdefault("_part_vertices", {})
    if parts not in cache:
        faces = volume.faces_of(None if parts is None else set(parts))
        cache[parts] = volume.mesh.vertices[np.unique(volume.mesh.faces[faces])]
    return cache[parts]


class LocalScene:
    """A volume's ray scene seen from the table: rays (n, 3) in table coordinates are moved
    into the model's frame by the inverse of its rigid transform (distances are kept), so one
    scene serves every model of that volume. Same answers as `RayScene`."""

    def __init__(self, scene: RayScene, transform: np.ndarray):
        self.scene = scene
        self._rotation = np.asarray(transform[:3, :3], dtype=np.float64)
        self._position = np.asarray(transform[:3, 3], dtype=np.float64)

    def _local(self, origins, directions) -> tuple[np.ndarray, np.ndarray]:
        # row vectors: R^T (o - p) is (o - p) @ R
        o = (np.asarray(origins, dtype=np.float64) - self._position) @ self._rotation
        return o, np.asarray(directions, dtype=np.float64) @ self._rotation

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        return self.scene.occluded(*self._local(origins, directions), lengths)

    def first_hit(self, origins, directions, lengths=None) -> tuple[np.ndarray, np.ndarray]:
        return self.scene.first_hit(*self._local(origins, directions), lengths)


def first_hits_at(scenes: list[LocalScene], counts: np.ndarray, origins: np.ndarray,
                  directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First hit of many rays (table coordinates, (n, 3)), each at its own model's scene: the
    first counts[0] rays at scenes[0], the next counts[1] at scenes[1], ... The scenes of one
    volume share its RayScene, so their rays go in one engine call, each ray moved into its
    own model's frame (row by row: the same numbers in any batch). Returns LocalScene's
    (distance (n,), mesh index (n,))."""
    counts = np.asarray(counts, dtype=np.int64)
    dist = np.full(len(origins), np.inf)
    geom = np.full(len(origins), -1, dtype=np.int64)
    if not len(origins):
        return dist, geom
    owner = np.repeat(np.arange(len(scenes)), counts)
    number: dict[int, int] = {}  # id of a shared RayScene -> its number
    engines: list[RayScene] = []
    for s in scenes:
        if number.setdefault(id(s.scene), len(engines)) == len(engines):
            engines.append(s.scene)
    rotation = np.array([s._rotation for s in scenes])[owner]
    local_o = _times_rows(np.asarray(origins, dtype=np.float64)
                          - np.array([s._position for s in scenes])[owner], rotation)
    local_d = _times_rows(np.asarray(directions, dtype=np.float64), rotation)
    key = np.array([number[id(s.scene)] for s in scenes])[owner]
    for k, engine in enumerate(engines):
        rays = slice(None) if len(engines) == 1 else np.flatnonzero(key == k)
        dist[rays], geom[rays] = engine.first_hit(local_o[rays], local_d[rays])
    return dist, geom


def _times_rows(vectors: np.ndarray, matrices: np.ndarray) -> np.ndarray:
    """(n, 3) row vectors times their own (n, 3, 3) matrices, component by component."""
    return (vectors[:, :1] * matrices[:, 0] + vectors[:, 1:2] * matrices[:, 1]
            + vectors[:, 2:] * matrices[:, 2])


@dataclass
class PlacedModel:
    """A model volume placed on the table.

    position: (3,) centre of the bottom of its base in the world; facing: degrees.
    """

    id: str
    volume: ModelVolume
    position: np.ndarray
    facing: float
    player: int | None = None
    unit: str | None = None
    data: dict = field(default_factory=dict)

    @cached_property
    def transform(self) -> np.ndarray:
        """(4, 4) local-to-world matrix."""
        matrix = np.eye(4)
        matrix[:2, :2] = rotation_2d(self.facing)
        matrix[:3, 3] = self.position
        return matrix

    @cached_property
    def mesh(self) -> Mesh:
        """The volume in world coordinates."""
        return transform(self.volume.mesh, self.transform)

    @cached_property
    def eye(self) -> np.ndarray:
        """(3,) eye point in world coordinates."""
        return self.transform[:3, :3] @ self.volume.eye + self.position

    @cached_property
    def eye_inside(self) -> bool:
        """Whether the model's own eye lies inside its volume (rays then start where they
        leave it)."""
        return bool(self.contains(self.eye[None])[0])

    def part_vertices(self, parts: frozenset[str] | None) -> np.ndarray:
        """(k, 3) world vertices of the given parts (all when None), cached: they bound the
        silhouette of those parts from any eye."""
        cache = self.__dict__.setdefault("_part_vertices", {})
        if parts not in cache:  # the volume's own vertices moved: no copy of the whole mesh
            local = volume_part_vertices(self.volume, parts)
            cache[parts] = local @ self.transform[:3, :3].T + self.transform[:3, 3]
        return cache[parts]

    @cached_property
    def ray_scene(self) -> LocalScene:
        """This model alone, for finding where rays leave it and where they meet it."""
        return self.part_scene(None)

    def part_scene(self, parts: frozenset[str] | None) -> LocalScene:
        """The faces of the given parts alone (all faces when parts is None), cached."""
        cache = self.__dict__.setdefault("_part_scenes", {})
        if parts not in cache:
            cache[parts] = LocalScene(volume_scene(self.volume, parts), self.transform)
        return cache[parts]

    def contains(self, points: np.ndarray) -> np.ndarray:
        """(n,) bool: which points (n, 3) lie inside the volume (ray parity along +z)."""
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        count = np.zeros(len(pts), dtype=int)
        origin = pts.copy()
        up = np.tile([0.0, 0.0, 1.0], (len(pts), 1))
        alive = np.ones(len(pts), dtype=bool)
        for _ in range(64):
            if not alive.any():
                break
            dist, geom = self.ray_scene.first_hit(origin[alive], up[alive])
            hit = geom >= 0
            idx = np.flatnonzero(alive)
            count[idx[hit]] += 1
            origin[idx[hit], 2] += dist[hit] + EPSILON
            alive[idx[~hit]] = False
        return count % 2 == 1
