"""Small worlds built straight from geometry records, for engine tests."""

from __future__ import annotations

import numpy as np
import trimesh

from geometry.types import ModelVolume, TerrainGeometry
from geometry.world import World


def cylinder_volume(radius: float, height: float, eye: float) -> ModelVolume:
    """An upright cylinder volume standing on the origin, eye on its axis."""
    mesh = trimesh.creation.cylinder(radius=radius, height=height, sections=64)
    mesh.apply_translation([0, 0, height / 2])
    return ModelVolume(mesh, np.zeros(len(mesh.faces), int), ("body",), np.array([0, 0, eye]))


def cylinder_world(
    positions: list[tuple[float, float]], radius: float, height: float, eye: float
) -> World:
    """A world with cylinder models m0, m1, ... at the given plan positions."""
    world = World((72.0, 48.0))
    volume = cylinder_volume(radius, height, eye)
    for i, at in enumerate(positions):
        world.add_model(f"m{i}", volume, at, facing=0.0, player=1 + i % 2, unit=f"u{i}")
    return world


def wall_geometry(
    x: float, height: float, thickness: float, centre_y: float = 0.0, width: float = 40.0
) -> TerrainGeometry:
    """A wall across the x axis at x, spanning y in centre_y +- width / 2."""
    box = trimesh.creation.box([thickness, width, height])
    box.apply_translation([x, centre_y, height / 2])
    return TerrainGeometry(box)
