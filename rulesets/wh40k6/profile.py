"""Typed 40k profiles and weapons, parsed from the merged raw data (wh40k6 §8.6, §11)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from battlesight.rulesets.core.profiles import ProfileError

from .ambiguities import A21

VEHICLE_TYPES = {"vehicle", "walker", "flyer"}
SHOT_KINDS = {"rapid fire", "assault", "heavy", "salvo", "pistol", "ordnance", "melee"}
MOUNT_ARCS = {"turret": 360.0, "hull": 45.0, "sponson": 180.0, "pintle": 360.0}


def _stat(value: Any) -> int | None:
    """'3+' -> 3, '-' or None -> None, ints unchanged."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().rstrip("+")
    if text in ("-", "", "—"):
        return None
    try:
        return int(text)
    except ValueError:
        raise ProfileError(f"bad characteristic {value!r}") from None


@dataclass
class Weapon:
    """One weapon profile."""

    name: str
    range: float | None  # None: template or melee
    strength: str | int  # int, 'User', '+N', 'xN', 'X'
    ap: int | None
    kind: str  # rapid fire | assault | heavy | salvo | pistol | ordnance | melee
    shots: int | str = 1  # int or 'D3' / 'D6'
    salvo: tuple[int, int] = (0, 0)  # (moved, stationary)
    min_range: float = 0.0
    template: bool = False
    blast: float = 0.0  # marker diameter: 3 blast, 5 large blast
    barrage: bool = False
    rules: frozenset[str] = frozenset()
    mount: str | None = None
    arc: float = 360.0

    @property
    def melee(self) -> bool:
        return self.kind == "melee"

    @property
    def half_range(self) -> float:
        return (self.range or 0.0) / 2.0

    def within_half(self, distance: float) -> bool:
        """Whether a target `distance` away is within half range (rapid fire, salvo, melta;
        A21: exactly half is within, or not under 'exclusive')."""
        if A21.means("exclusive"):
            return distance < self.half_range - 1e-9
        return distance <= self.half_range + 1e-9

    def has(self, rule: str) -> bool:
        return rule in self.rules

    def strength_for(self, user: int | None) -> int | None:
        """The weapon's S with a user of strength `user` (capped at 10)."""
        s = self.strength
        if isinstance(s, int):
            return s
        text = str(s).strip().lower().replace("×", "x")
        if text == "x":
            return None  # sniper: wounds on 4+ regardless
        base = user or 0
        if text == "user":
            return min(10, base)
        if text.startswith("x"):
            return min(10, base * int(text[1:]))
        if text.startswith("+"):
            return min(10, base + int(text[1:]))
        return int(text)


def parse_weapon(raw: dict[str, Any]) -> Weapon:
    """A Weapon from a data/inline mapping {name, range, S, AP, type, mount?, arc?, rules?}."""
    name = str(raw.get("name", "?"))
    tokens = [t.strip().lower() for t in str(raw.get("type", "")).split(",") if t.strip()]
    if not tokens:
        raise ProfileError(f"weapon {name!r} has no type")
    head, rules = tokens[0], set(tokens[1:]) | {str(r).lower() for r in raw.get("rules", [])}
    match = re.fullmatch(r"(rapid fire|assault|heavy|salvo|pistol|ordnance|melee)\s*(\S*)", head)
    if not match:
        raise ProfileError(f"weapon {name!r}: unknown type {raw.get('type')!r}")
    kind, count = match.group(1), match.group(2)
    shots: int | str = 1
    salvo = (0, 0)
    if kind == "salvo":
        moved, still = (int(x) for x in count.split("/"))
        salvo, shots = (moved, still), still
    elif count:
        shots = int(count) if count.isdigit() else count.upper()
    rng_raw = str(raw.get("range", "-")).strip().lower()
    template = rng_raw == "template" or "template" in rules
    barrage = "barrage" in rules or rng_raw.startswith("g")
    min_range, rng = 0.0, None
    if rng_raw not in ("-", "template", ""):
        text = rng_raw.lstrip("g").replace('"', "")
        if "-" in text:
            lo, hi = text.split("-")
            min_range, rng = float(lo), float(hi)
        else:
            rng = float(text)
    if kind == "pistol" and rng is None:
        rng = 12.0
    blast = 5.0 if "large blast" in rules else 3.0 if "blast" in rules or barrage else 0.0
    rules -= {"blast", "large blast", "barrage", "template"}
    strength = raw.get("S", raw.get("strength", "User"))
    strength = strength if isinstance(strength, int) else str(strength)
    mount = raw.get("mount")
    arc = float(raw.get("arc", MOUNT_ARCS.get(str(mount), 360.0)))
    return Weapon(name, rng, strength, _stat(raw.get("AP", raw.get("ap"))), kind, shots, salvo,
                  min_range, template, blast, barrage, frozenset(rules),
                  None if mount is None else str(mount), arc)


