"""Deployment maps: a named way of turning a table (width, depth) into one zone polygon per
player (player 1 along y = 0), and the zone shapes the systems' maps are made of.

Each ruleset package declares its own maps (`Ruleset.deployment_maps`); `battlesight.analysis`
looks them up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Zones = dict[int, np.ndarray]


def clip_half_plane(poly: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The convex polygon (k, 2) cut to the points p with normal . p <= offset."""
    out = []
    pts = np.asarray(poly, dtype=np.float64)
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        da, db = a @ normal - offset, b @ normal - offset
        if da <= 0:
            out.append(a)
        if (da < 0 < db) or (db < 0 < da):
            out.append(a + (b - a) * da / (da - db))
    return np.array(out).reshape(-1, 2)


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


def long_edges(depth: float) -> Callable[[tuple[float, float]], Zones]:
    """Zones within `depth` inches of the long edges y = 0 (player 1) and y = table depth."""
    def zones(table: tuple[float, float]) -> Zones:
        w, d = table
        return {1: _rect(0, 0, w, min(depth, d / 2)), 2: _rect(0, max(d - depth, d / 2), w, d)}
    return zones


def short_halves(gap: float) -> Callable[[tuple[float, float]], Zones]:
    """Zones in the short-edge halves, more than `gap` from the centre line x = width / 2."""
    def zones(table: tuple[float, float]) -> Zones:
        w, d = table
        return {1: _rect(0, 0, max(w / 2 - gap, 0), d), 2: _rect(min(w / 2 + gap, w), 0, w, d)}
    return zones


def diagonal_halves(gap: float) -> Callable[[tuple[float, float]], Zones]:
    """Zones in the halves either side of the diagonal (0, depth)-(width, 0), more than `gap`
    from it; player 1 holds the corner (0, 0)."""
    def zones(table: tuple[float, float]) -> Zones:
        w, d = table
        normal = np.array([d, w], dtype=np.float64)
        normal /= np.linalg.norm(normal)
        on_line = normal @ np.array([0.0, d])
        one = clip_half_plane(np.array([[0, 0], [w, 0], [0, d]], float), normal, on_line - gap)
        two = clip_half_plane(np.array([[w, 0], [w, d], [0, d]], float), -normal, -on_line - gap)
        return {1: one, 2: two}
    return zones


@dataclass(frozen=True)
class DeploymentMap:
    """A named map: title, the rule it comes from, and its zones for a table."""

    name: str
    title: str
    rule: str
    zones: Callable[[tuple[float, float]], Zones]


def map_key(name: str) -> str:
    """'Dawn of War', 'dawn_of_war' and 'dawn-of-war' all name the same map."""
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


def find_map(maps: tuple[DeploymentMap, ...], system: str,
             name: str | None = None) -> DeploymentMap:
    """The map called `name` among a system's maps (its default, the first, when name is
    None); ValueError naming the known maps when there is none, in the words `validate` and
    `analyze` both print."""
    if not maps:
        raise ValueError(f"ruleset {system!r} declares no deployment maps")
    if name is None:
        return maps[0]
    by_key = {m.name: m for m in maps}
    if map_key(name) not in by_key:
        known = ", ".join(m.title for m in maps)
        raise ValueError(f"{system} has no deployment map {name!r}; known: {known}")
    return by_key[map_key(name)]


@dataclass
class Deployment:
    """The zones an analysis uses: polygons by player, where they came from and the rule."""

    zones: Zones
    source: str  # map name, or "scene" for polygons written in the scene
    rule: str

    def to_dict(self) -> dict:
        return {"source": self.source, "rule": self.rule,
                "zones": {str(p): np.round(z, 3).tolist() for p, z in self.zones.items()}}


def scene_zones(deployment: Any, table: tuple[float, float],
                maps: tuple[DeploymentMap, ...]) -> Zones | None:
    """The zones a scene's `deployment` gives: its polygons by player, or the zones of the
    named map among `maps` on this table; None when it gives none (or an unknown name, which
    the gate refuses)."""
    if isinstance(deployment, dict) and deployment:
        return {int(p): np.asarray(poly, dtype=np.float64) for p, poly in deployment.items()}
    if isinstance(deployment, str):
        chosen = next((m for m in maps if m.name == map_key(deployment)), None)
        return chosen.zones(table) if chosen is not None else None
    return None
