"""aos2's scene checks: the keys it reads (cover, obstacles, garrisons, scenery rules, the
general, the Wounds shorthand, who deployed first) and its characteristics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.rules_data import MAX_STAT, Problem, terrain_value_problems
from battlesight.scenes.checks import is_int, show
from battlesight.scenes.keys import declare

from .cover import parse_cover
from .warscroll import STAT_KEYS

if TYPE_CHECKING:
    from battlesight.rulesets.core.ruleset import Ruleset
    from battlesight.scenes.model import Scene

STATS = frozenset(STAT_KEYS)
KEYS = declare(
    top=("deployed_first",),
    terrain=("cover", "obstacle", "garrison", "scenery"),
    model=("wounds", "general"),
    unit=("garrison",),
)


def check(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Wounds and general on models, garrisons naming garrisonable pieces, deployed_first."""
    out: list[Problem] = terrain_value_problems(scene, "cover", parse_cover)
    for spec in scene.models:
        path = f"models[{spec.id}]"
        wounds = spec.extra.get("wounds")
        if wounds is not None and not (is_int(wounds) and 1 <= wounds <= MAX_STAT):
            out.append((f"{path}.wounds", f"must be a whole number from 1 to {MAX_STAT}, got "
                                          f"{show(wounds)}"))
        general = spec.extra.get("general")
        if general is not None and not isinstance(general, bool):
            out.append((f"{path}.general", f"must be true or false, got {show(general)}"))
    pieces = {p.id: p for p in scene.terrain}
    for i, unit in enumerate(scene.units):
        where = unit.get("garrison")
        if where is None:
            continue
        piece = pieces.get(where) if isinstance(where, str) else None
        if piece is None or not piece.get("garrison"):
            out.append((f"units[{unit.get('id', i)}].garrison",
                        f"must name a terrain piece with 'garrison: true', got {show(where)}"))
    first = scene.extra.get("deployed_first")
    if first is not None and (not is_int(first) or first not in scene.players):
        out.append(("deployed_first", f"must be a player of the scene "
                                      f"({', '.join(map(str, scene.players)) or 'none'}), got "
                                      f"{show(first)}"))
    return out
