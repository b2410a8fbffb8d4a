"""40k line of sight: from the eye to the body, who may block (wh40k6 §4.2-§4.4).

The firing unit's own models never block (§4.1 quote 6); the target unit's other models
neither hide the target nor give it cover (§4.4, A4); every other model (a third unit, friend
or foe, vehicles included, A29) blocks physically. The target is its body: non-vehicles lose
weapons, banners, antennae, wings, tails and the base; vehicles keep hull, turret and wings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from battlesight.geometry.visibility import SightQuery, Visibility, visibility_many
from battlesight.rulesets.core.ruleset import GEAR_PARTS

from .ambiguities import A4, A5, A29

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_LOS = "wh40k6 §4.2"
RULE_BODY = "wh40k6 §4.3"
RULE_BLOCKERS = "wh40k6 §4.4"
VEHICLE_NON_HULL = frozenset({"weapon", "banner", "antenna", "base"})
DEFAULT_SAMPLES = 300


def target_parts(board: Board, target: str) -> frozenset[str] | None:
    """The part labels that count as the target's body (None: its whole volume)."""
    names = board.world.models[target].volume.part_names
    if A5.means("whole-model") and not board.ruleset.is_vehicle(board.profile(target)):
        return None
    excluded = VEHICLE_NON_HULL if board.ruleset.is_vehicle(board.profile(target)) \
        else GEAR_PARTS
    keep = frozenset(n for n in names if n not in excluded)
    if not keep or len(keep) == len(names):
        return None
    return keep


def skip_models(board: Board, firing_unit: str, target: str) -> tuple[str, ...]:
    """Models that may not block: the firing unit's and the target's unit-mates (A4 'block':
    the firing unit's only; A29 'non-vehicles-only': a third unit's vehicles too)."""
    return tuple(m for m in _skipped_with(board, firing_unit, _unit(board, target))
                 if m != target)


def _unit(board: Board, model: str) -> str | None:
    """The model's unit (None for a model the board does not hold)."""
    return board.unit_of(model) if model in board.models else None


def _skipped_with(board: Board, firing_unit: str, target_unit: str | None
                  ) -> tuple[str, ...]:
    """`skip_models` for any target of target_unit, the target itself among them (in the
    world's order): the same for every target of that unit."""
    units = (firing_unit,) if A4.means("block") else (firing_unit, target_unit)
    vehicles = A29.means("non-vehicles-only")
    return tuple(m for m in board.world.models
                 if board.models.get(m) is not None
                 and (board.unit_of(m) in units
                      or (vehicles and board.ruleset.is_vehicle(board.profile(m)))))


def sight_origin(board: Board, firer: str) -> np.ndarray:
    """Where the firer looks from: its eye (vehicle weapons: the model's sight point too)."""
    return board.eye(firer)


def rule_queries(board: Board, pairs: list[tuple[str, str]], samples: int = DEFAULT_SAMPLES,
                 origins: dict[str, np.ndarray] | None = None) -> list[SightQuery]:
    """The rule's sight query of each (firer, target) pair: from the firer's sight origin (or
    `origins[firer]`) to the target's body, past the models that may not block (§4.2-§4.4).
    The one place the verdict, charges and psychic targeting build their queries."""
    parts = {t: target_parts(board, t) for t in dict.fromkeys(t for _, t in pairs)}
    skips: dict[tuple[str, str], tuple[str, ...]] = {}
    of_units: dict[tuple[str, str], tuple[str, ...]] = {}  # by firing and target unit
    queries = []
    for firer, target in pairs:
        key = (board.unit_of(firer), target)
        if key not in skips:
            units = (key[0], _unit(board, target))
            if units not in of_units:
                of_units[units] = _skipped_with(board, *units)
            skips[key] = tuple(m for m in of_units[units] if m != target)
        eye = origins.get(firer) if origins is not None else None
        queries.append(SightQuery(
            firer, target, eye=sight_origin(board, firer) if eye is None else eye,
            parts=parts[target], skip=skips[key], samples=samples))
    return queries


def look(board: Board, pairs: list[tuple[str, str]], samples: int = DEFAULT_SAMPLES,
         origins: dict[str, np.ndarray] | None = None) -> dict[tuple[str, str], Visibility]:
    """Visibility of each (firer, target) pair by the rule, in one batch of ray-engine
    calls."""
    queries = rule_queries(board, pairs, samples, origins)
    return dict(zip(pairs, visibility_many(board.world, queries), strict=True))


def unit_pairs(board: Board, firing_unit: str, target_unit: str,
               firers: list[str] | None = None) -> list[tuple[str, str]]:
    firers = board.unit_models(firing_unit) if firers is None else firers
    targets = board.unit_models(target_unit)
    return [(f, t) for f in firers for t in targets]


def can_see_unit(board: Board, viewers: list[str], target_unit: str,
                 samples: int = 120) -> bool:
    """Whether any of the viewers sees any model of the target unit (charges, §4.2)."""
    if not viewers or not board.unit_models(target_unit):
        return False
    pairs = [(v, t) for v in viewers for t in board.unit_models(target_unit)]
    return any(v.visible for v in look(board, pairs, samples).values())
