"""A polygonal ruin's edges are numbered as the points are written, clockwise or not: its walls
stand on those edges and a refusal names those numbers."""

import numpy as np
import pytest
from battlesight.geometry.polygon_ruins import check_polygon_ruin, polygon_ruin
from battlesight.geometry.primitives import BuildInputError

# a pentagon with one short edge, from (10.3, 20) to (10, 19.8): edge 3 as written here
CCW = [[10, 10], [20, 10], [20, 20], [10.3, 20], [10, 19.8]]
CW = [[10, 19.8], [10.3, 20], [20, 20], [20, 10], [10, 10]]  # the same, reversed: edge 0


@pytest.mark.parametrize("points, edge", [(CCW, 3), (CW, 0)])
def test_short_edge_is_named_as_written(points, edge):
    with pytest.raises(BuildInputError) as err:
        check_polygon_ruin(points, 6)
    assert err.value.param == "walls"
    assert f"edge(s) [{edge}] are shorter" in str(err.value)
    assert "list the walled edges in walls" in str(err.value)
    others = [w for w in range(5) if w != edge]
    check_polygon_ruin(points, 6, walls=others)  # leaving it out builds


@pytest.mark.parametrize("points", [CCW, CW])
def test_walls_stand_on_the_edges_as_written(points):
    # the edge from (20, 10) to (20, 20) alone: a wall along x = 20, inside the outline
    pts = np.asarray(points, dtype=float)
    edge = next(i for i in range(5) if {tuple(pts[i]), tuple(pts[(i + 1) % 5])}
                == {(20.0, 10.0), (20.0, 20.0)})
    geom = polygon_ruin(points, 3, walls=[edge], windows=False)
    walls = geom.core.vertices[geom.core.vertices[:, 2] > 0.5]  # above the ground slab
    assert np.allclose(walls[:, 0].max(), 20.0) and walls[:, 0].min() == pytest.approx(19.75)
    assert walls[:, 1].min() >= 10 - 1e-9 and walls[:, 1].max() <= 20 + 1e-9


def test_the_floor_reaches_the_edges_without_walls():
    from battlesight.geometry.mesh import as_trimesh
    from battlesight.geometry.world import World

    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    ruin = polygon_ruin(square, 6, walls=[0])  # a wall on the south edge only
    slab = as_trimesh(ruin.stand)
    t, joint, st = 0.25, 1e-3, 0.2
    assert slab.volume == pytest.approx(10 * (10 - (t - joint)) * st, rel=1e-6)
    world = World((20.0, 20.0))
    world.add_terrain("r", "ruin", ruin)
    # just inside the open north and east edges there is floor, as on a rectangle's open side
    for at in ((5.0, 9.9), (9.9, 5.0)):
        assert world.stand_height(at, 0) == pytest.approx(st)
    walled = polygon_ruin(square, 6)  # every edge walled: the floor stops at the walls
    assert as_trimesh(walled.stand).volume == pytest.approx((10 - 2 * (t - joint)) ** 2 * st,
                                                           rel=1e-6)


def test_walls_that_cut_the_floor_apart_are_named():
    # two rooms joined by a 0.4" corridor, walled on both sides: no floor is left in it
    dumbbell = [[0, 0], [4, 0], [4, 1.8], [6, 1.8], [6, 0], [10, 0], [10, 4], [6, 4], [6, 2.2],
                [4, 2.2], [4, 4], [0, 4]]
    with pytest.raises(BuildInputError) as err:
        check_polygon_ruin(dumbbell, 6)
    assert err.value.param == "polygon" and "cut the ruin's floor into 2 pieces" in str(err.value)
    check_polygon_ruin(dumbbell, 6, walls=[0, 1, 3, 4, 5, 6, 7, 9, 10, 11])  # corridor open


def test_a_closed_ring_builds_the_open_one():
    from battlesight.geometry.mesh import as_trimesh

    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    closed = square + [[0, 0]]  # GeoJSON writes the first point again at the end
    for walls in (None, [0, 2]):
        a, b = polygon_ruin(square, 6, walls=walls), polygon_ruin(closed, 6, walls=walls)
        assert np.array_equal(a.footprint, b.footprint)
        assert as_trimesh(b.solid).volume == pytest.approx(as_trimesh(a.solid).volume)
    with pytest.raises(BuildInputError) as err:
        check_polygon_ruin(closed, 6, walls=[4])  # the closing point is no edge
    assert err.value.param == "walls" and "from 0 to 3" in str(err.value)
