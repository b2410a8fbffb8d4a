"""Typed MK II profiles: stats (SPD STR MAT RAT DEF ARM CMD FOC / FURY THR), weapons (RNG ROF
AOE POW, location, qualities), advantages, base class and damage capacity (wmh2 §1, §9).

Raw data comes from `data/*.yaml` merged with the scene's inline keys. A unit profile may carry
its own `stats` and `weapons`: they override the model profile it names (so a scene can put
`profile: trooper` on every trooper and let the unit say which troopers they are).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from battlesight.rulesets.core.profiles import ProfileError, load_data, resolve, weapon
from battlesight.scenes.model import ModelSpec, Scene
from battlesight.scenes.yamlread import package_data

from .rules import AOE_SIZES, MELEE_RANGE, REACH_RANGE, SPRAY_LENGTHS, size_class, volume_height

RULESET = "wmh2"
STAT_NAMES = ("SPD", "STR", "MAT", "RAT", "DEF", "ARM", "CMD", "FOC", "FURY", "THR")
TYPES = ("warcaster", "warlock", "warjack", "warbeast", "trooper", "solo")
#: Inline model keys that set a stat: `focus: 6` on a warcaster is its FOC (scene example).
STAT_ALIASES = {"focus": "FOC", "fury": "FURY"}


@dataclass(frozen=True)
class Weapon:
    """One weapon: melee (range 0.5", reach 2") or ranged (RNG inches); `aoe`: the template
    diameter of an AOE weapon; `spray`: the template length of a spray weapon (`RNG: "SP 8"`,
    its RNG is that length)."""

    name: str
    melee: bool
    rng: float
    rof: int | None = 1
    aoe: float | None = None
    pow: int | None = None
    location: str | None = None
    qualities: frozenset[str] = frozenset()
    spray: float | None = None

    def has(self, quality: str) -> bool:
        return quality.lower() in self.qualities

    @property
    def magical(self) -> bool:
        return self.has("magical")


@dataclass
class Profile:
    """A model's profile as the rules read it."""

    name: str | None
    type: str
    stats: dict[str, int]
    weapons: list[Weapon]
    keywords: frozenset[str]
    base: int  # size class in mm: 30, 40, 50
    boxes: int = 1
    grid: list[str] | None = None
    spiral: list[str] | None = None
    controller: str | None = None
    leader: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def has(self, keyword: str) -> bool:
        return keyword.lower() in self.keywords

    def stat(self, name: str, default: int = 0) -> int:
        return int(self.stats.get(name, default))

    @property
    def volume(self) -> float:
        return volume_height(self.base)

    @property
    def is_warjack(self) -> bool:
        return self.type == "warjack"

    @property
    def is_warbeast(self) -> bool:
        return self.type == "warbeast"

    @property
    def is_caster(self) -> bool:
        """A warcaster or warlock (battlegroup leader, Commander, Fearless)."""
        return self.type in ("warcaster", "warlock")

    @property
    def control_stat(self) -> str:
        return "FURY" if self.type == "warlock" else "FOC"

    @property
    def control_range(self) -> float:
        """Control area radius: 2 x FOC (warcaster) or 2 x FURY (warlock) (wmh2 §3)."""
        return 2.0 * self.stat(self.control_stat)

    @property
    def is_trooper(self) -> bool:
        return self.type == "trooper"

    def melee_weapons(self) -> list[Weapon]:
        return [w for w in self.weapons if w.melee]

    def ranged_weapons(self) -> list[Weapon]:
        return [w for w in self.weapons if not w.melee]

    def weapon(self, name: str) -> Weapon | None:
        for w in self.weapons:
            if w.name == name:
                return w
        return None

    @property
    def melee_range(self) -> float:
        """Longest melee range of its melee weapons; 0 without one (wmh2 §9.2)."""
        return max((w.rng for w in self.melee_weapons()), default=0.0)


def raw_profile(scene: Scene, spec: ModelSpec, standard: str | None = None) -> dict[str, Any]:
    """Merged raw data: the core's merge, then the unit profile's own stats and weapons, then
    the inline keys again (inline always wins); a plain model gets the `standard` profile."""
    unit = scene.unit(spec.unit) if spec.unit else None
    out = resolve(RULESET, spec, unit, standard=standard)
    unit_name = (unit or {}).get("profile")
    unit_profile = load_data(RULESET)["units"].get(str(unit_name)) if unit_name else None
    generic = (None, "trooper", (unit_profile or {}).get("model"))
    if unit_profile and spec.profile in generic:
        layers = [unit_profile, unit or {}, spec.extra]
        for layer in layers:
            if isinstance(layer.get("stats"), dict):
                out["stats"].update(layer["stats"])
            if isinstance(layer.get("weapons"), list):
                out["weapons"] = [weapon(RULESET, w) for w in layer["weapons"]]
            for key in ("type", "damage", "grid", "spiral"):
                if key in layer:
                    out[key] = copy.deepcopy(layer[key])
    for alias, stat in STAT_ALIASES.items():
        if alias in spec.extra and isinstance(spec.extra[alias], int):
            out["stats"][stat] = spec.extra[alias]
    return out


