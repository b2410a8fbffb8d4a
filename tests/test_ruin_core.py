"""A ruin's core (its walls below their lowest windows, its ground slab) and overhang (the rest):
the core is a column, core and overhang together are the solid, and the sight casts that lean on
them (lower segments skipped where the core blocks) give the answers of the plain solid."""

import numpy as np
import pytest
from battlesight.geometry import polygon_ruins, ruins
from battlesight.geometry.mesh import as_trimesh
from battlesight.geometry.ray import RayScene
from battlesight.geometry.sightgrid.viewshed import SightTest, inside_closed, is_column, pair_sight
from battlesight.geometry.world import World

from tests.test_viewshed import small_world

RUINS = {
    "floors and windows": ruins.ruin((1.0, 2.0), (6, 4), 6, floors=(3,), rotation=0.4),
    "broken top": ruins.ruin((0.0, 0.0), (8, 5), 5, broken=True, seed=3, stair_gap=True,
                             floors=(2.5,)),
    "no windows": ruins.ruin((0.0, 0.0), (5, 5), 3, windows=False),
    "polygon": polygon_ruins.polygon_ruin([[0, 0], [9, 0], [9, 4], [4, 4], [4, 8], [0, 8]], 6,
                                  floors=(3,), broken=True, seed=1),
}


@pytest.mark.parametrize("name", list(RUINS))
def test_core_is_a_column_and_with_the_overhang_makes_the_solid(name):
    geom = RUINS[name]
    assert geom.core is not None and is_column(geom.core)
    assert as_trimesh(geom.core).is_watertight
    parts = [geom.core] + ([] if geom.overhang is None else [geom.overhang])
    volume = sum(as_trimesh(m).volume for m in parts)
    assert volume == pytest.approx(as_trimesh(geom.solid).volume, rel=1e-6)
    if name == "no windows":  # one storey, no windows: the core is the whole solid
        assert geom.overhang is None and is_column(geom.solid)
    else:
        assert not is_column(geom.solid) and as_trimesh(geom.overhang).is_watertight


@pytest.mark.parametrize("name", ["floors and windows", "broken top", "polygon"])
def test_core_and_overhang_block_what_the_solid_blocks(name):
    geom = RUINS[name]
    solid, core, over = (RayScene([m]) for m in (geom.solid, geom.core, geom.overhang))
    lo, hi = geom.solid.bounds
    rng = np.random.default_rng(7)
    ends = rng.uniform(lo - [2, 2, 0], hi + [2, 2, 1], size=(40000, 3))
    ends = ends[~inside_closed(solid, ends)]  # sight lines run between points outside
    a, b = ends[: len(ends) // 2], ends[len(ends) // 2: 2 * (len(ends) // 2)]
    delta, far = b - a, np.ones(len(a))
    by_core = core.occluded(a, delta, far)
    blocked = solid.occluded(a, delta, far)
    assert 0.05 < by_core.mean() < blocked.mean() < 0.95  # the sample crosses both parts
    assert np.array_equal(blocked, by_core | over.occluded(a, delta, far))
    # a line the core blocks stays blocked with either end lowered (not below the table)
    for low_a, low_b in ((0.4, 0.0), (0.0, 0.4), (0.3, 0.3)):
        a2 = a - [0, 0, low_a]
        b2 = b - [0, 0, low_b]
        keep = by_core & (a2[:, 2] >= 0) & (b2[:, 2] >= 0)
        keep &= ~inside_closed(solid, a2) & ~inside_closed(solid, b2)
        assert keep.sum() > 500
        assert solid.occluded(a2[keep], (b2 - a2)[keep], far[keep]).all()


def _without_cores(world: World) -> World:
    """The same world with the builders' cores forgotten: every block by a ruin is cast on."""
    plain = World(world.table)
    for name, entry in world.terrain.items():
        geom = entry.geometry
        geom_plain = type(geom)(solid=geom.solid, area=geom.area, stand=geom.stand,
                                floors=geom.floors, footprint=geom.footprint)
        plain.add_terrain(name, entry.kind, geom_plain)
    return plain


def test_pair_sight_with_cores_matches_the_plain_solid_with_fewer_segments():
    world = small_world()
    plain = _without_cores(world)
    assert any(e.geometry.core is not None for e in world.terrain.values())
    plan = np.mgrid[0.7:24:1.3, 0.6:24:1.3].reshape(2, -1).T
    foot = np.column_stack([plan, np.zeros(len(plan))])
    cells = np.arange(len(foot))[~inside_closed(world.solid_scene, foot + [0, 0, 1.4])]
    test = SightTest(pairs=((1.4, 1.4), (1.4, 0.85)))
    fast = pair_sight(world, foot, cells, cells[::3], test)
    slow = pair_sight(plain, foot, cells, cells[::3], test)
    assert np.array_equal(fast.sees, slow.sees) and np.array_equal(fast.seen, slow.seen)
    assert fast.segments < slow.segments
