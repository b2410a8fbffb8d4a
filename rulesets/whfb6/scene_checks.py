"""whfb6's scene checks: the keys it reads (terrain kinds and obstacles, command roles, unit
formations, the inline ward, wizard level and army) and its characteristics; a formation needs
its front and files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.rules_data import Problem, terrain_value_problems
from battlesight.scenes.checks import is_int, show
from battlesight.scenes.keys import declare

from .profile import INLINE_KEYS, STAT_KEYS, WARD_RANGE, WIZARD_LEVELS
from .sight import parse_cover

if TYPE_CHECKING:
    from battlesight.rulesets.core.ruleset import Ruleset
    from battlesight.scenes.model import Scene

STATS = frozenset({*STAT_KEYS, "Ward"})
ROLES = ("champion", "standard", "musician")
KEYS = declare(
    terrain=("cover", "kind", "obstacle", "impassable"),
    model=("role", *INLINE_KEYS),
    unit=("formation", *INLINE_KEYS),
)
FORMATION_KEYS = ("front", "facing", "files", "ranks")


def check(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Command roles; each formation's required front and files (their values are checked by
    the scene format), and no other keys."""
    out: list[Problem] = terrain_value_problems(scene, "cover", parse_cover)
    for i, unit in enumerate(scene.units):
        out += _inline_problems(unit, f"units[{unit.get('id', i)}]")
    for spec in scene.models:
        out += _inline_problems(spec.extra, f"models[{spec.id}]")
        role = spec.extra.get("role")
        if role is not None and str(role).lower() not in ROLES:
            out.append((f"models[{spec.id}].role", f"must be one of {', '.join(ROLES)}, got "
                                                   f"{show(role)}"))
    for i, unit in enumerate(scene.units):
        form = unit.get("formation")
        if not isinstance(form, dict):
            continue
        path = f"units[{unit.get('id', i)}].formation"
        for key in ("front", "files"):
            if key not in form:
                out.append((path, f"missing required key {key!r} "
                                  "(a formation is {front: [x, y], facing, files, ranks})"))
        for key in form:
            if key not in FORMATION_KEYS:
                out.append((f"{path}.{key}", f"a formation has only {', '.join(FORMATION_KEYS)}"))
    return out


def _whole(value: Any, low: int, high: int, what: str) -> str | None:
    if is_int(value) and low <= value <= high:
        return None
    return f"must be {what}, a whole number from {low} to {high}, got {show(value)}"


def _inline_problems(data: dict[str, Any], path: str) -> list[Problem]:
    """The ward (`ward:` or `stats: {Ward}`, 2 to 6 for 2+ to 6+), the wizard level (1 to 4)
    and the army name of one unit entry or model."""
    out: list[Problem] = []
    ward_text = "the ward save (5 means 5+)"
    if "ward" in data and (why := _whole(data["ward"], *WARD_RANGE, ward_text)):
        out.append((f"{path}.ward", why))
    stats = data.get("stats")
    if isinstance(stats, dict) and "Ward" in stats \
            and (why := _whole(stats["Ward"], *WARD_RANGE, ward_text)):
        out.append((f"{path}.stats.Ward", why))
    if "wizard" in data and (why := _whole(data["wizard"], *WIZARD_LEVELS, "the wizard level")):
        out.append((f"{path}.wizard", why))
    army = data.get("army")
    if "army" in data and not (isinstance(army, str) and army.strip()):
        out.append((f"{path}.army", f"must be an army name (such as dwarfs), got {show(army)}"))
    return out
