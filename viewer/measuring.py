"""Measuring in the window: the selected unit's range rings (each ranged weapon, and its move
allowance) and the distance from the selected model to the one under the mouse, both as the
scene's ruleset measures (`Ruleset.weapon_ranges`, `Ruleset.move_allowance`,
`Ruleset.distance`). No Panda3D drawing here (`move_overlays` draws the rings).
"""

from __future__ import annotations

from . import palette
from .move_overlays import RangeRing
from .scenegraph import base_radii


def range_rings(view, model: str, allowance: float | None) -> list[RangeRing]:
    """Rings around the selected model: the ranges of its unit's ranged weapons from its base
    edge, and the unit's move (`allowance`, None: no move ring)."""
    board = view.judge.board
    if not hasattr(board, "unit_models"):  # a bare world: no rules, no ranges
        return []
    world, ruleset = view.world, board.ruleset
    ranges = {}
    unit = board.unit_of(model)
    members = [m for m in board.unit_models(unit) if m in world.models]
    for m in members:
        for name, reach in ruleset.weapon_ranges(board.profile(m)):
            ranges.setdefault(reach, name)
    placed = world.models[model]
    edge = max(base_radii(placed))
    centre = tuple(map(float, placed.position))
    rings = [RangeRing(centre, edge + reach, f'{name} {reach:g}"', palette.RANGE_RING)
             for reach, name in sorted(ranges.items())]
    if allowance:
        rings.append(RangeRing(centre, edge + allowance, f'move {allowance:g}"',
                               palette.MOVE_RING))
    return rings


def distance_text(view, a: str, b: str) -> str:
    """'a to b: 12.3" (wh40k6, base to base in 3d)': the ruleset's distance between two
    models ('' without a ruleset)."""
    board = view.judge.board
    if not hasattr(board, "unit_models"):
        return ""
    ruleset = board.ruleset
    gap = ruleset.distance(board, a, b)
    return f'{a} to {b}: {gap:.1f}" ({ruleset.id}, base to base, {ruleset.measure_mode})'
