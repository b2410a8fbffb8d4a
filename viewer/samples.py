"""Small worlds built directly from trimesh primitives, for tests and quick pictures.

They do not go through the scene format (see `scenes`), so the viewer can be checked on its own.
"""

from __future__ import annotations

import numpy as np
import trimesh

from geometry.types import MM_PER_INCH, ModelVolume, TerrainGeometry
from geometry.world import World


def cylinder_volume(base_mm: float = 32.0, height: float = 1.6, eye: float | None = None,
                    sections: int = 24) -> ModelVolume:
    """A round-based cylinder model (local frame: base bottom at origin, facing +y)."""
    radius = base_mm / MM_PER_INCH / 2.0
    mesh = trimesh.creation.cylinder(radius=radius, height=height, sections=sections)
    mesh.apply_translation([0.0, 0.0, height / 2.0])
    eye_z = 0.9 * height if eye is None else eye
    return ModelVolume(mesh, np.zeros(len(mesh.faces), dtype=int), ("body",),
                       np.array([0.0, 0.0, eye_z]))


def box_terrain(lo, hi) -> TerrainGeometry:
    """An axis-aligned solid box from lo (3,) to hi (3,)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    mesh = trimesh.creation.box(extents=hi - lo)
    mesh.apply_translation((lo + hi) / 2.0)
    foot = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return TerrainGeometry(solid=mesh, stand=None, footprint=foot)


def wall_terrain(a, b, height: float, thickness: float = 0.5) -> TerrainGeometry:
    """A straight wall from plan point a to b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    mesh = trimesh.creation.box(extents=[length, thickness, height])
    angle = np.arctan2(*(b - a)[::-1])
    mesh.apply_transform(trimesh.transformations.rotation_matrix(angle, [0, 0, 1]))
    mesh.apply_translation([*(a + b) / 2.0, height / 2.0])
    d = (b - a) / length
    n = np.array([-d[1], d[0]]) * thickness / 2.0
    foot = np.array([a - n, b - n, b + n, a + n])
    return TerrainGeometry(solid=mesh, footprint=foot)


def forest_terrain(centre, radius: float, height: float = 6.0, trunks: int = 5,
                   seed: int = 1) -> TerrainGeometry:
    """A round wood: a few trunks (solid) and a canopy region (area) up to height."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(trunks):
        r = radius * 0.7 * np.sqrt(rng.random())
        t = rng.random() * 2 * np.pi
        trunk = trimesh.creation.cylinder(radius=0.35, height=height * 0.8, sections=10)
        trunk.apply_translation([centre[0] + r * np.cos(t), centre[1] + r * np.sin(t),
                                 height * 0.4])
        parts.append(trunk)
    area = trimesh.creation.cylinder(radius=radius, height=height, sections=32)
    area.apply_translation([centre[0], centre[1], height / 2.0])
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    foot = np.column_stack([centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)])
    return TerrainGeometry(solid=trimesh.util.concatenate(parts), area=area, footprint=foot)


def hill_terrain(centre, size, height: float) -> TerrainGeometry:
    """A flat-topped hill with sloped sides (a frustum), standable."""
    w, d = size
    bottom = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]])
    top = bottom * 0.7
    verts = np.vstack([np.column_stack([bottom, np.zeros(4)]),
                       np.column_stack([top, np.full(4, height)])])
    verts[:, :2] += np.asarray(centre, float)
    faces = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]]  # bottom (down), top (up)
    for i in range(4):
        j = (i + 1) % 4
        faces += [[i, j, j + 4], [i, j + 4, i + 4]]
    mesh = trimesh.Trimesh(verts, np.array(faces), process=False)
    return TerrainGeometry(solid=mesh, stand=mesh, footprint=bottom + np.asarray(centre, float))


def one_model_world(at=(36.0, 24.0), player: int = 1, table=(72.0, 48.0)) -> World:
    """An empty table with one model."""
    world = World(table)
    world.add_model("solo", cylinder_volume(), at, 0.0, player=player, unit="u1")
    return world


def wall_ahead_world(gap: float = 2.0, wall_height: float = 6.0) -> World:
    """A model at (36, 20) facing +y with a tall wide wall `gap` inches in front of its base."""
    world = World((72.0, 48.0))
    volume = cylinder_volume()
    radius = 32.0 / MM_PER_INCH / 2.0
    y = 20.0 + radius + gap
    world.add_terrain("wall", "wall", wall_terrain((20.0, y + 0.25), (52.0, y + 0.25),
                                                   wall_height))
    world.add_model("looker", volume, (36.0, 20.0), 0.0, player=1, unit="u1")
    return world


def skirmish_world() -> World:
    """A small battle: two players, a wall, a ruin-like block, a wood and a hill."""
    world = World((72.0, 48.0))
    world.add_terrain("wall-1", "wall", wall_terrain((10.0, 20.0), (22.0, 20.0), 2.5))
    world.add_terrain("block-1", "ruin", box_terrain((38.0, 26.0, 0.0), (44.0, 30.0, 5.0)))
    world.add_terrain("wood-1", "forest", forest_terrain((54.0, 18.0), 5.0))
    world.add_terrain("hill-1", "hill", hill_terrain((22.0, 34.0), (10.0, 8.0), 2.0))
    volume = cylinder_volume()
    big = cylinder_volume(60.0, 2.6)
    for i, x in enumerate((12.0, 16.0, 20.0, 30.0)):
        world.add_model(f"red-{i + 1}", volume, (x, 8.0), 0.0, player=1, unit="tac-1")
    world.add_model("red-boss", big, (36.0, 10.0), 0.0, player=1, unit="hq-1")
    for i, (x, y) in enumerate(((14.0, 30.0), (34.0, 38.0), (41.0, 36.0), (56.0, 20.0),
                                (64.0, 38.0), (22.0, 34.0))):
        world.add_model(f"blue-{i + 1}", volume, (x, y), 180.0, player=2, unit="ork-1")
    return world


SKIRMISH_DEPLOYMENT = {1: [[0, 0], [72, 0], [72, 12], [0, 12]],
                       2: [[0, 36], [72, 36], [72, 48], [0, 48]]}
