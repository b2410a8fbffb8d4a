"""The lines of a shooting report that every system shares: one per firing model, one per
target model, with the keys `battlesight shoot --json` promises for all rulesets."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .ruling import Cover


@dataclass
class FirerLine:
    """One firing model with one weapon: can it fire, what it sees, is it in range, and its
    chance to hit with one attack. Systems subclass it to add their own keys (`extra`)."""

    model: str
    weapon: Any = None
    can_fire: bool = False
    reason: str = ""
    sees: list[str] = field(default_factory=list)
    in_range: bool = False
    closest: str | None = None
    distance: float | None = None
    p_hit: Fraction = Fraction(0)

    def extra(self) -> dict[str, Any]:
        """System-specific keys of the JSON line."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "weapon": getattr(self.weapon, "name", None),
            "can_fire": self.can_fire, "reason": self.reason, "sees": list(self.sees),
            "in_range": self.in_range, "closest": self.closest,
            "distance": None if self.distance is None else round(self.distance, 3),
            "p_hit": float(self.p_hit), **self.extra(),
        }


@dataclass
class TargetLine:
    """One target model: what the firers see of it, its cover and the exact odds of one
    attack. Systems subclass it to add their own keys (`extra`)."""

    model: str
    visible: bool
    visible_fraction: float
    cover: Cover
    distance: float
    in_range: bool
    p_hit: Fraction = Fraction(0)
    p_wound: Fraction = Fraction(0)
    p_unsaved: Fraction = Fraction(0)

    def extra(self) -> dict[str, Any]:
        """System-specific keys of the JSON line."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "visible": self.visible,
            "visible_fraction": round(self.visible_fraction, 4), "cover": self.cover.to_dict(),
            "distance": round(self.distance, 3), "in_range": self.in_range,
            "p_hit": float(self.p_hit), "p_wound": float(self.p_wound),
            "p_unsaved": float(self.p_unsaved), **self.extra(),
        }
