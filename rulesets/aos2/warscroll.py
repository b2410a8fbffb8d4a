"""Age of Sigmar 2nd edition warscrolls (aos2 §8, §12): characteristics, weapons, keywords.

Inline keys: `stats: {move, wounds, bravery, save}` (save 4 means 4+, '-' none), `keywords:
[HERO, MONSTER, ...]` (any case; hyphens are spaces), `weapons: [{name, range, attacks, to_hit,
to_wound, rend, damage}]` (to_hit 3 means 3+, rend -1 as printed; range "6-48" gives a minimum
range; `type: missile | melee`, else a weapon with range over 3" is a missile weapon), `fly:
true`, `wizard: {casts: 1, unbinds: 1, spells: [arcane bolt, mystic shield]}`. A model-level
`wounds:` key overrides the Wounds characteristic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from battlesight.rulesets.core.dice import Dist, d3, d6, nd6

STAT_KEYS = ("move", "wounds", "bravery", "save")
MELEE_MAX_RANGE = 3.0
RULE_WARSCROLL = "aos2 §8.2"


def dice_value(value: Any) -> Dist:
    """A characteristic as a distribution: 2, 'D3', 'D6', '2D6', 'D3+1'."""
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
        return Dist.constant(int(value))
    text = str(value).upper().replace(" ", "")
    extra = 0
    if "+" in text:
        text, plus = text.split("+", 1)
        extra = int(plus)
    base = {"D3": d3(), "D6": d6(), "2D6": nd6(2)}.get(text)
    if base is None:
        raise ValueError(f"cannot read {value!r} as a number or dice")
    return base + extra


@dataclass(frozen=True)
class Weapon:
    name: str
    range: float
    attacks: int | str
    to_hit: int
    to_wound: int
    rend: int = 0
    damage: int | str = 1
    missile: bool = False
    min_range: float = 0.0

    def attacks_dist(self) -> Dist:
        return dice_value(self.attacks)

    def damage_dist(self) -> Dist:
        return dice_value(self.damage)


@dataclass
class Warscroll:
    name: str | None
    move: int
    wounds: int
    bravery: int
    save: int | None
    keywords: frozenset[str] = frozenset()
    weapons: list[Weapon] = field(default_factory=list)
    fly: bool = False
    wizard: dict[str, Any] = field(default_factory=dict)

    def has(self, keyword: str) -> bool:
        return keyword.lower().replace("-", " ") in self.keywords

    def missile(self) -> list[Weapon]:
        return [w for w in self.weapons if w.missile]

    def melee(self) -> list[Weapon]:
        return [w for w in self.weapons if not w.missile]


def _range(value: Any) -> tuple[float, float]:
    text = str(value).replace('"', "").replace(" ", "")
    if "-" in text.lstrip("-"):
        lo, hi = text.split("-", 1)
        return float(lo), float(hi)
    return 0.0, float(text)


def _need(value: Any) -> int:
    return int(str(value).rstrip("+"))


def parse_weapon(raw: dict[str, Any]) -> Weapon:
    lo, hi = _range(raw.get("range", 1))
    kind = str(raw.get("type", "")).lower()
    missile = kind == "missile" if kind else hi > MELEE_MAX_RANGE
    rend = raw.get("rend", 0)
    return Weapon(str(raw["name"]), hi, raw.get("attacks", 1), _need(raw.get("to_hit", 4)),
                  _need(raw.get("to_wound", 4)), int(rend) if rend not in ("-", None) else 0,
                  raw.get("damage", 1), missile, lo)


def parse_warscroll(raw: dict[str, Any], extra: dict[str, Any] | None = None) -> Warscroll:
    stats = dict(raw.get("stats") or {})
    unknown = set(stats) - set(STAT_KEYS)
    if unknown:
        raise ValueError(f"unknown aos2 characteristics {sorted(unknown)}; use {STAT_KEYS}")
    if extra and isinstance(extra.get("wounds"), int):
        stats["wounds"] = extra["wounds"]
    save = stats.get("save")
    keywords = frozenset(str(k).lower().replace("-", " ") for k in raw.get("keywords") or [])
    return Warscroll(
        name=raw.get("profile"), move=int(stats.get("move", 5)),
        wounds=int(stats.get("wounds", 1)), bravery=int(stats.get("bravery", 7)),
        save=None if save in (None, "-", 7) else _need(save), keywords=keywords,
        weapons=[parse_weapon(w) for w in raw.get("weapons") or []],
        fly=bool(raw.get("fly", False)) or "fly" in keywords,
        wizard=dict(raw.get("wizard") or {}),
    )
