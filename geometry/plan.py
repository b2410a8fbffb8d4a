"""Plan-view (top-down, 2D) helpers: polygons, base outlines and distances between bases."""

from __future__ import annotations

import numpy as np


def point_in_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(n,) bool: which points (n, 2) lie inside polygon (k, 2) (even-odd rule, edges count in)."""
    pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
    poly = np.asarray(polygon, dtype=np.float64)
    if len(poly) < 3:
        return np.zeros(len(pts), dtype=bool)
    x, y = pts[:, 0:1], pts[:, 1:2]
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = (y0 > y) != (y1 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_at = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    inside = (np.sum(crosses & (x < x_at), axis=1) % 2) == 1
    return inside | (points_to_polygon_edges(pts, poly) < 1e-9)


def points_to_polygon_edges(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(n,) distance from each point (n, 2) to the nearest edge of polygon (k, 2)."""
    pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
    a = np.asarray(polygon, dtype=np.float64)
    b = np.roll(a, -1, axis=0)
    ab = b - a
    denom = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-18)
    ap = pts[:, None, :] - a[None, :, :]
    t = np.clip(np.einsum("nkj,kj->nk", ap, ab) / denom, 0.0, 1.0)
    closest = a[None] + t[..., None] * ab[None]
    return np.min(np.linalg.norm(pts[:, None, :] - closest, axis=2), axis=1)


def polygon_area(polygon: np.ndarray) -> float:
    """Area of a simple polygon (k, 2) (positive when counter-clockwise)."""
    p = np.asarray(polygon, dtype=np.float64)
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def base_outline(
    center: np.ndarray, radii: tuple[float, float], facing: float, segments: int = 64
) -> np.ndarray:
    """(segments, 2) outline of a round or oval base.

    radii: (along facing, across) in inches; facing in degrees (0 looks along +y).
    """
    ry, rx = radii
    angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    local = np.column_stack([rx * np.cos(angle), ry * np.sin(angle)])
    return np.asarray(center, dtype=np.float64)[:2] + local @ rotation_2d(facing).T


def rotation_2d(degrees: float) -> np.ndarray:
    """(2, 2) counter-clockwise rotation matrix."""
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def base_gap(
    center_a: np.ndarray,
    radii_a: tuple[float, float],
    facing_a: float,
    center_b: np.ndarray,
    radii_b: tuple[float, float],
    facing_b: float,
) -> float:
    """Closest distance between the edges of two bases in plan (0 when they touch or overlap)."""
    a = np.asarray(center_a, dtype=np.float64)[:2]
    b = np.asarray(center_b, dtype=np.float64)[:2]
    if radii_a[0] == radii_a[1] and radii_b[0] == radii_b[1]:
        return max(0.0, float(np.linalg.norm(a - b)) - radii_a[0] - radii_b[0])
    outline_a = base_outline(a, radii_a, facing_a, 128)
    outline_b = base_outline(b, radii_b, facing_b, 128)
    if point_in_polygon(outline_b, outline_a).any() or point_in_polygon(outline_a, outline_b).any():
        return 0.0
    diff = outline_a[:, None, :] - outline_b[None, :, :]
    return float(np.sqrt(np.min(np.einsum("ijk,ijk->ij", diff, diff))))


def base_gap_3d(plan_gap: float, height_a: float, height_b: float) -> float:
    """Closest distance between two horizontal bases whose plan gap is plan_gap, standing at
    heights height_a and height_b (inches)."""
    return float(np.hypot(plan_gap, height_a - height_b))
