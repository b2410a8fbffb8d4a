"""The wmh2 battlefield set-up (§13, Steamroller 2017 tournament pack): its deployment zone,
how terrain is set up, and the checks a layout must pass.

- Deployment (§13, S p.16): completely within 10" of the own edge; the zones at least 28"
  apart on the 4' x 4' table.
- Terrain (Steamroller 2017): 6-8 pieces 3"-6" across, none within 6" of a table edge,
  pieces more than 3" apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core import setup_checks as lc
from battlesight.rulesets.core.deployment import DeploymentMap, long_edges
from battlesight.rulesets.core.setup import SetupRules
from battlesight.scenes.footprints import layout_pieces

if TYPE_CHECKING:
    from battlesight.rulesets.core.deployment import Deployment
    from battlesight.scenes.model import Scene

RULE_DEPLOY = "wmh2 §13 (S p.16)"
RULE_TERRAIN = "wmh2 §13; Steamroller 2017 tournament pack"

DEPLOYMENT_MAPS = (
    DeploymentMap("standard", "10\" from the edges", RULE_DEPLOY, long_edges(10.0)),
)

SETUP_RULES = SetupRules(
    "wmh2", (48.0, 48.0), {"hill": 2, "forest": 2, "wall": 2, "box": 1, "crater": 1},
    (3.0, 6.0), count=(6, 8), min_gap=3.0, edge_margin=6.0,
    data={"hill": {"elevation": True}, "forest": {"concealment": True, "rough": True},
          "wall": {"obstacle": True, "cover": "cover"}, "box": {"cover": "cover"},
          "crater": {"rough": True}},
    rule=RULE_TERRAIN)


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: lc.SightFacts | None = None) -> list[lc.Check]:
    """A 4' x 4' table, zones 28" apart, 6-8 pieces 3"-6" across, none within 6" of an edge."""
    prints = layout_pieces(scene)
    return [lc.table_size(scene, (48.0, 48.0), RULE_DEPLOY),
            lc.zones_apart(deployment.zones, 28.0, RULE_DEPLOY),
            lc.piece_count(prints, 6, 8, RULE_TERRAIN), lc.spans(scene, 3.0, 6.0, RULE_TERRAIN),
            lc.off_edges(scene, prints, 6.0, RULE_TERRAIN)]
