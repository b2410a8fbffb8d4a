"""wmh2's scene checks: the keys it reads (terrain kinds, battlegroups, focus and fury, damage
tracks, clouds in play) and its characteristics; clouds must be a list of {id, at, radius,
height}."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.rules_data import (
    MAX_STAT,
    Problem,
    stat_problem,
    terrain_value_problems,
)
from battlesight.scenes.checks import is_number, show
from battlesight.scenes.limits import MAX_COORDINATE

if TYPE_CHECKING:
    from battlesight.rulesets.core.ruleset import Ruleset
    from battlesight.scenes.model import Scene

from battlesight.scenes.keys import declare

from .profile import spray_length
from .rules import AOE_SIZES, SPRAY_LENGTHS
from .terrain import parse_cover

STATS = frozenset({"SPD", "STR", "MAT", "RAT", "DEF", "ARM", "CMD", "FOC", "FURY", "THR"})
#: wmh2 reads characteristic names in any case (`spd` is SPD)
STATS_ANY_CASE = True
TRACK_KEYS = ("damage", "grid", "spiral")
KEYS = declare(
    top=("clouds",),
    terrain=("cover", "concealment", "obstacle", "obstruction", "rough", "impassable", "forest",
             "cloud", "elevation"),
    model=("controller", "leader", "focus", "fury", "arc", *TRACK_KEYS),
    unit=TRACK_KEYS,
)
CLOUD_KEYS = ("id", "at", "radius", "height")


def _finite(value: Any, positive: bool = False) -> bool:
    return (is_number(value) and abs(value) <= MAX_COORDINATE and value == value
            and (value > 0 or not positive))


def _clouds(value: Any) -> list[Problem]:
    if value is None:
        return []
    if not isinstance(value, list):
        return [("clouds", f"must be a list of {{id, at, radius}} mappings, got {show(value)}")]
    out: list[Problem] = []
    for i, cloud in enumerate(value):
        path = f"clouds[{i}]"
        if not isinstance(cloud, dict):
            out.append((path, f"a cloud is a mapping {{id, at, radius}}, got {show(cloud)}"))
            continue
        at = cloud.get("at")
        if "at" not in cloud:
            out.append((f"{path}.at", "missing required key 'at' (the cloud's centre [x, y])"))
        elif not (isinstance(at, list) and len(at) == 2 and all(_finite(v) for v in at)):
            out.append((f"{path}.at", f"must be [x, y], got {show(at)}"))
        for key in ("radius", "height"):
            if cloud.get(key) is not None and not _finite(cloud[key], positive=True):
                out.append((f"{path}.{key}", f"must be a number greater than 0, got "
                                             f"{show(cloud[key])}"))
        if "id" in cloud and not isinstance(cloud["id"], str):
            out.append((f"{path}.id", f"must be a string, got {show(cloud['id'])}"))
        for key in cloud:
            if key not in CLOUD_KEYS:
                out.append((f"{path}.{key}", f"a cloud has only {', '.join(CLOUD_KEYS)}"))
    return out


def _sizes(values: tuple[float, ...], prefix: str = "") -> str:
    return ", ".join(f"{prefix}{v:g}" for v in values)


#: a weapon's whole-number stats: the least each may be (ROF 0 would be a weapon that never
#: attacks: leave ROF out, or '-', for a weapon without a rate of fire)
WEAPON_NUMBERS = {"ROF": 1, "POW": 0}
#: the texts a weapon's ROF / POW may be instead of a number (no value, or a variable rate)
WEAPON_TEXTS = {"ROF": ("-", "*"), "POW": ("-",)}


def _whole_problem(value: Any, least: int, texts: tuple[str, ...]) -> str | None:
    """A message unless value is a whole number from least to MAX_STAT or one of texts."""
    if isinstance(value, str) and value.strip() in texts:
        return None
    if is_number(value) and value == value and value == int(value) \
            and least <= value <= MAX_STAT:
        return None
    also = f" or {' / '.join(repr(t) for t in texts)}" if texts else ""
    return f"must be a whole number from {least} to {MAX_STAT}{also}, got {show(value)}"


def stat_text_problems(data: dict[str, Any], path: str) -> list[Problem]:
    """wmh2 characteristics are numbers: text other than '-' (such as '3+', which the core
    accepts for other systems) would be dropped from the profile without a word."""
    stats = data.get("stats")
    return [(f"{path}.stats.{key}", f"a wmh2 characteristic is a whole number (or '-'), got "
                                    f"{show(v)}")
            for key, v in (stats.items() if isinstance(stats, dict) else ())
            if isinstance(v, str) and v.strip() != "-" and stat_problem(v) is None]


def weapon_problems(value: Any, path: str) -> list[Problem]:
    """The RNG, AOE, ROF and POW of each inline weapon mapping: RNG a distance in inches,
    melee, reach or a spray SP 6 / SP 8 / SP 10; AOE a template diameter 3, 4 or 5 (wmh2
    §9.1); ROF a whole number from 1 (or '-' / '*'), POW a whole number from 0 (or '-')."""
    out: list[Problem] = []
    for i, entry in enumerate(value if isinstance(value, list) else []):
        if not isinstance(entry, dict):
            continue
        for key in entry:
            name = str(key).upper()
            if name in WEAPON_NUMBERS and entry[key] is not None and (why := _whole_problem(
                    entry[key], WEAPON_NUMBERS[name], WEAPON_TEXTS[name])):
                out.append((f"{path}.weapons[{i}].{key}", why))
        for key in ("RNG", "rng"):
            rng = entry.get(key)
            if key not in entry or (isinstance(rng, str) and rng.strip().lower() in (
                    "melee", "reach")) or (_finite(rng, positive=True)):
                continue
            length = spray_length(rng)
            if length is None or length not in SPRAY_LENGTHS:
                out.append((f"{path}.weapons[{i}].{key}",
                            f"must be inches (a number greater than 0), melee, reach or a "
                            f"spray ({_sizes(SPRAY_LENGTHS, 'SP ')}), got {show(rng)}"))
        for key in ("AOE", "aoe"):
            aoe = entry.get(key)
            if aoe is not None and aoe != "-" and not (is_number(aoe) and aoe in AOE_SIZES):
                out.append((f"{path}.weapons[{i}].{key}",
                            f"must be a template diameter in inches ({_sizes(AOE_SIZES)}), "
                            f"got {show(aoe)}"))
            elif aoe not in (None, "-") and any(spray_length(entry.get(k)) is not None
                                                for k in ("RNG", "rng")):
                # one template per attack: a spray read with an AOE silently lost its spray
                out.append((f"{path}.weapons[{i}].{key}",
                            f"a spray weapon (RNG {show(entry.get('RNG', entry.get('rng')))}) "
                            f"has no AOE: give one or the other"))
    return out


def check(ruleset: Ruleset, scene: Scene) -> list[Problem]:
    """Clouds in play; focus, fury and arc; the controller of a battlegroup model; numeric
    characteristics; the RNG, AOE, ROF and POW of inline weapons."""
    out = _clouds(scene.extra.get("clouds")) + terrain_value_problems(scene, "cover", parse_cover)
    ids = {m.id for m in scene.models}
    for i, unit in enumerate(scene.units):
        ident = unit.get("id")
        upath = f"units[{ident}]" if isinstance(ident, str) and ident.strip() else f"units[{i}]"
        out += weapon_problems(unit.get("weapons"), upath) + stat_text_problems(unit, upath)
    for spec in scene.models:
        path = f"models[{spec.id}]"
        out += weapon_problems(spec.extra.get("weapons"), path)
        out += stat_text_problems(spec.extra, path)
        for key in ("focus", "fury"):
            if key in spec.extra and (why := stat_problem(spec.extra[key])):
                out.append((f"{path}.{key}", why))
        arc = spec.extra.get("arc")
        if arc is not None and not (_finite(arc, positive=True) and arc <= 360):
            out.append((f"{path}.arc", f"must be degrees from 0 to 360, got {show(arc)}"))
        ctrl = spec.extra.get("controller")
        if ctrl is not None and (not isinstance(ctrl, str) or ctrl not in ids):
            out.append((f"{path}.controller", f"must name a model of the scene, got {show(ctrl)}"))
    return out
