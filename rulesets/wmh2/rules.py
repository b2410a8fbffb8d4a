"""WARMACHINE/HORDES MK II constants and small rulings: base classes and volumes, measuring
("within", "completely within"), rounding, stat modification order and floors, effect
stacking, command checks and deployment (rules page: docs/rules/wmh2.md).

Every function here is pure: numbers in, numbers (or a `Ruling`) out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from battlesight.geometry.plan import base_gap
from battlesight.rulesets.core.dice import Dist, nd6
from battlesight.rulesets.core.ruling import Ruling

from .ambiguities import A2, A13

MM_PER_INCH = 25.4
SMALL, MEDIUM, LARGE = 30, 40, 50
#: Base size class (mm) -> volume height above the bottom of the base (wmh2 §4).
VOLUME_HEIGHT = {SMALL: 1.75, MEDIUM: 2.25, LARGE: 2.75}
CLASS_NAME = {SMALL: "small", MEDIUM: "medium", LARGE: "large"}
ELEVATION_STEP = 1.0  # wmh2 §5.4 (A2: >= 1" everywhere)
STEALTH_RANGE = 5.0  # wmh2 §5.6 (A13: strictly more than 5")
FOREST_DEPTH = 3.0  # wmh2 §5.6
COVER_REACH = 1.0  # wmh2 §6: within 1" of the feature
MELEE_RANGE = 0.5  # wmh2 §9.2
REACH_RANGE = 2.0  # wmh2 §9.1
CHARGE_BONUS = 3.0  # wmh2 §8.3
CHARGE_ATTACK_MIN = 3.0  # wmh2 §8.3: moved 3" or more
MAX_FOCUS_ON_JACK = 3  # wmh2 §2.4
DEF_FLOOR = 5  # wmh2 §9.1
AOE_SIZES = (3.0, 4.0, 5.0)  # wmh2 §9.1: AOE template diameters
SPRAY_LENGTHS = (6.0, 8.0, 10.0)  # wmh2 §9.2: SP 6, SP 8, SP 10
#: wmh2 §9.2 (GK-L): the spray template as a wedge from the attacker's base edge, 0.5" wide
#: there and 2.5" wide at its 10" end; SP 6 and SP 8 are the same wedge cut at 6" and 8"
SPRAY_WIDTH_NEAR, SPRAY_WIDTH_FAR = 0.5, 2.5
ABOMINATION_RANGE = 3.0  # wmh2 §10
TOL = 1e-9
#: Elevations come from ray hits fired from high above the table (float32): they can be off by
#: about 1e-3", so "1\" or more" comparisons allow that much (a surface exactly 1" up counts).
ELEVATION_TOL = 2e-3


def higher(dz: float, step: float = ELEVATION_STEP) -> bool:
    """Whether a height difference makes a model elevated (wmh2 §5.4, A2: `step` or more, or
    more than `step` under reading wmh2.A2 'more-than-1')."""
    if A2.means("more-than-1"):
        return dz > step + ELEVATION_TOL
    return dz >= step - ELEVATION_TOL


def beyond_stealth(distance: float) -> bool:
    """Whether Stealth works at this distance from the viewer or attacker (wmh2 §5.6, A13:
    more than 5\", or 5\" or more under reading wmh2.A13 '5-or-more')."""
    if A13.means("5-or-more"):
        return distance >= STEALTH_RANGE - TOL
    return distance > STEALTH_RANGE + TOL


RULE_BASES = "wmh2 §4"
RULE_MEASURE = "wmh2 §3"
RULE_STATS = "wmh2 §9.1"
RULE_COMMAND = "wmh2 §10"
RULE_DEPLOY = "wmh2 §13"


def size_class(base_mm: float | tuple[float, float]) -> int:
    """Base class in mm (30, 40 or 50) of a base diameter; ovals use their long axis; anything
    above 45 mm counts as large (huge bases are out of scope, wmh2 §4)."""
    d = max(base_mm) if isinstance(base_mm, (tuple, list)) else float(base_mm)
    if d < 35.0:
        return SMALL
    return MEDIUM if d < 45.0 else LARGE


def base_radius(size: int) -> float:
    """Radius in inches of a standard base class (small 0.5906", medium 0.7874",
    large 0.9843")."""
    return size / MM_PER_INCH / 2.0


def volume_height(size: int) -> float:
    """Height of the standard volume of a base class (wmh2 §4: 1.75", 2.25", 2.75")."""
    return VOLUME_HEIGHT[size]


# ---- measuring (wmh2 §3) ---------------------------------------------------------------------


def gap(c1: Any, r1: float, c2: Any, r2: float) -> float:
    """Base edge to base edge in plan (0 when the bases touch or overlap)."""
    return float(base_gap(np.asarray(c1, float)[:2], (r1, r1), 0.0,
                          np.asarray(c2, float)[:2], (r2, r2), 0.0))


def within(distance: float, limit: float) -> bool:
    """'Within X': the nearest edge is at most X away; equality counts (wmh2 §3)."""
    return distance <= limit + TOL


def point_within(center: Any, radius: float, point: Any, limit: float) -> bool:
    """A base (nearest edge) within `limit` of a plan point."""
    d = float(np.hypot(*(np.asarray(center, float)[:2] - np.asarray(point, float)[:2])))
    return within(max(0.0, d - radius), limit)


def completely_within_point(center: Any, radius: float, point: Any, limit: float) -> bool:
    """'Completely within X': the farthest base edge is at most X away (wmh2 §3)."""
    d = float(np.hypot(*(np.asarray(center, float)[:2] - np.asarray(point, float)[:2])))
    return within(d + radius, limit)


def half_distance(value: float) -> float:
    """Half of a distance keeps the exact value: half of SPD 5 is 2.5" (wmh2 §3)."""
    return value / 2.0


def half_up(value: int) -> int:
    """Half of any other stat or roll rounds up: half of POW 13 is 7 (wmh2 §3)."""
    return math.ceil(value / 2)


def d3_of(face: int) -> int:
    """A d3 from a d6 face: 1-2 -> 1, 3-4 -> 2, 5-6 -> 3 (wmh2 §0)."""
    return (face + 1) // 2


# ---- stats (wmh2 §9.1) -----------------------------------------------------------------------


def modified_stat(name: str, base: int, *, set_to: Iterable[int] = (), double: bool = False,
                  halve: bool = False, bonus: int = 0, penalty: int = 0) -> int:
    """A current stat: effects that set the base stat first (the lowest wins), then doubling,
    halving (rounded up), bonuses and penalties; DEF never below 5, any other stat never
    below 1 (wmh2 §9.1)."""
    sets = list(set_to)
    value = min(sets) if sets else int(base)
    if double:
        value *= 2
    if halve:
        value = half_up(value)
    value += int(bonus) - int(penalty)
    return max(DEF_FLOOR if name == "DEF" else 1, value)


@dataclass
class Effect:
    """A named effect: its modifiers and who created it (expires at that player's next turn
    when `rounds` is 1)."""

    name: str
    mods: dict[str, int] = field(default_factory=dict)
    player: int | None = None
    rounds: int | None = 1


def add_effect(effects: list[Effect], effect: Effect) -> bool:
    """Add an effect unless one of the same name is already there (wmh2 §9.1: same-named
    effects do not stack; the first one stays and keeps its expiry). True when added."""
    if any(e.name == effect.name for e in effects):
        return False
    effects.append(effect)
    return True


def total_mod(effects: Iterable[Effect], key: str) -> int:
    """Sum of one modifier over effects with different names (wmh2 §9.1: they stack)."""
    return sum(int(e.mods.get(key, 0)) for e in effects)


# ---- command (wmh2 §10) ----------------------------------------------------------------------


def p_command(cmd: int) -> Fraction:
    """P(2d6 <= CMD): a command check passes (wmh2 §10; no automatic failure)."""
    return nd6(2).at_most(int(cmd))


def command_immune(keywords: Iterable[str]) -> str | None:
    """Why a model never fails or never flees: Construct passes automatically, Fearless and
    Undead never flee (wmh2 §10), else None."""
    kws = {k.lower() for k in keywords}
    for kw in ("construct", "fearless", "undead"):
        if kw in kws:
            return kw
    return None


def must_check_abomination(distance: float, same_side: bool) -> bool:
    """Friendly and enemy models within 3" of an Abomination check (wmh2 §10); the model
    itself never does (the caller excludes it)."""
    del same_side  # friend or foe alike
    return within(distance, ABOMINATION_RANGE)


def command_dist() -> Dist:
    return nd6(2)


# ---- deployment (wmh2 §13) -------------------------------------------------------------------


def deployment_ok(edge_distance_far: float, advance: bool = False, zone: float = 10.0,
                  extra: float = 6.0) -> Ruling:
    """A model is deployed completely within `zone` inches of its edge (its farthest base
    edge), or up to 6" further with Advance Deployment (wmh2 §13)."""
    limit = zone + (extra if advance else 0.0)
    ok = within(edge_distance_far, limit)
    why = "" if ok else (f"its far base edge is {edge_distance_far:.2f}\" from the table edge; "
                         f"deployment is completely within {limit:g}\"")
    return Ruling(ok, RULE_DEPLOY, why)
