"""The true plan outline of a mesh: the union of its triangles seen from above, on shapely 2.

Why not a union of every projected triangle: on a 1M-face mesh `shapely.union_all` of the
triangles takes over ten seconds. The same region comes from far less work:

1. Seen from above, a closed mesh covers exactly what its upward-facing triangles cover (every
   covered point has a topmost surface point, and that surface faces up), so only those
   triangles count; they run counter-clockwise in plan.
2. The number of those triangles covering a plan point (its winding number) is a sum over
   their directed edges, and an edge a->b cancels an edge b->a exactly: the edges inside each
   storey, roof or ledge cancel, and only the outlines of the layers are left (a few thousand
   edges for a million faces). Cancelling is exact in plan, whatever the heights, so a mesh
   whose vertices are not shared (STL) or that has T-junctions still gives the right count.
3. Those edges are noded and polygonised (`shapely.polygonize`); each face of that planar map
   is inside the outline when its winding number, taken at one point of it, is positive.
4. The faces inside are unioned (they tile the plane, so `shapely.coverage_union_all` applies)
   and simplified to OUTLINE_TOLERANCE. Before all this the plan coordinates are snapped to a
   grid of half the tolerance, so folds of a scanned or noisy surface finer than the
   tolerance (which would leave many edges) vanish.

The result is a Polygon or MultiPolygon, holes kept (a courtyard). Rules that need one ring
take `largest_ring` (the exterior of the largest part, holes dropped); areas come from the
whole geometry. `triangles_union` is steps 2 to 4 for any plan triangles (a storey's floor,
whose room test in `geometry.floors` unioned 300k triangles in 1.5 s with `union_all`).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

__all__ = ["OUTLINE_TOLERANCE", "largest_ring", "plan_outline", "ring_of", "triangles_union"]

#: Douglas-Peucker tolerance of the simplified outline, inches (a quarter of a millimetre).
OUTLINE_TOLERANCE = 0.01
#: Pairs of (probe point, edge) tested at once when counting windings (bounds the memory).
_CHUNK = 4_000_000


def _snapped(points: np.ndarray, tolerance: float) -> np.ndarray:
    """Plan points (float64) on a grid of half the tolerance (unchanged when it is 0)."""
    points = np.asarray(points, dtype=np.float64)
    if tolerance > 0:  # corners closer than the tolerance merge: folds finer than it vanish
        step = 0.5 * tolerance
        points = np.round(points / step) * step
    return points


def _twice_areas(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Twice the signed plan area of each triangle x (m, 3), y (m, 3), and the smallest one
    that counts (below it a triangle is seen edge-on: rounding noise of its size)."""
    area2 = (x[:, 1] - x[:, 0]) * (y[:, 2] - y[:, 0]) - (x[:, 2] - x[:, 0]) * (y[:, 1] - y[:, 0])
    span = max(float(np.ptp(x)), float(np.ptp(y))) if len(x) else 0.0
    return area2, 1e-12 * span * span


