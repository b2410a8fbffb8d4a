"""AoS 2nd cover and scenery (aos2 §5, §6): +1 save when every model is wholly on or within a
terrain feature, obstacles against missile attacks, garrisons; the scenery table.

"Wholly on or within" is the whole base outline inside the feature's footprint (standing on a
floor counts as on it); each model may use a different feature (§15 #4). A piece with
`cover: 0` (or false) is never a feature for cover. Cover is one +1 whatever gives it (A-30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry import planar
from battlesight.rulesets.core.measure import Outline
from battlesight.rulesets.core.ruling import Cover

from . import rules
from .ambiguities import R4, R5, R6

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_TERRAIN = "aos2 §5.1"
RULE_OBSTACLE = "aos2 §5.2"
RULE_GARRISON = "aos2 §5.3"
RULE_SCENERY = "aos2 §6.2"
OBSTACLE_REACH = 1.0
SCENERY_REACH = 1.0
SCENERY_TABLE = ("damned", "arcane", "inspiring", "deadly", "mystical", "sinister")


def footprint(board: Board, piece: str) -> np.ndarray:
    return np.asarray(board.world.terrain[piece].geometry.footprint, float)


def parse_cover(raw: Any) -> bool:
    """Whether a `cover:` value gives the +1 save (aos2 §5.1): true or 1; false, 0 or none
    do not. ValueError for anything else (the scene check reports it with this message)."""
    if raw is True or (type(raw) is int and raw == 1) or raw == "yes":
        return True
    if raw is False or raw is None or (type(raw) is int and raw == 0) or raw in ("none", "no"):
        return False
    raise ValueError("must be true or 1 (the +1 save), or false, 0, none")


def gives_cover(entry: Any) -> bool:
    value = parse_cover(entry.data.get("cover", True))
    return value and len(entry.geometry.footprint) >= 3


def wholly_within(outline: Outline, foot: planar.PolygonLike) -> bool:
    """The whole base inside the footprint (far edge in), or any part of it (nearest edge in)
    under reading aos2.5 'nearest-edge'."""
    inside = planar.covers(outline.polygon(48), foot)
    if R5.means("nearest-edge"):
        return planar.meet(outline.shape, foot)
    return bool(inside.all())


def gap_to_piece(outline: Outline, foot: np.ndarray) -> float:
    """Plan distance from the base to the footprint (0 when they meet)."""
    return planar.gap(outline.shape, foot)


def feature_of(board: Board, model: str) -> str | None:
    """A feature the model is wholly on or within (None if none): one piece, else a `group` of
    shapes that make one feature together (a ruin's footprint and its walls), by group name."""
    o = board.outline(model)
    # only pieces the base meets can hold it (the board's piece index, kept per model); a
    # group is one feature, its outline the union of its shapes' (`core.groups`)
    for name in board.pieces_in(model):
        if board.groups.first(name, gives_cover) is None:
            continue
        if wholly_within(o, board.groups.outline(name)):
            return name
    return None


def excluded(board: Board, unit: str) -> bool:
    return any(rules.cover_excluded(board.profile(m).keywords, board.profile(m).wounds)
               for m in board.unit_models(unit, on_table=False))


def terrain_cover(board: Board, unit: str, *, combat_after_charge: bool = False) -> Cover:
    """+1 save if every model is wholly on or within a feature (§5.1), except in the combat
    phase of a turn the unit charged, and never with a big MONSTER / WAR MACHINE."""
    models = board.unit_models(unit)
    if not models:
        return Cover.none(RULE_TERRAIN)
    if excluded(board, unit):
        return Cover.none(RULE_TERRAIN, note="a MONSTER or WAR MACHINE with Wounds over 8")
    pieces = [feature_of(board, m) for m in models]
    if any(p is None for p in pieces):
        out = [m for m, p in zip(models, pieces, strict=True) if p is None]
        return Cover.none(RULE_TERRAIN, note=f"not wholly on or within a feature: {out}")
    if len(set(pieces)) > 1 and R4.means("same-feature"):
        return Cover.none(RULE_TERRAIN, note=f"not all in the same feature: {sorted(set(pieces))}")
    if combat_after_charge:
        return Cover.none(RULE_TERRAIN, note="it charged this turn: no cover in this combat")
    return Cover(True, 1, effect="save_mod", kind="terrain", source=pieces[0],
                 rule=RULE_TERRAIN, notes=[f"features: {sorted(set(pieces))}"])


def obstacle_cover(board: Board, attacker: str, unit: str) -> Cover:
    """Missile attacks: every target model within 1" of an obstacle that the attacking model
    is closer to than to the target unit (§5.2, per attacking model)."""
    models = board.unit_models(unit)
    if not models or (excluded(board, unit) and R6.means("excluded")):
        return Cover.none(RULE_OBSTACLE)
    a = board.outline(attacker)
    to_target = min(gap_to_piece(a, board.outline(m).polygon(48)) for m in models)
    for entry in board.world.terrain.values():
        if not entry.data.get("obstacle") or len(entry.geometry.footprint) < 3:
            continue
        foot = np.asarray(entry.geometry.footprint, float)
        near = all(gap_to_piece(board.outline(m), foot) <= OBSTACLE_REACH + 1e-9
                   for m in models)
        if near and gap_to_piece(a, foot) < to_target - 1e-9:
            return Cover(True, 1, effect="save_mod", kind="obstacle", source=entry.id,
                         rule=RULE_OBSTACLE, firer=attacker)
    return Cover.none(RULE_OBSTACLE)


def save_bonus(board: Board, attacker: str | None, unit: str, *, missile: bool,
               combat_after_charge: bool = False, garrisoned: bool = False) -> Cover:
    """The one +1 a unit may have against this attack (terrain, obstacle or garrison)."""
    if garrisoned:
        return Cover(True, 1, effect="save_mod", kind="garrison", rule=RULE_GARRISON)
    terrain = terrain_cover(board, unit, combat_after_charge=combat_after_charge)
    if terrain.in_cover or not missile or attacker is None:
        return terrain
    obstacle = obstacle_cover(board, attacker, unit)
    return obstacle if obstacle.in_cover else terrain


def scenery_near(board: Board, model: str, rule: str) -> str | None:
    """A feature with this scenery rule within 1" of the model (aos2 §6.2)."""
    o = board.outline(model)
    for entry in board.world.terrain.values():
        if str(entry.data.get("scenery", "")).lower() == rule and \
                len(entry.geometry.footprint) >= 3 and \
                gap_to_piece(o, np.asarray(entry.geometry.footprint)) <= SCENERY_REACH + 1e-9:
            return entry.id
    return None


def unit_near_scenery(board: Board, unit: str, rule: str) -> str | None:
    for m in board.unit_models(unit):
        found = scenery_near(board, m, rule)
        if found:
            return found
    return None


def bravery_modifier(board: Board, unit: str) -> int:
    """Inspiring +1, Sinister -1 within 1" (aos2 §6.2)."""
    return int(bool(unit_near_scenery(board, unit, "inspiring"))) - \
        int(bool(unit_near_scenery(board, unit, "sinister")))


def feature_gap(board: Board, model: str, piece: str) -> float:
    return gap_to_piece(board.outline(model), footprint(board, piece))
