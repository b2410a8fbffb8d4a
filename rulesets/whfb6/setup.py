"""The whfb6 battlefield set-up: the digest has no deployment or terrain set-up (§1 "What it
omits"), so both follow the 6th edition's usual game [GK]: its map, how terrain is set up, and
the checks a layout must pass.

- Pitched Battle [GK]: within 12" of the own long edge, on the usual 6' x 4' table, the zones
  at least 24" apart.
- Terrain [GK]: 1-2 pieces per 2' area, 3" apart.
- Advice: Scouts (§4.1) need cells more than 10" from the enemy zone and out of its sight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core import setup_checks as lc
from battlesight.rulesets.core.deployment import DeploymentMap, long_edges
from battlesight.rulesets.core.setup import SetupRules

if TYPE_CHECKING:
    from battlesight.rulesets.core.deployment import Deployment
    from battlesight.scenes.model import Scene

RULE_BATTLE = "whfb6 [GK] Pitched Battle"

DEPLOYMENT_MAPS = (
    DeploymentMap("pitched-battle", "Pitched Battle",
                  "whfb6 [GK] (the rulebook summary has no deployment, §1)", long_edges(12.0)),
)

SETUP_RULES = SetupRules(
    "whfb6", (72.0, 48.0), {"hill": 2, "forest": 2, "wall": 2, "box": 1, "ruin": 1},
    (5.0, 12.0), per_area=(1, 2), min_gap=3.0,
    data={"forest": {"kind": "woods"}, "wall": {"obstacle": True, "cover": "soft"},
          "box": {"kind": "building", "impassable": True},
          "ruin": {"kind": "building", "cover": "hard"}},
    rule="whfb6 [GK] (the rulebook summary has no set-up, §1)")


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: lc.SightFacts | None = None) -> list[lc.Check]:
    """The usual 6' x 4' table, zones 24" apart; with sight facts, room for Scouts."""
    checks = [lc.table_size(scene, (72.0, 48.0), "whfb6 [GK] (the usual 6' x 4' table)"),
              lc.zones_apart(deployment.zones, 24.0, RULE_BATTLE)]
    if facts is not None:
        checks.append(lc.hidden_spots(deployment.zones, facts, 10.0, "whfb6 §4.1 (Scouts)"))
    return checks