def _net_edges(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The directed plan edges left after a->b cancels b->a: starts (e, 2), ends (e, 2) and
    multiplicity (e,) (an outline shared by two storeys counts twice)."""
    pts = np.empty(x.size, dtype=np.complex128)
    pts.real, pts.imag = x.ravel(), y.ravel()
    corners, vid = np.unique(pts, return_inverse=True)
    vid = vid.reshape(-1, 3).astype(np.int64)
    a, b = vid.ravel(), vid[:, [1, 2, 0]].ravel()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n = np.int64(len(corners))
    keys, inverse = np.unique(lo * n + hi, return_inverse=True)
    net = np.bincount(inverse, weights=np.where(a < b, 1.0, -1.0), minlength=len(keys))
    net = np.rint(net).astype(np.int64)
    kept = net != 0
    keys, net = keys[kept], net[kept]
    first, second = keys // n, keys % n
    start = np.where(net > 0, first, second)
    end = np.where(net > 0, second, first)
    xy = np.column_stack([corners.real, corners.imag])
    return xy[start], xy[end], np.abs(net)


def _windings(probe: np.ndarray, starts: np.ndarray, ends: np.ndarray,
              mult: np.ndarray) -> np.ndarray:
    """(p,) winding number of each probe point (p, 2) about the directed edges: signed
    crossings of the ray from the point towards +x (half-open in y, so a vertex counts once)."""
    order = np.argsort(probe[:, 1], kind="stable")
    py = probe[order, 1]
    ylo = np.minimum(starts[:, 1], ends[:, 1])
    yhi = np.maximum(starts[:, 1], ends[:, 1])
    first = np.searchsorted(py, ylo, "left")
    count = np.searchsorted(py, yhi, "left") - first
    out = np.zeros(len(probe))
    edge_ids = np.arange(len(starts))
    total = np.cumsum(count)
    inner = np.searchsorted(total, np.arange(_CHUNK, total[-1] if len(total) else 0, _CHUNK))
    cut = np.unique(np.concatenate([[0], inner, [len(starts)]]))
    for lo_e, hi_e in zip(cut[:-1], cut[1:], strict=True):
        if hi_e <= lo_e:
            continue
        c = count[lo_e:hi_e]
        e = np.repeat(edge_ids[lo_e:hi_e], c)
        offsets = np.arange(c.sum()) - np.repeat(np.cumsum(c) - c, c)
        p = order[np.repeat(first[lo_e:hi_e], c) + offsets]
        a, b = starts[e], ends[e]
        t = (probe[p, 1] - a[:, 1]) / (b[:, 1] - a[:, 1])
        right = a[:, 0] + t * (b[:, 0] - a[:, 0]) > probe[p, 0]
        sign = np.where(b[:, 1] > a[:, 1], 1.0, -1.0) * mult[e]
        out += np.bincount(p[right], weights=sign[right], minlength=len(probe))
    return out


def plan_outline(vertices: np.ndarray, faces: np.ndarray,
                 tolerance: float = OUTLINE_TOLERANCE) -> BaseGeometry:
    """The region a mesh covers seen from above (see the module docstring), simplified to
    `tolerance` inches: a shapely Polygon or MultiPolygon, empty when nothing faces up.

    The mesh should be closed (as the world's solids are); of an open mesh only the surfaces
    facing up count."""
    plan = _snapped(np.asarray(vertices)[:, :2], tolerance)
    faces = np.asarray(faces)
    x, y = plan[:, 0][faces], plan[:, 1][faces]
    area2, least = _twice_areas(x, y)
    up = area2 > least
    return _union_of_up(x[up], y[up], tolerance)


def triangles_union(triangles: np.ndarray, tolerance: float = OUTLINE_TOLERANCE
                    ) -> BaseGeometry:
    """The union of plan triangles (m, 3, 2) of either winding, as `plan_outline` finds it
    (snapped and simplified to `tolerance`): a Polygon or MultiPolygon, empty for none."""
    tri = _snapped(np.asarray(triangles).reshape(-1, 3, 2), tolerance)
    x, y = tri[:, :, 0].copy(), tri[:, :, 1].copy()
    area2, least = _twice_areas(x, y)
    down = area2 < -least
    x[down], y[down] = x[down][:, ::-1], y[down][:, ::-1]  # all counter-clockwise
    kept = down | (area2 > least)
    return _union_of_up(x[kept], y[kept], tolerance)


def _union_of_up(x: np.ndarray, y: np.ndarray, tolerance: float) -> BaseGeometry:
    """The union of counter-clockwise plan triangles x (m, 3), y (m, 3) (steps 2 to 4 of the
    module docstring)."""
    if not len(x):
        return shapely.Polygon()
    starts, ends, mult = _net_edges(x, y)
    if not len(starts):
        return shapely.Polygon()
    lines = shapely.linestrings(np.stack([starts, ends], axis=1))
    noded = shapely.get_parts(shapely.union_all(lines))
    cells = shapely.get_parts(shapely.polygonize(noded))
    if not len(cells):
        return shapely.Polygon()
    probe = shapely.get_coordinates(shapely.point_on_surface(cells))
    inside = cells[_windings(probe, starts, ends, mult) > 0.5]
    if not len(inside):
        return shapely.Polygon()
    union = shapely.coverage_union_all(inside)
    if not union.is_valid:  # a coverage with slivers left by noding: the general union
        union = shapely.union_all(inside)
    out = shapely.simplify(union, tolerance)
    return out if out.is_valid else shapely.make_valid(out)


def ring_of(polygon: BaseGeometry) -> np.ndarray:
    """(k, 2) counter-clockwise exterior ring of a shapely Polygon, without the closing point."""
    ring = np.asarray(polygon.exterior.coords, dtype=np.float64)[:-1]
    x, y = ring[:, 0], ring[:, 1]
    if np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) < 0:
        ring = ring[::-1].copy()
    return ring


def largest_ring(outline: BaseGeometry) -> np.ndarray:
    """The ring rules that need one polygon use: the exterior of the largest part of the
    outline, holes dropped, counter-clockwise ((0, 2) when the outline is empty)."""
    parts = [p for p in shapely.get_parts(outline) if p.geom_type == "Polygon" and not p.is_empty]
    if not parts:
        return np.zeros((0, 2))
    return ring_of(max(parts, key=lambda p: p.area))
