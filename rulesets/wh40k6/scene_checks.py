"""wh40k6's scene checks: the keys it reads (terrain features, psychic powers, reserves) and
its characteristics; psychic powers must name powers of the power table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.rules_data import Problem, close_names, terrain_value_problems
from battlesight.scenes.checks import show
from battlesight.scenes.keys import declare

from .psychic import power_table
from .terrain import parse_cover

if TYPE_CHECKING:
    from battlesight.rulesets.core.ruleset import Ruleset
    from battlesight.scenes.model import Scene

STATS = frozenset({"WS", "BS", "S", "T", "W", "I", "A", "Ld", "Sv", "Inv", "ML",
                   "Front", "Side", "Rear", "HP"})
KEYS = declare(
    terrain=("cover", "feature", "area", "based", "difficult", "dangerous", "impassable"),
    model=("powers",),
    unit=("powers", "reserve"),
)


def _powers(value: Any, path: str) -> list[Problem]:
    items = value if isinstance(value, list) else [value]
    if isinstance(value, str) or (isinstance(value, list) and value):
        table = power_table()
        out = []
        for i, entry in enumerate(items):
            key = f"{path}[{i}]" if isinstance(value, list) else path
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                continue
            if not isinstance(entry, str):
                out.append((key, f"a power is a name from the power table, got {show(entry)}"))
            elif entry.strip().lower() not in table:
                out.append((key, f"unknown psychic power {entry!r}{close_names(entry, table)}"))
        return out
    return [(path, f"must be a power name or a list of power names, got {show(value)}")]


def check(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Psychic powers on units and models; reserve flags; terrain cover saves."""
    out: list[Problem] = terrain_value_problems(scene, "cover", parse_cover)
    for i, unit in enumerate(scene.units):
        path = f"units[{unit.get('id', i)}]"
        if unit.get("powers") is not None:
            out += _powers(unit["powers"], f"{path}.powers")
        if "reserve" in unit and not isinstance(unit["reserve"], bool):
            out.append((f"{path}.reserve", f"must be true or false, got {show(unit['reserve'])}"))
    for spec in scene.models:
        if spec.extra.get("powers") is not None:
            out += _powers(spec.extra["powers"], f"models[{spec.id}].powers")
    return out
