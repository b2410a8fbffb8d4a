"""Plain geometry records passed between the builders, the world and the viewer.

Everything is in inches, right-handed, z up; the table top is z = 0. A model's local frame has
the bottom of its base at the origin and looks along +y (facing 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .mesh import Mesh

MM_PER_INCH = 25.4


@dataclass
class TerrainGeometry:
    """What one terrain piece contributes to the world, already placed on the table.

    solid:     closed mesh that blocks sight (walls, slabs, hill bodies, trunks); None if nothing.
    area:      closed volume that does not block sight but is reported when crossed (a forest's
               canopy region); None if the piece has none.
    stand:     the surfaces a model may stand on (hill tops, box tops, a ruin's ground slab); None
               where models stand on the table inside the piece.
    floors:    z of each walkable level of a ruin or building, ground level first; () otherwise.
    footprint: (k, 2) polygon of the piece on the table, counter-clockwise.
    core:      closed mesh inside solid that fills, above each point of its plan, the table up to
               its top (a ruin's ground slab and walls below their lowest windows); None where
               the builder knows none. A sight line it blocks stays blocked with either end
               lowered, as one a column (`geometry.viewshed.is_column`) blocks.
    overhang:  with a core, the closed mesh of the rest of solid (solid is core and overhang
               together: a ruin's upper slabs and walls from their lowest windows up); None
               where the core is the whole solid, or there is no core.
    """

    solid: Mesh | None
    area: Mesh | None = None
    stand: Mesh | None = None
    floors: tuple[float, ...] = ()
    footprint: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    core: Mesh | None = None
    overhang: Mesh | None = None
    _shape: tuple = field(default=(None, None), init=False, repr=False, compare=False)

    @property
    def shape(self):
        """The footprint as a prepared shapely polygon (`planar.shape`), built once and
        rebuilt only when `footprint` is replaced (a builder that already has the outline as a
        shapely geometry hands it over with `set_shape`)."""
        if self._shape[0] is not self.footprint:
            from .planar import shape

            self._shape = (self.footprint, shape(self.footprint))
        return self._shape[1]

    def set_shape(self, polygon) -> None:
        """Keep a shapely geometry of the current `footprint` (e.g. a mesh's true outline
        from a union of its triangles) instead of building one from the array."""
        from .planar import shape

        self._shape = (self.footprint, shape(polygon))


@dataclass
class ModelVolume:
    """A model's volume in its local frame (base bottom at origin, facing +y).

    mesh:       closed mesh of the whole volume.
    face_part:  (n_faces,) int index into part_names for every face of mesh.
    part_names: labels such as 'base', 'body', 'legs', 'torso', 'arms', 'head', 'weapon', 'banner'.
    eye:        (3,) eye point in the local frame.
    """

    mesh: Mesh
    face_part: np.ndarray
    part_names: tuple[str, ...]
    eye: np.ndarray

    def faces_of(self, parts: set[str] | None) -> np.ndarray:
        """Indices of the faces whose part is in parts (all faces when parts is None)."""
        if parts is None:
            return np.arange(len(self.mesh.faces))
        keep = np.array([name in parts for name in self.part_names], dtype=bool)
        return np.flatnonzero(keep[self.face_part])
