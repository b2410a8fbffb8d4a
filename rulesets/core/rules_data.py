"""Checks of the rules data a scene gives its models and units, for every system.

What the core reads (``profile``, ``stats``, ``weapons``, ``keywords``, ``rules``, ``type``,
``wounds_left``) is checked here against the system's data: known profile and weapon names (with
the closest names when one is misspelt), known characteristics with whole-number values in
range. Each system adds its own keys and checks in ``rulesets/<id>/scene_checks.py``
(``STATS``, ``KEYS``, ``check(ruleset, scene)``). Last, every model's profile is loaded the way
the board loads it, so a profile the system still cannot use is a problem here, not a crash
later. Problems are (key path, message) pairs; the caller adds the file and line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from battlesight.scenes.checks import show
from battlesight.scenes.keys import SceneKeys, declare
from battlesight.scenes.systems import is_system, system_package

from .parts import package_module
from .profiles import INLINE_KEYS, load_data

if TYPE_CHECKING:
    from battlesight.scenes.importers.common import SystemImport
    from battlesight.scenes.model import Scene

    from .ruleset import Ruleset

Problem = tuple[str, str]

#: What the core reads from every model and unit entry, whatever the system.
CORE_KEYS = declare(model=(*INLINE_KEYS, "wounds_left"), unit=INLINE_KEYS)
#: Largest characteristic value (the highest in any of the four systems is well below).
MAX_STAT = 100
_STAT_TEXT = re.compile(r"^\s*(\d{1,3})\s*\+?\s*$|^\s*[-\u2014]\s*$")
#: What the trial load of a profile may raise on data it cannot use.
LOAD_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError)


def system_module(ruleset_id: str) -> ModuleType | None:
    """``rulesets/<id>/scene_checks.py`` of a system (None when it has none or the id is not
    registered)."""
    return package_module(system_package(ruleset_id), "scene_checks") \
        if is_system(ruleset_id) else None


def system_import(ruleset_id: str) -> SystemImport:
    """What a system tells the importers (`rulesets/<id>/importing.py`'s IMPORT; a system
    without that module reads no rosters and gives layout traits no rules keys). The importers
    are imported here, for `import`: checking a scene's rules data needs none of them."""
    from battlesight.scenes.importers.common import SystemImport

    module = package_module(system_package(ruleset_id), "importing") \
        if is_system(ruleset_id) else None
    return module.IMPORT if module is not None else SystemImport()


def system_keys(ruleset_id: str) -> SceneKeys:
    """The keys the core and the system read."""
    module = system_module(ruleset_id)
    return CORE_KEYS | (module.KEYS if module is not None else SceneKeys())


def close_names(name: Any, known: Any) -> str:
    """'; did you mean 'a' or 'b'?' for the known names closest to name ('' when none)."""
    import difflib  # here: only a misspelt name needs it

    close = difflib.get_close_matches(str(name), sorted(str(k) for k in known), n=3, cutoff=0.6)
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""


def names_problem(value: Any, what: str = "name") -> str | None:
    """A message unless value is a non-empty string or a list of them."""
    items = value if isinstance(value, list) else [value]
    if all(isinstance(v, str) and v.strip() for v in items):
        return None
    return f"must be a {what} or a list of {what}s, got {show(value)}"


def stat_problem(value: Any) -> str | None:
    """A message unless value is a characteristic: a whole number from 0 to MAX_STAT, or text
    such as '3+' or '-'."""
    if isinstance(value, bool):
        return f"must be a whole number, got {show(value)}"
    if isinstance(value, int | float):
        if not math.isfinite(value) or not 0 <= value <= MAX_STAT or value != int(value):
            return f"must be a whole number from 0 to {MAX_STAT}, got {show(value)}"
        return None
    if isinstance(value, str) and _STAT_TEXT.match(value):
        return None
    return f"must be a whole number (or text such as '3+' or '-'), got {show(value)}"


