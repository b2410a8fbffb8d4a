"""The wh40k6 battlefield set-up (§2.3, §6.8): its deployment maps, how terrain is set up, and
the checks a layout must pass.

- Maps (§2.3 step 3, §6.8): Dawn of War, within 12" of the own long edge; Hammer and Anvil,
  the table split along the short edges, own half more than 12" from the centre line; Vanguard
  Strike, split along the diagonal from (0, depth) to (width, 0), own half more than 12" from
  it. The map is rolled on a D3 when none is named.
- Terrain (§2.3 step 5, §6.8): the table in ~2' x 2' areas, D3 pieces per area (a piece counts
  in the area holding most of it), pieces more than 3" apart.
- Advice: Infiltrate (§4.2) needs cells more than 12" from the enemy zone and out of its sight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core import setup_checks as lc
from battlesight.rulesets.core.deployment import (
    DeploymentMap,
    diagonal_halves,
    long_edges,
    short_halves,
)
from battlesight.rulesets.core.setup import SetupRules
from battlesight.scenes.footprints import layout_pieces

if TYPE_CHECKING:
    from battlesight.rulesets.core.deployment import Deployment
    from battlesight.scenes.model import Scene

RULE_MAPS = "wh40k6 §6.8"

DEPLOYMENT_MAPS = (
    DeploymentMap("dawn-of-war", "Dawn of War", RULE_MAPS, long_edges(12.0)),
    DeploymentMap("hammer-and-anvil", "Hammer and Anvil", RULE_MAPS, short_halves(12.0)),
    DeploymentMap("vanguard-strike", "Vanguard Strike", RULE_MAPS, diagonal_halves(12.0)),
)

SETUP_RULES = SetupRules(
    "wh40k6", (72.0, 48.0),
    {"ruin": 4, "box": 1, "wall": 1, "crater": 1, "forest": 1, "hill": 1, "mesh": 0.5},
    (5.0, 12.0), per_area=(1, 3), min_gap=3.0,
    data={"ruin": {"cover": 4, "difficult": True}, "forest": {"area": True, "cover": 5},
          "crater": {"area": True, "cover": 4}, "wall": {"cover": 4},
          "box": {"impassable": True}, "mesh": {"cover": 4}},
    rule=RULE_MAPS, roll_map=True)


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: lc.SightFacts | None = None) -> list[lc.Check]:
    """D3 pieces per 2' area, more than 3" apart, zones from a named map; with sight facts,
    room for Infiltrators."""
    prints = layout_pieces(scene)
    checks = [lc.per_area(scene, prints, 1, 3, RULE_MAPS, "D3 pieces"),
              lc.apart(prints, 3.0, RULE_MAPS),
              lc.named_map(DEPLOYMENT_MAPS, deployment.source, "wh40k6 §2.3")]
    if facts is not None:
        checks.append(lc.hidden_spots(deployment.zones, facts, 12.0, "wh40k6 §4.2 (Infiltrate)"))
    return checks
