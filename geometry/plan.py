"""Plan-view (top-down, 2D) construction: polygons, placing local outlines on the table, base
outlines and distances between bases. Polygons are (k, 2) arrays, counter-clockwise unless
said otherwise; predicates and measures on them (inside, distance, hulls) are in `planar`."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import planar

ArrayLike = Sequence[float] | np.ndarray


def ring_next(a: np.ndarray) -> np.ndarray:
    """np.roll(a, -1, axis=0): each vertex's successor around a ring (k, ...), without
    np.roll's generic overhead (5x faster on the small rings of a scene's pieces)."""
    return np.concatenate((a[1:], a[:1]))


def ring_prev(a: np.ndarray) -> np.ndarray:
    """np.roll(a, 1, axis=0): each vertex's predecessor around a ring (k, ...)."""
    return np.concatenate((a[-1:], a[:-1]))


def signed_area(polygon: np.ndarray) -> float:
    """Signed area of a polygon (k, 2): positive when counter-clockwise."""
    p = np.asarray(polygon, dtype=np.float64)
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, ring_next(y)) - np.dot(y, ring_next(x)))


def clean_ring(polygon: ArrayLike, ccw: bool | None = True, tol: float = 1e-9) -> np.ndarray:
    """(k, 2) copy of a polygon without a closing duplicate, repeated or collinear points.

    ccw=True makes it counter-clockwise, False clockwise, None keeps its orientation.
    Raises ValueError when fewer than 3 points or no area remain.
    """
    p = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(p)):
        raise ValueError("polygon has non-finite coordinates")
    changed = True
    while changed and len(p) >= 3:
        changed = False
        prev, nxt = ring_prev(p), ring_next(p)
        same = np.linalg.norm(p - prev, axis=1) <= tol
        if same.any():
            p = p[~same]
            changed = True
            continue
        a, b = p - prev, nxt - p
        cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
        scale = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
        straight = np.abs(cross) <= tol * np.maximum(scale, tol)
        if straight.any():
            p = p[~np.eye(len(p), dtype=bool)[int(np.argmax(straight))]]
            changed = True
    if len(p) < 3 or abs(signed_area(p)) <= tol:
        raise ValueError("polygon needs at least 3 non-collinear points")
    if ccw is not None and (signed_area(p) > 0) != ccw:
        p = p[::-1].copy()
    return p


def rotation_2d(degrees: float) -> np.ndarray:
    """(2, 2) counter-clockwise rotation by degrees."""
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def to_table(points: ArrayLike, at: ArrayLike = (0.0, 0.0), rotation: float = 0.0) -> np.ndarray:
    """(k, 2) points of a piece's local plan rotated by rotation (degrees CCW) about the local
    origin, then moved so that the origin lands on at."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return p @ rotation_2d(rotation).T + np.asarray(at, dtype=np.float64)[:2]


def rectangle(sx: float, sy: float) -> np.ndarray:
    """(4, 2) counter-clockwise rectangle of size sx x sy centred on the origin."""
    hx, hy = 0.5 * sx, 0.5 * sy
    return np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]], dtype=np.float64)


def ellipse(rx: float, ry: float, segments: int = 32) -> np.ndarray:
    """(segments, 2) counter-clockwise ellipse with semi-axes rx (along x) and ry (along y)."""
    t = np.linspace(0.0, 2.0 * np.pi, int(segments), endpoint=False)
    return np.column_stack([rx * np.cos(t), ry * np.sin(t)])


def base_outline(
    center: np.ndarray, radii: tuple[float, float], facing: float, segments: int = 64
) -> np.ndarray:
    """(segments, 2) outline of a round or oval base.

    radii: (along facing, across) in inches; facing in degrees (0 looks along +y).
    """
    return base_outlines(np.asarray(center, dtype=np.float64)[None, :2], np.array([radii]),
                         np.array([facing]), segments)[0]


def base_outlines(centers: np.ndarray, radii: np.ndarray, facings: np.ndarray,
                  segments: int = 64) -> np.ndarray:
    """(n, segments, 2) outlines of n bases at once, as `base_outline` draws each: centers
    (n, 2), radii (n, 2) as (along facing, across), facings (n,) in degrees."""
    angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    r = np.asarray(radii, dtype=np.float64)
    local = np.stack([r[:, 1:2] * np.cos(angle), r[:, 0:1] * np.sin(angle)], axis=-1)
    turn = np.radians(np.asarray(facings, dtype=np.float64))
    c, s = np.cos(turn)[:, None], np.sin(turn)[:, None]
    x, y = local[..., 0], local[..., 1]
    centers = np.asarray(centers, dtype=np.float64)[:, :2]
    return np.stack([c * x - s * y + centers[:, 0:1], s * x + c * y + centers[:, 1:2]], axis=-1)


def base_gap(
    center_a: np.ndarray,
    radii_a: tuple[float, float],
    facing_a: float,
    center_b: np.ndarray,
    radii_b: tuple[float, float],
    facing_b: float,
) -> float:
    """Closest distance between the edges of two bases in plan (0 when they touch or overlap)."""
    if radii_a[0] == radii_a[1] and radii_b[0] == radii_b[1]:  # round bases: centres apart
        apart = math.hypot(float(center_a[0]) - float(center_b[0]),
                           float(center_a[1]) - float(center_b[1]))
        return max(0.0, apart - radii_a[0] - radii_b[0])
    a = np.asarray(center_a, dtype=np.float64)[:2]
    b = np.asarray(center_b, dtype=np.float64)[:2]
    return planar.gap(base_outline(a, radii_a, facing_a, 128),
                      base_outline(b, radii_b, facing_b, 128))


def base_gap_3d(plan_gap: float, height_a: float, height_b: float) -> float:
    """Closest distance between two horizontal bases whose plan gap is plan_gap, standing at
    heights height_a and height_b (inches)."""
    return float(np.hypot(plan_gap, height_a - height_b))