def check_inline(ruleset_id: str, data: dict[str, Any], path: str,
                 stats: frozenset[str], any_case: bool = False) -> list[Problem]:
    """The core's inline keys of one model or unit entry (stats: the system's characteristic
    names, matched in any case when any_case)."""
    out: list[Problem] = []
    if "stats" in data and data["stats"] is not None:
        value = data["stats"]
        if not isinstance(value, dict):
            out.append((f"{path}.stats", f"must be a mapping of characteristics, got "
                                         f"{show(value)}"))
        else:
            for key, v in value.items():
                if stats and key not in stats and not (any_case and str(key).upper() in stats):
                    out.append((f"{path}.stats.{key}",
                                f"not a {ruleset_id} characteristic{close_names(key, stats)} "
                                f"(known: {', '.join(sorted(stats))})"))
                elif (why := stat_problem(v)) is not None:
                    out.append((f"{path}.stats.{key}", why))
    if "weapons" in data and data["weapons"] is not None:
        out += _weapons(ruleset_id, data["weapons"], f"{path}.weapons")
    for key in ("keywords", "rules"):
        if key in data and data[key] is not None and (why := names_problem(data[key])):
            out.append((f"{path}.{key}", why))
    if "type" in data and not (isinstance(data["type"], str) and data["type"].strip()):
        out.append((f"{path}.type", f"must be a unit type name, got {show(data['type'])}"))
    if "wounds_left" in data:
        left = data["wounds_left"]
        if isinstance(left, bool) or not isinstance(left, int) or not 1 <= left <= MAX_STAT:
            out.append((f"{path}.wounds_left",
                        f"must be a whole number from 1 to {MAX_STAT}, got {show(left)}"))
    return out


def _weapons(ruleset_id: str, value: Any, path: str) -> list[Problem]:
    if not isinstance(value, list):
        return [(path, f"must be a list of weapon names or mappings, got {show(value)}")]
    table = load_data(ruleset_id)["weapons"]
    out: list[Problem] = []
    for i, entry in enumerate(value):
        if isinstance(entry, str):
            if entry not in table:
                out.append((f"{path}[{i}]", f"unknown {ruleset_id} weapon {entry!r}"
                                            f"{close_names(entry, table)}"))
        elif not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            out.append((f"{path}[{i}]", f"a weapon is a name or a mapping with a 'name', got "
                                        f"{show(entry)}"))
    return out


def check_profile_name(ruleset_id: str, name: Any, path: str, *,
                       unit: bool = False) -> list[Problem]:
    """A profile name the system's data knows (units may also name a unit profile)."""
    if name is None:
        return []
    data = load_data(ruleset_id)
    known = set(data["models"]) | (set(data["units"]) if unit else {
        n for n, u in data["units"].items() if isinstance(u, dict) and u.get("model")})
    if not isinstance(name, str) or not name.strip():
        return [(path, f"must be a profile name, got {show(name)}")]
    if name in known:
        return []
    return [(path, f"unknown {ruleset_id} profile {name!r}{close_names(name, known)}")]


def check_rules_data(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Every problem of the rules data a scene gives for this ruleset."""
    module = system_module(ruleset.id)
    stats = frozenset(getattr(module, "STATS", ()))
    any_case = bool(getattr(module, "STATS_ANY_CASE", False))
    out: list[Problem] = []
    unit_paths: dict[str, str] = {}
    for i, unit in enumerate(scene.units):
        ident = unit.get("id")
        path = f"units[{ident}]" if isinstance(ident, str) and ident.strip() else f"units[{i}]"
        unit_paths[str(ident)] = path
        out += check_profile_name(ruleset.id, unit.get("profile"), f"{path}.profile", unit=True)
        out += check_inline(ruleset.id, unit, path, stats, any_case)
    units = {u.get("id"): u for u in scene.units}
    for spec in scene.models:
        path = f"models[{spec.id}]"
        unit = units.get(spec.unit) if spec.unit else None
        if spec.profile is not None and (unit or {}).get("profile") != spec.profile:
            out += check_profile_name(ruleset.id, spec.profile, f"{path}.profile")
        out += check_inline(ruleset.id, spec.extra, path, stats, any_case)
    if module is not None and hasattr(module, "check"):
        out += module.check(ruleset, scene)
    failed = {key.split(".")[0] for key, _ in out}
    for spec in scene.models:
        path = f"models[{spec.id}]"
        if path in failed or (spec.unit and unit_paths.get(spec.unit) in failed):
            continue
        try:
            profile = ruleset.load_profile(ruleset.raw_profile(scene, spec), spec)
            ruleset.starting_wounds(profile)
        except LOAD_ERRORS as exc:
            out.append((path, f"{ruleset.id} cannot use this model's profile: {exc}"))
    return out


def terrain_value_problems(scene: Scene, key: str, parse: Callable[[Any], Any]
                           ) -> list[Problem]:
    """Each terrain piece whose `key` the system's own reader (`parse`, the function the
    rules call) refuses with a ValueError: one problem naming the piece and the key."""
    out: list[Problem] = []
    for piece in scene.terrain:
        if key in piece.data:
            try:
                parse(piece.data[key])
            except ValueError as error:
                out.append((f"terrain[{piece.id}].{key}", f"{error}, got {show(piece.data[key])}"))
    return out