@dataclass
class Profile:
    """A 40k model: unit type, characteristics, weapons and special rules (lower case)."""

    name: str | None
    type: str
    stats: dict[str, int | None]
    weapons: list[Weapon]
    rules: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()  # vehicle kinds: tank, fast, heavy, open-topped ...
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    powers: tuple[Any, ...] = ()  # psychic power names (or inline power mappings), §8.11

    def __getattr__(self, key: str) -> int | None:
        stats = self.__dict__.get("stats", {})
        if key in stats:
            return stats[key]
        raise AttributeError(key)

    @property
    def is_vehicle(self) -> bool:
        return self.type in VEHICLE_TYPES or "front" in {k.lower() for k in self.stats}

    @property
    def is_walker(self) -> bool:
        return self.type == "walker" or "walker" in self.kinds

    def stat(self, key: str, default: int | None = None) -> int | None:
        value = self.stats.get(key)
        return default if value is None else value

    def has(self, rule: str) -> bool:
        return rule.lower() in self.rules

    @property
    def is_character(self) -> bool:
        return self.has("character") or self.has("independent character")

    def ranged(self) -> list[Weapon]:
        return [w for w in self.weapons if not w.melee]

    def melee_weapons(self) -> list[Weapon]:
        return [w for w in self.weapons if w.melee or w.kind == "pistol"]

    def weapon(self, name: str) -> Weapon | None:
        for w in self.weapons:
            if w.name.lower() == name.lower():
                return w
        return None

    def armour(self, facing: str) -> int | None:
        return self.stats.get(facing.capitalize())

    @property
    def mastery(self) -> int:
        """Psychic mastery level (§8.11): the `ML` stat, else 1 for a `Psyker` keyword (or
        `Psyker (Mastery Level N)`), else 0."""
        ml = self.stats.get("ML")
        if ml is not None:
            return int(ml)
        for rule in self.rules:
            if rule.startswith("psyker"):
                digits = re.findall(r"\d+", rule)
                return int(digits[0]) if digits else 1
        return 0


def parse_profile(raw: dict[str, Any]) -> Profile:
    """A Profile from the merged raw profile (core.profiles.resolve)."""
    stats = {str(k): _stat(v) for k, v in (raw.get("stats") or {}).items()}
    if "W" not in stats and "HP" not in stats:
        stats["W"] = 1
    rules = frozenset(str(k).lower() for k in [*raw.get("keywords", []), *raw.get("rules", [])])
    kinds = frozenset(str(k).lower() for k in raw.get("kinds", []))
    kind = str(raw.get("type", "vehicle" if "Front" in stats else "infantry")).lower()
    weapons = [parse_weapon(w) for w in raw.get("weapons", [])]
    if not any(w.melee for w in weapons):
        weapons.append(Weapon("close combat weapon", None, "User", None, "melee"))
    powers = raw.get("powers") or ()
    if isinstance(powers, (str, dict)):
        powers = [powers]
    return Profile(raw.get("profile"), kind, stats, weapons, rules, kinds, raw, tuple(powers))
