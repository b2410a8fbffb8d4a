"""aos2's scene checks: the keys it reads (cover, obstacles, garrisons, scenery rules, the
general, the Wounds shorthand, who deployed first) and its characteristics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.rules_data import (
    LOAD_ERRORS,
    MAX_STAT,
    Problem,
    terrain_value_problems,
)
from battlesight.scenes.checks import is_int, show
from battlesight.scenes.keys import declare

from .cover import parse_cover
from .warscroll import STAT_KEYS, _need, _range, dice_value

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
    out += weapon_problems(ruleset, scene)
    first = scene.extra.get("deployed_first")
    if first is not None and (not is_int(first) or first not in scene.players):
        out.append(("deployed_first", f"must be a player of the scene "
                                      f"({', '.join(map(str, scene.players)) or 'none'}), got "
                                      f"{show(first)}"))
    return out


#: how each weapon characteristic is read (warscroll.py) and what the message says it must be
_WEAPON_READERS = {
    "range": (lambda v: _range(v), "a number of inches or a band such as 6-36"),
    "to_hit": (lambda v: _need(v), "a roll such as 4+"),
    "to_wound": (lambda v: _need(v), "a roll such as 4+"),
    "rend": (lambda v: v in ("-", None) or int(v), "a whole number such as -1, or '-'"),
    "attacks": (lambda v: dice_value(v), "a number or dice (D3, D6, 2D6, D6+1)"),
    "damage": (lambda v: dice_value(v), "a number or dice (D3, D6, 2D6, D6+1)"),
}


def weapon_problems(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Each weapon the models carry, read as `shoot` and `play` will read it: a `*` from a
    damage table, or any other text a characteristic cannot be, is refused here rather than
    when the first attack is rolled."""
    out: list[Problem] = []
    seen: set[str] = set()
    for spec in scene.models:
        unit = scene.unit(spec.unit) if spec.unit else None
        owner = (f"units[{spec.unit}]" if unit and unit.get("weapons") is not None
                 else f"models[{spec.id}]")
        try:
            weapons = ruleset.raw_profile(scene, spec).get("weapons") or []
        except LOAD_ERRORS:
            continue  # the profile check reports a profile it cannot resolve
        for i, raw in enumerate(weapons):
            if not isinstance(raw, dict):
                continue
            path = f"{owner}.weapons[{raw.get('name', i)}]"
            if path in seen:
                continue
            seen.add(path)
            for key, (read, must) in _WEAPON_READERS.items():
                if key not in raw:
                    continue
                try:
                    read(raw[key])
                except (ValueError, TypeError):
                    out.append((f"{path}.{key}", f"must be {must}, got {show(raw[key])}"))
    return out
