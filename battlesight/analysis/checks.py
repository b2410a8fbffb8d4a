"""The checks of a layout, each citing the rule it applies: the on-table check every system
shares, then the ruleset's own (`Ruleset.layout_checks`, built from `core.setup_checks`).

Set-up checks (kind "set-up") need only the scene; a legal layout passes them all. Advice
checks (kind "advice") need where each zone sees (`SightFacts`, from the analysis).
"""

from __future__ import annotations

from battlesight.rulesets.core.deployment import Deployment
from battlesight.rulesets.core.setup_checks import Check, SightFacts, on_table
from battlesight.scenes.footprints import footprints
from battlesight.scenes.model import Scene

from .maps import system

__all__ = ["Check", "SightFacts", "layout_checks", "legal"]


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: SightFacts | None = None) -> list[Check]:
    """Every check of the scene's ruleset, in a fixed order (advice checks only with facts)."""
    return [on_table(scene, footprints(scene)),
            *system(scene.ruleset).layout_checks(scene, deployment, facts)]


def legal(checks: list[Check]) -> bool:
    """Whether every set-up check passes."""
    return all(c.passed for c in checks if c.kind == "set-up")
