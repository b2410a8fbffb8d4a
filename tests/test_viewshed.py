"""geometry.viewshed: standing grid, parity tests, canopy crossing lengths, and batched pair
sight against a brute-force reference (one segment per pair and height pair)."""

import numpy as np
import pytest
from battlesight.geometry import planar, ruins, terrain
from battlesight.geometry.ray import RayScene
from battlesight.geometry.sightgrid.viewshed import (
    SightTest,
    crossing_lengths,
    grid_centres,
    inside_closed,
    is_column,
    pair_sight,
    stand_surface,
    standing_grid,
)
from battlesight.geometry.world import World

FOREST = [[14, 4], [20, 4], [20, 10], [14, 10]]


def small_world() -> World:
    """A 24" table with one piece of each kind, placed off the grid lines so that no sight
    segment between cell centres grazes an edge exactly (where the direction of a cast can
    decide a tie)."""
    world = World((24.0, 24.0))
    world.add_terrain("wall", "wall", terrain.wall((2.13, 12.07), (9.21, 12.31), 2.5))
    world.add_terrain("box", "box", terrain.box((17.07, 16.93), (3, 3, 4), 20))
    world.add_terrain("hill", "hill", terrain.hill((6.11, 19.03), (6, 4), 2.0, 7))
    world.add_terrain("ruin", "ruin", ruins.ruin((12.09, 6.13), (6, 4), 6, floors=(3,),
                                                  walls=("north", "west"), windows=True,
                                                  rotation=3.1))
    world.add_terrain("wood", "forest", terrain.forest(FOREST, 5, trunks=[[17.03, 7.11]]))
    return world


def brute_force(world, foot, rows, cols, test):
    """sees[i, j] by World.blocked on every segment, float32 end points as pair_sight has."""
    r, c = len(rows), len(cols)
    sees = np.zeros((r, c), dtype=bool)
    seen = np.zeros((r, c), dtype=bool)
    a, b = np.repeat(rows, c), np.tile(cols, r)
    f32 = foot.astype(np.float32)
    for hs, ht in test.pairs:
        for src, dst, out in ((a, b, sees), (b, a, seen)):
            starts = f32[src].copy()
            starts[:, 2] += np.float32(hs)
            ends = f32[dst].copy()
            ends[:, 2] += np.float32(ht)
            out |= ~world.blocked(starts, ends).reshape(r, c)
    return sees, seen


def test_grid_centres_cover_the_table_and_match_field_layout():
    xs, ys = grid_centres((72, 48), 1.0)
    assert len(xs) == 72 and len(ys) == 48 and xs[0] == 0.5 and ys[-1] == 47.5
    xs, ys = grid_centres((10, 10), 3.0)  # stretched to fit: 4 cells of 2.5"
    assert np.allclose(xs, [1.25, 3.75, 6.25, 8.75])
    with pytest.raises(ValueError):
        grid_centres((10, 10), 0)


def test_standing_grid_stands_on_tops_and_floors_and_skips_solids():
    world = small_world()
    z = stand_surface(world, np.array([[17, 17], [12, 6.5], [20, 22], [6, 19]]))
    assert z[0] == pytest.approx(4.0)  # box top
    assert z[1] == pytest.approx(world.terrain["ruin"].floors[0])  # ruin ground floor
    assert z[2] == 0.0
    assert z[3] == pytest.approx(2.0, abs=0.05)  # hill top
    grid = standing_grid(world, 0.5, heights=(0.05, 1.4))
    idx = np.argmin(np.linalg.norm(grid.plan - [5.25, 12.25], axis=1))
    assert grid.plan[idx].tolist() == [5.25, 12.25] and not grid.standable[idx]  # in the wall
    assert grid.standable.mean() > 0.9
    assert grid.field(np.ones(len(grid.foot))).shape == (48, 48)


def test_inside_closed_and_is_column():
    box = terrain.box((0, 0), (2, 2, 2)).solid
    scene = RayScene([box])
    inside = inside_closed(scene, np.array([[0, 0, 1], [0, 0, 3], [1.5, 0, 1], [0.9, 0.9, 0.1]]))
    assert inside.tolist() == [True, False, False, True]
    assert is_column(box) and is_column(terrain.hill((0, 0), (4, 3), 2).solid)
    assert is_column(terrain.wall((0, 0), (4, 0), 2).solid)
    assert not is_column(ruins.ruin((0, 0), (6, 4), 6, floors=(3,), windows=True).solid)


