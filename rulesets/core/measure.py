"""Measuring: base and hull outlines, edge-to-edge distances in plan and 3D, arcs and facings.

An `Outline` is a model's footprint (round or oval base, or a vehicle's rectangular hull) at a
height: `z` is the bottom of the base, `height` the top of the body above it. Distances follow
the tabletop convention "closest point of one base to closest point of the other". Bearings are
degrees counter-clockwise from +y, the same as a model's facing (docs/scene-format.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from battlesight.geometry.plan import base_gap, distance_to_edges, point_in_polygon, rotation_2d

_OUTLINE_POINTS = 96


@dataclass(frozen=True)
class Outline:
    """A footprint: centre (x, y), base bottom z, body height, semi-axes (along facing, across),
    facing in degrees, and whether it is a rectangle (a hull) rather than an ellipse."""

    center: tuple[float, float]
    z: float
    height: float
    radii: tuple[float, float]
    facing: float = 0.0
    rect: bool = False

    @property
    def is_circle(self) -> bool:
        return not self.rect and abs(self.radii[0] - self.radii[1]) < 1e-12

    @property
    def top(self) -> float:
        return self.z + self.height

    def polygon(self, n: int = _OUTLINE_POINTS) -> np.ndarray:
        """(k, 2) counter-clockwise outline in table coordinates."""
        along, across = self.radii
        if self.rect:
            local = np.array([[-across, -along], [across, -along], [across, along],
                              [-across, along]])
        else:
            t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
            local = np.column_stack([across * np.cos(t), along * np.sin(t)])
        return np.asarray(self.center, float) + local @ rotation_2d(self.facing).T

    def to_local(self, points: np.ndarray) -> np.ndarray:
        """Plan points (n, 2) in this outline's frame: +y = its facing, +x = its right."""
        p = np.atleast_2d(np.asarray(points, float))[:, :2] - np.asarray(self.center, float)
        return p @ rotation_2d(self.facing)  # R^T applied to row vectors

    def contains(self, points: np.ndarray) -> np.ndarray:
        return point_in_polygon(np.atleast_2d(np.asarray(points, float))[:, :2], self.polygon())


def _polygon_gap(pa: np.ndarray, pb: np.ndarray) -> float:
    if point_in_polygon(pa, pb).any() or point_in_polygon(pb, pa).any():
        return 0.0
    return float(min(distance_to_edges(pa, pb).min(), distance_to_edges(pb, pa).min()))


def plan_gap(a: Outline, b: Outline) -> float:
    """Closest distance between the two footprints seen from above (0 if they touch)."""
    if not a.rect and not b.rect:
        return base_gap(a.center, a.radii, a.facing, b.center, b.radii, b.facing)
    return _polygon_gap(a.polygon(), b.polygon())


def vertical_gap(a: Outline, b: Outline, a_body: bool = False, b_body: bool = False) -> float:
    """Vertical distance between a's base (or whole body) and b's base (or body)."""
    a0, a1 = a.z, a.top if a_body else a.z
    b0, b1 = b.z, b.top if b_body else b.z
    return max(0.0, b0 - a1, a0 - b1)


def gap_3d(a: Outline, b: Outline, a_body: bool = False, b_body: bool = False) -> float:
    """Closest 3D distance between two models treated as upright prisms: their bases (flat)
    or, with *_body, the whole height of the body."""
    return float(math.hypot(plan_gap(a, b), vertical_gap(a, b, a_body, b_body)))


def gap(a: Outline, b: Outline, mode: str = "plan") -> float:
    """Edge-to-edge distance by measuring convention: 'plan' or '3d' (base to base)."""
    return gap_3d(a, b) if mode == "3d" else plan_gap(a, b)


def within(a: Outline, b: Outline, distance: float, mode: str = "plan") -> bool:
    """Any part of a within `distance` of any part of b (equality counts)."""
    return gap(a, b, mode) <= distance + 1e-9


