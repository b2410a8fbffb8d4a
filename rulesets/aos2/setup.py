"""The aos2 battlefield set-up (§6.1, §12): its deployment map, how terrain is set up, and the
checks a layout must pass.

- First Blood (§12): wholly within the own territory and more than 12" from the enemy's;
  territories are taken as the long halves of the table (the map itself is not in the digest).
- Terrain (§6.1): at least one feature per 2' square (1-3 here); pieces 3" apart [GK].
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

RULE_MAP = "aos2 §12 (First Blood)"

DEPLOYMENT_MAPS = (
    DeploymentMap("first-blood", "First Blood", RULE_MAP, long_edges(12.0)),
)

SETUP_RULES = SetupRules(
    "aos2", (72.0, 48.0),
    {"ruin": 2, "wall": 2, "forest": 1, "hill": 1, "box": 1, "mesh": 1},
    (5.0, 12.0), per_area=(1, 3), min_gap=3.0,
    data={"ruin": {"cover": 1}, "wall": {"obstacle": True, "cover": 1},
          "forest": {"cover": 1}, "mesh": {"cover": 1}},
    rule="aos2 §6.1")


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: lc.SightFacts | None = None) -> list[lc.Check]:
    """A 6' x 4' table, a feature in every 2' area, zones at least 24" apart."""
    return [lc.table_size(scene, (72.0, 48.0), "aos2 §12"),
            lc.per_area(scene, layout_pieces(scene), 1, None, "aos2 §6.1", "at least one feature",
                        overlap=True),
            lc.zones_apart(deployment.zones, 24.0, RULE_MAP)]
