"""Small worlds built directly with the geometry builders, for the drawing tests.

They do not go through the scene format (see `tests/tables.py` for tables that do), so the
viewer can be checked on its own.
"""

from __future__ import annotations

import numpy as np
from battlesight.geometry import terrain, volumes
from battlesight.geometry.plan import ellipse, to_table
from battlesight.geometry.types import MM_PER_INCH, ModelVolume, TerrainGeometry
from battlesight.geometry.world import World


def cylinder_volume(base_mm: float = 32.0, height: float = 1.6,
                    eye: float | None = None) -> ModelVolume:
    """A round-based cylinder model (local frame: base bottom at origin, facing +y)."""
    return volumes.cylinder_volume(base_mm, height, eye)


def box_terrain(lo, hi) -> TerrainGeometry:
    """A solid box from lo (3,) to hi (3,), standing on the table (lo z = 0)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return terrain.box((lo[:2] + hi[:2]) / 2.0, hi - lo)


def wall_terrain(a, b, height: float, thickness: float = 0.5) -> TerrainGeometry:
    """A straight wall from plan point a to b."""
    return terrain.wall(a, b, height, thickness)


def forest_terrain(centre, radius: float, height: float = 6.0, trunks: int = 5,
                   seed: int = 1) -> TerrainGeometry:
    """A round wood: a few trunks (solid) and a canopy region (area) up to height."""
    circle = to_table(ellipse(radius, radius, 32), centre)
    return terrain.forest(circle, height, trunks, seed)


def hill_terrain(centre, size, height: float) -> TerrainGeometry:
    """A flat-topped hill with sloped flanks, standable."""
    return terrain.hill(centre, size, height)


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

