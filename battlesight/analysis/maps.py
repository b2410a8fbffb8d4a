"""The deployment zones of a scene: one of its ruleset's named maps (each ruleset package
declares its own, `Ruleset.deployment_maps`) or the polygons written in the scene.
"""

from __future__ import annotations

import numpy as np

from battlesight.rulesets.core.deployment import Deployment, DeploymentMap, Zones, find_map
from battlesight.rulesets.core.ruleset import Ruleset, get_ruleset
from battlesight.scenes.model import Scene

__all__ = ["Deployment", "DeploymentMap", "deployment_map", "deployment_maps", "scene_deployment",
           "system"]


def system(ruleset: str) -> Ruleset:
    """The ruleset with this id; ValueError naming the known ids when there is none."""
    try:
        return get_ruleset(ruleset)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None


def deployment_maps(ruleset: str) -> tuple[DeploymentMap, ...]:
    """The named maps the ruleset declares, its default first."""
    return system(ruleset).deployment_maps


def deployment_map(ruleset: str, name: str | None = None) -> DeploymentMap:
    """The named map of a ruleset (its default when name is None); ValueError naming the known
    maps when there is none."""
    return find_map(deployment_maps(ruleset), ruleset, name)


def scene_deployment(scene: Scene, name: str | None = None) -> Deployment:
    """The zones of a scene: the named map when given, else the scene's `deployment` (a map name
    or polygons per player), else the ruleset's default map."""
    if name is None and isinstance(scene.deployment, dict) and scene.deployment:
        zones = {int(p): np.asarray(poly, dtype=np.float64)
                 for p, poly in sorted(scene.deployment.items())}
        for known in deployment_maps(scene.ruleset):
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