def wholly_within(a: Outline, b: Outline, distance: float) -> bool:
    """Every point of a's footprint within `distance` of b's footprint, in plan."""
    pa = a.polygon()
    inside = b.contains(pa)
    d = np.where(inside, 0.0, distance_to_edges(pa, b.polygon()))
    return bool(d.max() <= distance + 1e-9)


def point_gap(a: Outline, point: tuple[float, float]) -> float:
    """Distance in plan from a's footprint to a point (0 inside)."""
    p = np.asarray(point, float)[:2]
    if a.is_circle:
        return max(0.0, float(np.linalg.norm(p - np.asarray(a.center))) - a.radii[0])
    if a.contains(p)[0]:
        return 0.0
    return float(distance_to_edges(p[None], a.polygon())[0])


def bearing(origin: tuple[float, float], point: tuple[float, float]) -> float:
    """Direction from origin to point in degrees, counter-clockwise from +y, in [0, 360)."""
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    return math.degrees(math.atan2(-dx, dy)) % 360.0


def relative_bearing(facing: float, origin, point) -> float:
    """Angle of point off the facing, seen from origin, in (-180, 180]."""
    r = (bearing(origin, point) - facing) % 360.0
    return r - 360.0 if r > 180.0 else r


def in_arc(origin, facing: float, arc: float, point) -> bool:
    """Whether point lies in the arc of `arc` degrees centred on `facing` (edges count)."""
    if arc >= 360.0:
        return True
    return abs(relative_bearing(facing, origin, point)) <= arc / 2.0 + 1e-9


def in_front_arc(outline: Outline, point, arc: float = 180.0) -> bool:
    """Front arc of a model (WMH, WHFB: 180 degrees across the shoulders; 90 for a WHFB unit)."""
    return in_arc(outline.center, outline.facing, arc, point)


def elevation_angle(origin: np.ndarray, point: np.ndarray) -> float:
    """Angle above (+) or below (-) the horizontal from origin (3,) to point (3,), degrees."""
    d = np.asarray(point, float) - np.asarray(origin, float)
    return math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))


def vehicle_facing(hull: Outline, point) -> str:
    """'front', 'side' or 'rear': the armour a shot from `point` strikes (wh40k6 §4.5).

    Lines leave each front corner at 135 degrees to the front edge (45 degrees off the long
    axis); a point between the two front lines is front, between the rear lines rear, anywhere
    else side. On a line counts as front/rear (wh40k6 A13)."""
    x, y = hull.to_local(np.asarray(point, float)[:2])[0]
    along, across = hull.radii
    if y - along >= max(0.0, abs(x) - across) - 1e-9:
        return "front"
    if -along - y >= max(0.0, abs(x) - across) - 1e-9:
        return "rear"
    return "side"


def segment_crosses_polygon(p: np.ndarray, q: np.ndarray, polygon: np.ndarray) -> bool:
    """Whether the plan segment p -> q meets the polygon (k, 2) (crossing or inside)."""
    p, q = np.asarray(p, float)[:2], np.asarray(q, float)[:2]
    poly = np.asarray(polygon, float)
    if point_in_polygon(np.array([p, q]), poly).any():
        return True
    a, b = poly, np.roll(poly, -1, axis=0)

    def orient(u, v, w):
        return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (
            v[..., 1] - u[..., 1]) * (w[..., 0] - u[..., 0])

    d1, d2 = orient(a, b, p), orient(a, b, q)
    d3, d4 = orient(p, q, a), orient(p, q, b)
    return bool(np.any((d1 * d2 < 0) & (d3 * d4 < 0)))


def convex_hull(points: np.ndarray) -> np.ndarray:
    """(k, 2) counter-clockwise convex hull of plan points (monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in np.asarray(points, float)[:, :2]})
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def step_towards(start, goal, distance: float) -> tuple[float, float]:
    """The plan point `distance` along start -> goal (goal itself if it is nearer)."""
    s, g = np.asarray(start, float)[:2], np.asarray(goal, float)[:2]
    d = float(np.linalg.norm(g - s))
    if d <= distance or d == 0.0:
        return float(g[0]), float(g[1])
    p = s + (g - s) * (distance / d)
    return float(p[0]), float(p[1])
