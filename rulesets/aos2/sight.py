"""AoS 2nd line of sight (aos2 §4): true sight from any part of the attacking model to any part
of any model of the target unit; the attacker's own unit is transparent, every other model and
all terrain block (VIS-1, VIS-2). Garrisons are seen, and see, through their terrain feature.

"Any part of the attacker" is sampled: its eye and the extreme points of its volume (top,
front, back, left, right), pulled a little inwards; each point looks at each target model
(silhouette-sampled, `geometry.visibility`), all in one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from battlesight.geometry.visibility import SightQuery, visibility_many
from battlesight.rulesets.core.measure import gap_3d

from .ambiguities import R12

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_SEE = "aos2 §4.1"
RULE_OWN_UNIT = "aos2 §4.2 VIS-2"
SAMPLES = 40
SAMPLES_JUDGED = 60  # silhouette samples per sight point in the one sight verdict
INWARD = 0.1


def sight_points(board: Board, model: str) -> np.ndarray:
    """(k, 3) points of the model's volume it may look from: eye and extremes."""
    placed = board.world.models[model]
    verts = np.asarray(placed.mesh.vertices, float)
    centre = verts.mean(axis=0)
    picks = [verts[np.argmax(verts[:, 2])]]
    for axis in (0, 1):
        picks += [verts[np.argmin(verts[:, axis])], verts[np.argmax(verts[:, axis])]]
    pts = np.array(picks)
    pts = pts + (centre - pts) * INWARD
    return np.vstack([np.asarray(placed.eye, float)[None], pts])


def own_unit(board: Board, model: str) -> tuple[str, ...]:
    """The models that never block the model's sight: its own unit's (VIS-2), none under
    reading aos2.12 'all-block'."""
    if R12.means("all-block"):
        return ()
    return tuple(m for m in board.unit_models(board.unit_of(model)) if m != model)


def visible_models(board: Board, attackers: list[str], target_models: list[str],
                   samples: int = SAMPLES) -> dict[str, dict[str, float]]:
    """{attacker: {target model: best visible fraction}} for the pairs with any sight."""
    queries, keys = [], []
    for a in attackers:
        own = own_unit(board, a)
        for p in sight_points(board, a):
            for t in target_models:
                queries.append(SightQuery(a, t, eye=p, skip=own, samples=samples))
                keys.append((a, t))
    out: dict[str, dict[str, float]] = {a: {} for a in attackers}
    if not queries:
        return out
    for (a, t), vis in zip(keys, visibility_many(board.world, queries), strict=True):
        if vis.visible:
            out[a][t] = max(out[a].get(t, 0.0), vis.visible_fraction)
    return out


def fractions(board: Board, attackers: list[str], target_models: list[str],
              samples: int = SAMPLES) -> dict[tuple[str, str], float]:
    """(attacker, target) -> best visible fraction from any of its sight points (0 if none)."""
    seen = visible_models(board, attackers, target_models, samples)
    return {(a, t): seen[a].get(t, 0.0) for a in attackers for t in target_models}


def sees_unit(board: Board, attacker: str, target_unit: str) -> bool:
    return bool(visible_models(board, [attacker], board.unit_models(target_unit))[attacker])


def feature_points(board: Board, piece: str, n: int = 48) -> np.ndarray:
    """Points on a terrain feature's solid (vertices and face centres, evenly thinned)."""
    solid = board.world.terrain[piece].geometry.solid
    pts = np.vstack([solid.vertices, solid.triangles_center])
    step = max(1, len(pts) // n)
    return np.asarray(pts[::step], float)


def sees_feature(board: Board, attacker: str, piece: str) -> bool:
    """A garrisoned feature is seen if a line from the attacker first meets that feature
    (terrain only; models are not tested on these lines) (aos2 §5.3)."""
    ends = feature_points(board, piece)
    for p in sight_points(board, attacker):
        starts = np.repeat(p[None], len(ends), axis=0)
        d = ends - starts
        far = ends + d / np.maximum(np.linalg.norm(d, axis=1), 1e-9)[:, None] * 0.05
        if piece in board.world.first_terrain(starts, far, set()):
            return True
    return False


def garrison_sight(board: Board, observer: str, target_unit: str,
                   garrisons: dict[str, str]) -> bool | None:
    """Sight between a garrison and another unit, through the feature (§5.3): a garrisoned
    target is seen when its feature is (by a garrison: always); a garrison sees every unit.
    None when neither unit is a garrison: true sight decides."""
    piece = garrisons.get(target_unit)
    if piece:
        return board.unit_of(observer) in garrisons or sees_feature(board, observer, piece)
    return True if board.unit_of(observer) in garrisons else None


def closest(board: Board, model: str, others: list[str]) -> tuple[str | None, float]:
    """The nearest of `others` to `model` and the 3D base-to-base distance (aos2 §3.1)."""
    best, dist = None, float("inf")
    for o in others:
        d = gap_3d(board.outline(model), board.outline(o))
        if d < dist:
            best, dist = o, d
    return best, dist


def models_visible_within(board: Board, source: str, unit: str, distance: float) -> list[str]:
    """Models of `unit` within `distance` of `source` that it can see: per-model abilities
    such as Roiling Thunderhead roll one dice for each (aos2 §4.1 quote 9, A-31)."""
    near = [m for m in board.unit_models(unit) if sight_gap(board, source, m) <= distance + 1e-9]
    seen = visible_models(board, [source], near)[source]
    return [m for m in near if m in seen]


def sight_gap(board: Board, a: str, b: str) -> float:
    return gap_3d(board.outline(a), board.outline(b))
