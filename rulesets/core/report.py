"""The lines of a shooting report that every system shares: one per firing model, one per
target model, with the keys `battlesight shoot --json` promises for all rulesets.

Every target line carries the one odds chain of the report schema (shoot.schema.json):
`p_hit` (one attack hits), `p_wound` (a hit wounds; in MK II, deals damage), `p_save_fail`
(a wound is not saved; 1 where the system has no save) and `p_unsaved`, their product, per
attack; `exact` gives the same four as fractions; `modifiers` lists every modifier applied,
each with its rule. `chain` turns a mix of attacks into that one chain without losing the
product.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .profiles import profile_label
from .ruling import Cover
from .verdict import Modifier

if TYPE_CHECKING:
    from .board import Board

#: (weight, p_hit, p_wound, p_save_fail) of one kind of attack in a mix
Part = tuple[Fraction, Fraction, Fraction, Fraction]


def chain(parts: Iterable[Part]) -> tuple[Fraction, Fraction, Fraction]:
    """(p_hit, p_wound, p_save_fail) of a weighted mix of attacks (weights: attacks made), each
    conditional on the step before (P(wound | hit), P(not saved | wound)), so that their
    product is exactly the mix's P(unsaved) per attack. Steps no attack reaches fall back to
    the plain weighted mean."""
    parts = list(parts)
    total = sum((w for w, *_ in parts), Fraction(0))
    if not total:
        return Fraction(0), Fraction(0), Fraction(1)
    hits = sum((w * h for w, h, _, _ in parts), Fraction(0))
    wounds = sum((w * h * d for w, h, d, _ in parts), Fraction(0))
    unsaved = sum((w * h * d * s for w, h, d, s in parts), Fraction(0))
    p_wound = wounds / hits if hits else sum((w * d for w, _, d, _ in parts), Fraction(0)) / total
    p_fail = unsaved / wounds if wounds else (
        sum((w * s for w, _, _, s in parts), Fraction(0)) / total)
    return hits / total, p_wound, p_fail


def odds_keys(p_hit: Fraction, p_wound: Fraction, p_save_fail: Fraction,
              modifiers: Iterable[Modifier] = ()) -> dict[str, Any]:
    """The report schema's odds of one target line: floats, the exact fractions and the
    modifiers (p_unsaved is the product of the three steps, computed exactly)."""
    exact = {"p_hit": Fraction(p_hit), "p_wound": Fraction(p_wound),
             "p_save_fail": Fraction(p_save_fail)}
    exact["p_unsaved"] = exact["p_hit"] * exact["p_wound"] * exact["p_save_fail"]
    return {**{k: float(v) for k, v in exact.items()},
            "exact": {k: str(v) for k, v in exact.items()},
            "modifiers": [m.to_dict() for m in unique(modifiers)]}


def unique(modifiers: Iterable[Modifier]) -> list[Modifier]:
    """The modifiers without repeats, in first-seen order."""
    return list(dict.fromkeys(modifiers))


def label_profiles(board: Board, report: dict[str, Any]) -> dict[str, Any]:
    """Add to every firer and target line of a JSON report what profile its model is judged
    with (`profile_label`: a name, 'inline stats' or 'standard model (none given)')."""
    for line in [*report.get("firers", ()), *report.get("targets", ())]:
        model = line.get("model")
        if model in board.models:
            line["profile"] = profile_label(board.scene, board.model(model).spec)
    return report


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
    attack (the chain of `odds_keys`). Systems subclass it to add their own keys (`extra`)."""

    model: str
    visible: bool
    visible_fraction: float
    cover: Cover
    distance: float
    in_range: bool
    p_hit: Fraction = Fraction(0)
    p_wound: Fraction = Fraction(0)
    p_save_fail: Fraction = Fraction(1)
    modifiers: list[Modifier] = field(default_factory=list)

    @property
    def p_unsaved(self) -> Fraction:
        """P(one attack hits, wounds and is not saved)."""
        return self.p_hit * self.p_wound * self.p_save_fail

    def set_odds(self, parts: Iterable[Part]) -> None:
        """The odds chain of a mix of attacks on this model (see `chain`)."""
        self.p_hit, self.p_wound, self.p_save_fail = chain(parts)

    def extra(self) -> dict[str, Any]:
        """System-specific keys of the JSON line."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "visible": self.visible,
            "visible_fraction": round(self.visible_fraction, 4), "cover": self.cover.to_dict(),
            "distance": round(self.distance, 3), "in_range": self.in_range,
            **odds_keys(self.p_hit, self.p_wound, self.p_save_fail, self.modifiers),
            **self.extra(),
        }
