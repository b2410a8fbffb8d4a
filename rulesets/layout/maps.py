"""Named deployment maps of each ruleset, and the zones of a scene.

A map turns a table (width, depth) into one polygon per player (player 1 along y = 0):

- wh40k6 (§2.3 step 3, §6.8): Dawn of War, within 12" of the own long edge; Hammer and Anvil,
  the table split along the short edges, own half more than 12" from the centre line; Vanguard
  Strike, split along the diagonal from (0, depth) to (width, 0), own half more than 12" from it.
- wmh2 (§13, S p.16): completely within 10" of the own edge.
- aos2 (§12, First Blood): wholly within the own territory and more than 12" from the enemy's;
  territories are taken as the long halves of the table (the map itself is not in the digest).
- whfb6: the digest has no deployment (§1 "What it omits"); Pitched Battle is the 6th-edition
  standard [GK], within 12" of the own long edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from battlesight.scenes.model import Scene

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


MAPS: dict[str, dict[str, DeploymentMap]] = {
    "wh40k6": {
        "dawn-of-war": DeploymentMap("dawn-of-war", "Dawn of War", "wh40k6 §6.8",
                                     long_edges(12.0)),
        "hammer-and-anvil": DeploymentMap("hammer-and-anvil", "Hammer and Anvil", "wh40k6 §6.8",
                                          short_halves(12.0)),
        "vanguard-strike": DeploymentMap("vanguard-strike", "Vanguard Strike", "wh40k6 §6.8",
                                         diagonal_halves(12.0)),
    },
    "wmh2": {
        "standard": DeploymentMap("standard", "10\" from the edges", "wmh2 §13 (S p.16)",
                                  long_edges(10.0)),
    },
    "aos2": {
        "first-blood": DeploymentMap("first-blood", "First Blood", "aos2 §12 (First Blood)",
                                     long_edges(12.0)),
    },
    "whfb6": {
        "pitched-battle": DeploymentMap("pitched-battle", "Pitched Battle",
                                        "whfb6 [GK] (the rulebook summary has no deployment, §1)",
                                        long_edges(12.0)),
    },
}
DEFAULT_MAP = {"wh40k6": "dawn-of-war", "wmh2": "standard", "aos2": "first-blood",
               "whfb6": "pitched-battle"}


def map_key(name: str) -> str:
    """'Dawn of War', 'dawn_of_war' and 'dawn-of-war' all name the same map."""
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


def deployment_map(ruleset: str, name: str | None = None) -> DeploymentMap:
    """The named map of a ruleset (its default when name is None); ValueError naming the known
    maps when there is none."""
    maps = MAPS.get(ruleset)
    if maps is None:
        raise ValueError(f"no deployment maps for ruleset {ruleset!r}")
    key = DEFAULT_MAP[ruleset] if name is None else map_key(name)
    if key not in maps:
        known = ", ".join(m.title for m in maps.values())
        raise ValueError(f"{ruleset} has no deployment map {name!r}; known: {known}")
    return maps[key]


@dataclass
class Deployment:
    """The zones an analysis uses: polygons by player, where they came from and the rule."""

    zones: Zones
    source: str  # map name, or "scene" for polygons written in the scene
    rule: str

    def to_dict(self) -> dict:
        return {"source": self.source, "rule": self.rule,
                "zones": {str(p): np.round(z, 3).tolist() for p, z in self.zones.items()}}


def scene_deployment(scene: Scene, name: str | None = None) -> Deployment:
    """The zones of a scene: the named map when given, else the scene's `deployment` (a map name
    or polygons per player), else the ruleset's default map."""
    if name is None and isinstance(scene.deployment, dict) and scene.deployment:
        zones = {int(p): np.asarray(poly, dtype=np.float64)
                 for p, poly in sorted(scene.deployment.items())}
        for known in MAPS.get(scene.ruleset, {}).values():
            if _same_zones(zones, known.zones(scene.table)):
                return Deployment(zones, known.name, f"scene polygons = {known.title}")
        return Deployment(zones, "scene", "scene deployment polygons")
    if name is None and isinstance(scene.deployment, str):
        name = scene.deployment
    chosen = deployment_map(scene.ruleset, name)
    return Deployment(chosen.zones(scene.table), chosen.name, chosen.rule)


def _same_zones(a: Zones, b: Zones) -> bool:
    """Whether two sets of zones have the same players and the same corners."""
    def corners(poly: np.ndarray) -> set:
        return {(round(float(x), 3), round(float(y), 3)) for x, y in poly}

    return set(a) == set(b) and all(corners(a[p]) == corners(b[p]) for p in a)
