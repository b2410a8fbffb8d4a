"""Planar (seen from above) predicates and measures, on shapely 2 (GEOS): the one module
that says whether points lie in a footprint, how far apart two outlines are, whether a sight
line's plan crosses a hull, and which pieces lie under a base.

Points are (n, 2) arrays (or (2,) for one) in table inches; a polygon is a (k, 2) array of its
corners in order (either orientation, no closing duplicate) or a shapely geometry. Arrays are
turned into shapely polygons by `shape`; callers that ask many questions of one outline keep
that shape (`TerrainGeometry.shape`, `Outline.shape`, `FootprintIndex`) so it is built and
prepared once. Vectorised: one shapely call per batch of points, never one per point.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry
from shapely.geometry.polygon import orient

PolygonLike = np.ndarray | Sequence[Sequence[float]] | BaseGeometry
_EMPTY = shapely.Polygon()


def shape(polygon: PolygonLike) -> BaseGeometry:
    """The prepared shapely polygon of a (k, 2) outline (a geometry is prepared and returned
    as it is); fewer than 3 corners give the empty polygon, which meets nothing."""
    if isinstance(polygon, BaseGeometry):
        shapely.prepare(polygon)
        return polygon
    ring = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    if len(ring) < 3:
        return _EMPTY
    out = shapely.Polygon(ring)
    shapely.prepare(out)
    return out


def _xy(points) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return p[:, 0], p[:, 1]


def covers(points, polygon: PolygonLike) -> np.ndarray:
    """(n,) bool: points (n, 2) inside the polygon or on its outline."""
    x, y = _xy(points)
    return np.asarray(shapely.intersects_xy(shape(polygon), x, y), dtype=bool)


def inside(points, polygon: PolygonLike) -> np.ndarray:
    """(n,) bool: points (n, 2) strictly inside the polygon (the outline is outside)."""
    x, y = _xy(points)
    return np.asarray(shapely.contains_xy(shape(polygon), x, y), dtype=bool)


def edge_distance(points, polygon: PolygonLike) -> np.ndarray:
    """(n,) distance from each point (n, 2) to the polygon's outline (also from inside)."""
    x, y = _xy(points)
    return np.asarray(shapely.distance(shapely.points(x, y), shape(polygon).boundary), float)


def distance(points, polygon: PolygonLike) -> np.ndarray:
    """(n,) distance from each point (n, 2) to the polygon (0 inside or on it)."""
    x, y = _xy(points)
    return np.asarray(shapely.distance(shapely.points(x, y), shape(polygon)), float)


def meet(a: PolygonLike, b: PolygonLike) -> bool:
    """Whether two polygons share any point (overlap, touch or one inside the other)."""
    return bool(shapely.intersects(shape(a), shape(b)))


def gap(a: PolygonLike, b: PolygonLike) -> float:
    """Closest distance between two polygons (0 when they meet)."""
    return float(shapely.distance(shape(a), shape(b)))


def segments(starts, ends) -> np.ndarray:
    """(n,) shapely line strings of the plan segments starts (n, 2) -> ends (n, 2) (3D points
    are cut to plan), to ask `lines_meet` of several polygons."""
    s = np.atleast_2d(np.asarray(starts, dtype=np.float64))[:, :2]
    e = np.atleast_2d(np.asarray(ends, dtype=np.float64))[:, :2]
    return shapely.linestrings(np.stack([s, e], axis=1))


def lines_meet(lines: np.ndarray, polygon: PolygonLike) -> np.ndarray:
    """(n,) bool: which of the line strings (`segments`) cross the polygon or lie in it."""
    return np.asarray(shapely.intersects(lines, shape(polygon)), dtype=bool)


def segments_meet(starts, ends, polygon: PolygonLike) -> np.ndarray:
    """(n,) bool: the plan segments starts (n, 2) -> ends (n, 2) (3D points are cut to
    plan) cross the polygon or lie in it."""
    return lines_meet(segments(starts, ends), polygon)