def parse_weapon(entry: dict[str, Any]) -> Weapon:
    """A weapon from raw data: `RNG: melee` (0.5"), `RNG: reach` or `reach: true` (2"),
    `melee: true` with a number, `RNG: "SP 6"` / `"SP 8"` / `"SP 10"` (a spray), or a ranged
    RNG in inches; `AOE` is 3, 4 or 5 (the template's diameter)."""
    name = str(entry.get("name", "weapon"))
    rng = entry.get("RNG", entry.get("rng"))
    quals = {str(q).lower() for q in entry.get("qualities", []) or []}
    spray = spray_length(rng)
    if isinstance(rng, str) and spray is None and rng.strip().lower() not in ("melee", "reach"):
        raise ProfileError(f"weapon {name!r}: RNG {rng!r} is not a number, melee, reach or "
                           f"SP {'/'.join(f'{n:g}' for n in SPRAY_LENGTHS)}")
    melee = spray is None and (bool(entry.get("melee")) or isinstance(rng, str))
    if entry.get("reach") or (isinstance(rng, str) and rng.lower() == "reach"):
        melee, quals = True, quals | {"reach"}
    if melee:
        rng_in = REACH_RANGE if "reach" in quals else (
            float(rng) if isinstance(rng, (int, float)) else MELEE_RANGE)
    elif spray is not None:
        if spray not in SPRAY_LENGTHS:
            raise ProfileError(f"weapon {name!r}: {rng!r} is not a spray template "
                               f"(SP {', SP '.join(f'{n:g}' for n in SPRAY_LENGTHS)})")
        rng_in = spray
    else:
        if not isinstance(rng, (int, float)):
            raise ProfileError(f"weapon {name!r} needs a numeric RNG or RNG: melee")
        rng_in = float(rng)
    aoe = _num(entry.get("AOE", entry.get("aoe")))
    if aoe is not None and aoe not in AOE_SIZES:
        raise ProfileError(f"weapon {name!r}: AOE {aoe:g} is not a template "
                           f"({', '.join(f'{n:g}' for n in AOE_SIZES)})")
    rof = entry.get("ROF", entry.get("rof", None if melee else 1))
    pow_ = entry.get("POW", entry.get("pow"))
    return Weapon(name, melee, rng_in, None if rof in (None, "-", "*") else int(rof), aoe,
                  None if pow_ in (None, "-") else int(pow_),
                  entry.get("location"), frozenset(quals), spray)


def spray_length(rng: Any) -> float | None:
    """The length of a spray RNG (`"SP 8"` is 8), None for any other RNG (wmh2 §9.1)."""
    match = re.fullmatch(r"\s*SP\s*(\d+(?:\.\d+)?)\s*", rng, re.IGNORECASE) if isinstance(
        rng, str) else None
    if match is None:
        return None
    return float(match.group(1))


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def parse_profile(raw: dict[str, Any], spec: ModelSpec) -> Profile:
    """A typed profile; unknown stats are kept, damage capacity from `damage` (boxes), `grid`
    (a named or inline warjack grid) or `spiral` (a warbeast life spiral)."""
    stats = {str(k).upper(): int(v) for k, v in (raw.get("stats") or {}).items()
             if isinstance(v, (int, float))}
    kind = str(raw.get("type") or "trooper").lower()
    if kind not in TYPES:
        raise ProfileError(f"model {spec.id!r}: unknown type {kind!r} (one of {TYPES})")
    weapons = [parse_weapon(w) for w in raw.get("weapons") or []]
    keywords = {str(k).lower() for k in raw.get("keywords") or []}
    if kind in ("warcaster", "warlock"):
        keywords |= {"commander", "fearless"}
    if kind == "warjack":
        keywords.add("construct")
    grid = _track(raw.get("grid"), "grids", spec)
    spiral = _track(raw.get("spiral"), "spirals", spec)
    boxes = int(raw.get("damage") or 1)
    if grid:
        boxes = sum(len(col) for col in grid)
    elif spiral:
        boxes = sum(len(branch) for branch in spiral)
    return Profile(raw.get("profile"), kind, stats, weapons, frozenset(keywords),
                   size_class(spec.base_mm), boxes, grid, spiral,
                   spec.extra.get("controller"), bool(spec.extra.get("leader")), raw)


def _track(value: Any, table: str, spec: ModelSpec) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        named = (load_data_tracks().get(table) or {}).get(value)
        if named is None:
            raise ProfileError(f"model {spec.id!r}: unknown {table[:-1]} {value!r}")
        return [str(c) for c in named]
    if isinstance(value, list) and len(value) == 6:
        return [str(c) for c in value]
    raise ProfileError(f"model {spec.id!r}: a {table[:-1]} is a name or six strings")


@lru_cache(maxsize=1)
def load_data_tracks() -> dict[str, Any]:
    """Named damage grids and life spirals from `data/tracks.yaml`."""
    path = Path(__file__).resolve().parent / "data" / "tracks.yaml"
    return package_data(path.read_text(encoding="utf-8")) or {}
