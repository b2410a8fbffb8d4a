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
