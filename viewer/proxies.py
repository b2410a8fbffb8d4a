"""Figures drawn in place of plain cylinder volumes so model types read at a glance: a trooper
for small and medium bases, a warjack-like hulk for large bases (or warjack profiles).

Display only: each figure stands inside its model's rules cylinder (same base, same height), so
what the picture shows never reaches past the volume the line of sight is judged on. Used where a
ruleset gives every model a cylinder (`Ruleset.proxy_figures`: WARMACHINE/HORDES MK II).
"""

from __future__ import annotations

import numpy as np
from battlesight.geometry.mesh import Mesh
from battlesight.geometry.primitives import box, concatenate, make_mesh, oval_cylinder, sphere
from battlesight.geometry.types import MM_PER_INCH
from battlesight.geometry.volumes import BASE_THICKNESS, humanoid_volume
from battlesight.rulesets.core.ruleset import ruleset_class

LARGE_BASE_MM = 50.0


def is_cylinder(volume) -> bool:
    """Whether a volume is the plain cylinder (`volumes.cylinder_volume`)."""
    return tuple(volume.part_names) == ("base", "body")


def cylinder_size(volume) -> tuple[float, float, float]:
    """(rx, ry, height) in inches of a cylinder volume."""
    v = np.asarray(volume.mesh.vertices)
    return float(np.abs(v[:, 0]).max()), float(np.abs(v[:, 1]).max()), float(v[:, 2].max())


def warjack(rx: float, ry: float, height: float) -> Mesh:
    """A hulking steam-powered figure facing +y on a base of semi-axes (rx, ry), `height` tall:
    stocky legs, a broad armoured body, shoulder plates, a fist and a gun arm, a small head low
    at the front and two smoke stacks at the back. Local frame, base bottom at z = 0."""
    bt = min(BASE_THICKNESS, 0.2 * height)
    u, w, d = height - bt, 2.0 * rx, 2.0 * ry
    z = lambda f: bt + f * u  # noqa: E731 - height above the base top as a share of u
    parts = [oval_cylinder(rx, ry, 0.0, bt, (0.0, 0.0), 32)]
    for side in (-1, 1):
        parts.append(box((side * 0.17 * w, -0.02 * d, z(0.2)), (0.2 * w, 0.26 * d, 0.42 * u)))
        parts.append(box((side * 0.17 * w, 0.06 * d, bt + 0.03 * u), (0.24 * w, 0.34 * d,
                                                                       0.06 * u)))  # feet
        parts.append(sphere((side * 0.36 * w, -0.02 * d, z(0.72)), 0.15 * w, subdivisions=1))
    parts.append(box((0.0, -0.04 * d, z(0.58)), (0.62 * w, 0.46 * d, 0.38 * u)))  # body
    parts.append(box((0.0, 0.2 * d, z(0.68)), (0.2 * w, 0.16 * d, 0.16 * u)))  # head
    parts.append(box((0.40 * w, 0.16 * d, z(0.42)), (0.15 * w, 0.42 * d, 0.14 * u)))  # gun
    parts.append(box((-0.40 * w, 0.14 * d, z(0.40)), (0.2 * w, 0.26 * d, 0.22 * u)))  # fist
    for side in (-1, 1):
        parts.append(oval_cylinder(0.06 * w, 0.06 * w, z(0.7), height, (side * 0.13 * w,
                                                                         -0.3 * d), 10))
    return fit_inside(concatenate(parts), rx, ry)


def fit_inside(mesh: Mesh, rx: float, ry: float) -> Mesh:
    """The mesh narrowed about the z axis (plan only) until it lies inside the base ellipse
    of semi-axes (rx, ry), so a figure never reaches past its rules cylinder."""
    v = np.asarray(mesh.vertices, dtype=np.float64).copy()
    reach = float(np.sqrt(((v[:, 0] / rx) ** 2 + (v[:, 1] / ry) ** 2).max()))
    if reach > 1.0:
        v[:, :2] /= reach
        mesh = make_mesh(v, mesh.faces)
    return mesh


def trooper(rx: float, ry: float, height: float) -> Mesh:
    """The humanoid proxy on the same base and height (`volumes.humanoid_volume`)."""
    base_mm = (2.0 * ry * MM_PER_INCH, 2.0 * rx * MM_PER_INCH)
    return fit_inside(humanoid_volume(base_mm, height).mesh, rx, ry)


def display_figure(model, ruleset: str | None) -> Mesh | None:
    """The figure drawn for a placed model in its local frame, or None to draw its volume."""
    if ruleset is None or not ruleset_class(ruleset).proxy_figures \
            or not is_cylinder(model.volume):
        return None
    rx, ry, height = cylinder_size(model.volume)
    if height <= 2.5 * BASE_THICKNESS:
        return None
    large = 2.0 * max(rx, ry) * MM_PER_INCH >= LARGE_BASE_MM - 0.5
    profile = str(model.data.get("profile", "")) if isinstance(model.data, dict) else ""
    return warjack(rx, ry, height) if large or "warjack" in profile else trooper(rx, ry, height)
