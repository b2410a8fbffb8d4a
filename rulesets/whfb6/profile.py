"""WHFB 6th profiles: characteristics, weapons and special rules (whfb6 §8.7, §9.6, §7).

Inline keys: `stats: {M, WS, BS, S, T, W, I, A, Ld, Sv}` (Sv 5 means 5+; absent or '-' means
no armour), `ward: 5`, `weapons: [{name, range, S}]` (S a number, `user`, or `+1` for the
user's S plus one), `rules: [skirmishers, fast cavalry, large target, ...]`, `type:` (infantry,
cavalry, monster, war machine, chariot), `wizard: 2` (level; inline: `rules: [wizard 2]`),
`army: dwarfs`. A model's `role:` (champion, standard, musician) comes from the scene.
`ward`, `wizard` and `army` may be given inline on a unit entry or a model as on a data
profile (`merge_inline`); `stats: {Ward: 5}` is the same as `ward: 5`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STAT_KEYS = ("M", "WS", "BS", "S", "T", "W", "I", "A", "Ld", "Sv")
RULE_WEAPONS = "whfb6 §8.7"
#: Unit Strength per model by troop type (whfb6 §9.2, [GK✓]): infantry 1, cavalry 2.
UNIT_STRENGTH = {"infantry": 1, "cavalry": 2, "war machine": 3, "chariot": 4}
#: whfb6's own inline keys beside the core's (`core.profiles.INLINE_KEYS`).
INLINE_KEYS = ("ward", "wizard", "army")
#: A ward save rolls a D6 and a 1 always fails: 2+ to 6+ (whfb6 §8.4).
WARD_RANGE = (2, 6)
#: Wizard levels 1 to 4, each giving its power and casting dice (whfb6 §10).
WIZARD_LEVELS = (1, 4)


@dataclass(frozen=True)
class Weapon:
    """A missile or close combat weapon."""

    name: str
    range: float | None = None
    strength: int | str | None = None  # int, 'user', '+N' (user's S plus N); None = user's
    shots: int = 1
    rules: frozenset[str] = frozenset()
    first_round: int = 0  # +S in the first round of a combat (flail, morning star)
    charging: int = 0  # +S in the first round when charging (lance, cavalry spear)

    @property
    def melee(self) -> bool:
        return not self.range

    @property
    def half_range(self) -> float:
        return (self.range or 0.0) / 2.0

    def has(self, rule: str) -> bool:
        return rule in self.rules

    def strength_for(self, user_s: int) -> int:
        """The Strength of a hit with this weapon in the user's hands."""
        s = self.strength
        if s is None or s == "user":
            return int(user_s)
        if isinstance(s, str) and s.startswith(("+", "-")):
            return int(user_s) + int(s)
        return int(s)


@dataclass
class Profile:
    """One model's profile."""

    name: str | None
    stats: dict[str, int | None]
    weapons: list[Weapon] = field(default_factory=list)
    rules: frozenset[str] = frozenset()
    type: str = "infantry"
    ward: int | None = None
    wizard: int = 0
    army: str = ""
    role: str | None = None

    def stat(self, key: str, default: int | None = None) -> int | None:
        value = self.stats.get(key)
        return default if value is None else value

    def has(self, rule: str) -> bool:
        return rule in self.rules

    @property
    def skirmisher(self) -> bool:
        return self.has("skirmishers") or self.has("flyer")

    @property
    def fast_cavalry(self) -> bool:
        return self.has("fast cavalry")

    @property
    def large(self) -> bool:
        return self.has("large target")

    @property
    def unit_strength(self) -> int:
        if self.type == "monster":
            return int(self.stat("W", 1) or 1)
        return UNIT_STRENGTH.get(self.type, 1)

    def ranged(self) -> list[Weapon]:
        return [w for w in self.weapons if not w.melee]

    def melee_weapon(self) -> Weapon:
        """The close combat weapon it fights with (a hand weapon if none is listed)."""
        return next((w for w in self.weapons if w.melee), Weapon("hand weapon"))

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)


def _int_or_none(value: Any) -> int | None:
    if value is None or value == "-" or value == "":
        return None
    return int(value)


def merge_inline(raw: dict[str, Any], layers: list[dict[str, Any] | None]) -> dict[str, Any]:
    """The core's merged profile with whfb6's inline keys of each layer (the unit entry, then
    the model: later wins); a layer's `stats: {Ward: n}` sets the ward as `ward: n` does, and
    `ward:` beside it wins."""
    for layer in layers:
        if not layer:
            continue
        stats = layer.get("stats")
        if isinstance(stats, dict) and "Ward" in stats:
            raw["ward"] = stats["Ward"]
        for key in INLINE_KEYS:
            if key in layer:
                raw[key] = layer[key]
    return raw


def parse_weapon(raw: dict[str, Any]) -> Weapon:
    rules = frozenset(str(r).lower() for r in (raw.get("rules") or []))
    rng = raw.get("range")
    return Weapon(
        name=str(raw["name"]), range=float(rng) if rng else None,
        strength=raw.get("S", raw.get("strength")), shots=int(raw.get("shots", 1)),
        rules=rules, first_round=int(raw.get("first_round", 0)),
        charging=int(raw.get("charging", 0)),
    )


def parse_profile(raw: dict[str, Any], role: str | None = None) -> Profile:
    """A typed profile from the merged raw data (core.profiles.resolve)."""
    stats_raw = raw.get("stats") or {}
    unknown = set(stats_raw) - set(STAT_KEYS) - {"Ward"}
    if unknown:
        raise ValueError(f"unknown whfb6 characteristics {sorted(unknown)}; use {STAT_KEYS}")
    stats = {k: _int_or_none(stats_raw.get(k)) for k in STAT_KEYS}
    rules = frozenset(str(r).lower() for r in (*raw.get("rules", []), *raw.get("keywords", [])))
    ward = _int_or_none(raw.get("ward", stats_raw.get("Ward")))
    wizard = int(raw.get("wizard", 0) or 0) or next(
        (int(r.split()[-1]) for r in rules if r.startswith("wizard") and r.split()[-1].isdigit()),
        0)
    return Profile(
        name=raw.get("profile"), stats=stats,
        weapons=[parse_weapon(w) for w in raw.get("weapons") or []],
        rules=rules, type=str(raw.get("type", "infantry")).lower(), ward=ward,
        wizard=wizard, army=str(raw.get("army", "")).lower(),
        role=role,
    )
