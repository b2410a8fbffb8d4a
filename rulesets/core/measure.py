"""Measuring: base and hull outlines, edge-to-edge distances in plan and 3D, arcs and facings.

An `Outline` is a model's footprint (round or oval base, or a vehicle's rectangular hull) at a
height: `z` is the bottom of the base, `height` the top of the body above it. Distances follow
the tabletop convention "closest point of one base to closest point of the other". Bearings are
degrees counter-clockwise from +y, the same as a model's facing (docs/scene-format.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.plan import base_gap, rotation_2d

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

    @cached_property
    def shape(self):
        """The outline as a prepared shapely polygon (built once per Outline)."""
        return planar.shape(self.polygon())

    def contains(self, points: np.ndarray) -> np.ndarray:
        """(n,) bool: plan points (n, 2) (or (n, 3)) inside the footprint or on its edge."""
        return planar.covers(np.atleast_2d(np.asarray(points, float))[:, :2], self.shape)


def plan_gap(a: Outline, b: Outline) -> float:
    """Closest distance between the two footprints seen from above (0 if they touch)."""
    if not a.rect and not b.rect:
        return base_gap(a.center, a.radii, a.facing, b.center, b.radii, b.facing)
    return planar.gap(a.shape, b.shape)


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
    return bool(planar.distance(a.polygon(), b.shape).max() <= distance + 1e-9)


def point_gap(a: Outline, point: tuple[float, float]) -> float:
    """Distance in plan from a's footprint to a point (0 inside)."""
    p = np.asarray(point, float)[:2]
    if a.is_circle:
        return max(0.0, float(np.linalg.norm(p - np.asarray(a.center))) - a.radii[0])
    return float(planar.distance(p[None], a.shape)[0])


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


def step_towards(start, goal, distance: float) -> tuple[float, float]:
    """The plan point `distance` along start -> goal (goal itself if it is nearer)."""
    s, g = np.asarray(start, float)[:2], np.asarray(goal, float)[:2]
    d = float(np.linalg.norm(g - s))
    if d <= distance or d == 0.0:
        return float(g[0]), float(g[1])
    p = s + (g - s) * (distance / d)
    return float(p[0]), float(p[1])