def segment_meets(p, q, polygon: PolygonLike) -> bool:
    """Whether the plan segment p -> q ((2,) or (3,) points) crosses or lies in the polygon."""
    return bool(segments_meet(np.atleast_2d(p), np.atleast_2d(q), polygon)[0])


def table_share(polygons: Sequence[PolygonLike], table: tuple[float, float]) -> float:
    """The share of the table (0..1; its corner at the origin) that the polygons cover
    together, overlaps counted once: the exact area of their union on the table (GEOS)."""
    width, depth = float(table[0]), float(table[1])
    shapes = [s for s in (shape(p) for p in polygons) if not s.is_empty]
    if not shapes or width <= 0 or depth <= 0:
        return 0.0
    union = shapely.union_all(shapes)
    return float(union.intersection(shapely.box(0.0, 0.0, width, depth)).area / (width * depth))


def hull_shape(points) -> BaseGeometry:
    """The convex hull of plan points (n, 2) as a shapely geometry (GEOS; for a query of a
    few points, where `convex_hull`'s qhull would cost more to import than to run)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return shapely.convex_hull(shapely.multipoints(p))


def union_outline(polygons: Sequence[PolygonLike]) -> BaseGeometry:
    """One outline for several footprints (a grouped piece's, docs/scene-format.md "Grouped
    pieces"): the exterior of their union, holes filled; the convex hull of that union when
    the footprints do not touch. A shapely Polygon, empty for no footprints."""
    shapes = [s for s in (shape(p) for p in polygons) if not s.is_empty]
    if not shapes:
        return _EMPTY
    union = shapely.union_all([s if s.is_valid else s.buffer(0) for s in shapes])
    if union.geom_type != "Polygon":
        union = union.convex_hull
    return shapely.Polygon(union.exterior) if union.geom_type == "Polygon" else _EMPTY


def convex_hull(points) -> np.ndarray:
    """(k, 2) counter-clockwise convex hull of points (n, 2) (GEOS, as `hull_shape`: the hulls
    asked for are of a unit's base outlines, a few hundred points, where scipy's qhull would
    cost 0.3 s to import). Fewer than three distinct points come back as they are; collinear
    points as the two ends of their line."""
    p = np.unique(np.asarray(points, dtype=np.float64).reshape(-1, 2)[:, :2], axis=0)
    if len(p) < 3:
        return p
    hull = hull_shape(p)
    if hull.geom_type != "Polygon":  # a line: its two ends
        return np.asarray(hull.coords)[[0, -1]]
    # shapely.geometry.polygon.orient, not shapely.orient_polygons: that one is shapely 2.1's,
    # and the project asks for shapely>=2
    return np.asarray(orient(hull, sign=1.0).exterior.coords)[:-1]


class FootprintIndex:
    """An STRtree of the table's footprints: which pieces a base or a point lies on, for many
    at once. ids: one per polygon; polygons: (k, 2) arrays or shapely geometries."""

    def __init__(self, ids: Sequence[str], polygons: Sequence[PolygonLike]):
        self.ids = list(ids)
        self.shapes = [shape(p) for p in polygons]
        self._tree = shapely.STRtree(self.shapes)

    def __len__(self) -> int:
        return len(self.ids)

    def under(self, outline: PolygonLike) -> list[str]:
        """Ids of the pieces whose footprint the outline meets, in index order."""
        hits = self._tree.query(shape(outline), predicate="intersects")
        return [self.ids[i] for i in np.sort(hits)]

    def under_many(self, outlines: Sequence[PolygonLike]) -> list[list[str]]:
        """`under` for many outlines in one tree query."""
        shapes = [shape(o) for o in outlines]
        out: list[list[str]] = [[] for _ in shapes]
        if not shapes or not self.ids:
            return out
        which, piece = self._tree.query(shapes, predicate="intersects")
        for w, k in sorted(zip(which.tolist(), piece.tolist(), strict=True)):
            out[w].append(self.ids[k])
        return out

    def at(self, point) -> list[str]:
        """Ids of the pieces whose footprint holds the plan point (inside or on the outline)."""
        return self.under(shapely.Point(np.asarray(point, dtype=np.float64)[:2]))
