"""whfb6's scene checks: the keys it reads (terrain kinds and obstacles, command roles, unit
formations) and its characteristics; a formation needs its front and files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.rules_data import Problem, terrain_value_problems
from battlesight.scenes.checks import show
from battlesight.scenes.keys import declare

from .profile import STAT_KEYS
from .sight import parse_cover

if TYPE_CHECKING:
    from battlesight.rulesets.core.ruleset import Ruleset
    from battlesight.scenes.model import Scene

STATS = frozenset({*STAT_KEYS, "Ward"})
ROLES = ("champion", "standard", "musician")
KEYS = declare(
    terrain=("cover", "kind", "obstacle", "impassable"),
    model=("role",),
    unit=("formation",),
)
FORMATION_KEYS = ("front", "facing", "files", "ranks")


def check(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Command roles; each formation's required front and files (their values are checked by
    the scene format), and no other keys."""
    out: list[Problem] = terrain_value_problems(scene, "cover", parse_cover)
    for spec in scene.models:
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