def test_crossing_lengths_through_a_forest_prism():
    world = small_world()
    area = world.area_scene
    origins = np.array([[10.0, 7.0, 1.0], [10.0, 7.0, 1.0], [17.0, 7.0, 1.0], [10, 2, 1.0]])
    ends = np.array([[24.0, 7.0, 1.0], [17.0, 7.0, 1.0], [24.0, 7.0, 1.0], [24, 2, 1.0]])
    delta = ends - origins
    lengths = np.linalg.norm(delta, axis=1)
    inside = inside_closed(area, origins)
    assert inside.tolist() == [False, False, True, False]
    got = crossing_lengths(area, origins, delta / lengths[:, None], lengths, inside)
    assert got == pytest.approx([6.0, 3.0, 3.0, 0.0], abs=1e-3)
    # followed only until more than `enough` is crossed: the rest are exact
    enough = np.array([1.0, 5.0, 0.5, 1.0])
    cut = crossing_lengths(area, origins, delta / lengths[:, None], lengths, inside, enough)
    assert cut[0] > 1.0 and cut[2] > 0.5 and cut[[1, 3]] == pytest.approx([3.0, 0.0], abs=1e-3)


@pytest.mark.parametrize("canopy", [None, 2.5])
def test_pair_sight_equals_brute_force(canopy):
    world = small_world()
    grid = standing_grid(world, 2.0, heights=(0.05, 1.4))
    rows = np.flatnonzero(grid.standable)
    cols = rows[(grid.plan[rows, 1] < 6) | (grid.plan[rows, 1] > 18)]
    test = SightTest(((1.4, 1.4), (1.4, 0.85), (0.85, 1.4)), canopy_limit=canopy)
    got = pair_sight(world, grid.foot, rows, cols, test)
    if canopy is None:
        sees, seen = brute_force(world, grid.foot, rows, cols, test)
        assert np.array_equal(got.sees, sees) and np.array_equal(got.seen, seen)
        assert 0.2 < sees.mean() < 0.95  # the layout hides some pairs, not all
    else:
        free = pair_sight(world, grid.foot, rows, cols, SightTest(test.pairs))
        assert not (got.sees & ~free.sees).any()  # a canopy limit only ever removes sight
        assert (free.sees & ~got.sees).any()
    # rows that are also columns are cast once: sight of column a to b is one matrix
    pos = {c: k for k, c in enumerate(cols)}
    for i, cell in enumerate(rows):
        if cell in pos:
            assert np.array_equal(got.sees[i], got.seen[np.searchsorted(rows, cols), pos[cell]])


def test_pair_sight_symmetric_and_empty():
    world = small_world()
    grid = standing_grid(world, 3.0)
    rows = np.flatnonzero(grid.standable)
    test = SightTest(((1.75, 1.75), (1.75, 0.9)), canopy_limit=3.0, symmetric=True)
    got = pair_sight(world, grid.foot, rows, rows[:10], test)
    assert np.array_equal(got.sees, got.seen)
    empty = pair_sight(world, grid.foot, rows[:0], rows, test)
    assert empty.sees.shape == (0, len(rows)) and empty.segments == 0


def test_wall_across_the_table_hides_one_half_from_the_other():
    world = World((24.0, 24.0))
    world.add_terrain("w", "wall", terrain.wall((0, 12), (24, 12), 3.0))
    grid = standing_grid(world, 2.0)
    low = np.flatnonzero(grid.plan[:, 1] < 12)
    high = np.flatnonzero(grid.plan[:, 1] > 12)
    got = pair_sight(world, grid.foot, low, high, SightTest(((1.4, 1.4), (1.4, 0.85))))
    assert not got.sees.any() and not got.seen.any()
    same = pair_sight(world, grid.foot, low, low, SightTest(((1.4, 1.4),)))
    assert same.sees.all()
    assert planar.covers(grid.plan[low], [[0, 0], [24, 0], [24, 12], [0, 12]]).all()
