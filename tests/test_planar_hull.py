"""The formation hull (GEOS through shapely) runs on every shapely the project accepts."""

from __future__ import annotations

import numpy as np
import shapely
from battlesight.geometry import planar


def _area(ring: np.ndarray) -> float:
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_convex_hull_needs_no_shapely_2_1(monkeypatch):
    monkeypatch.delattr(shapely, "orient_polygons", raising=False)  # pyproject: shapely>=2
    points = np.random.default_rng(3).uniform(0, 10, size=(200, 2))
    ring = planar.convex_hull(points)
    assert _area(ring) > 0  # counter-clockwise
    assert np.isclose(_area(ring), shapely.convex_hull(shapely.multipoints(points)).area)
    np.testing.assert_array_equal(planar.convex_hull([[0, 0], [1, 1], [3, 3], [2, 2]]),
                                  [[0, 0], [3, 3]])
