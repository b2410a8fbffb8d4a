"""Cover for non-vehicle models (wh40k6 §5.1-§5.5, §5.7).

A model is in cover when at least one firing model sees it at least 25% obscured (A1,
inclusive); a firer that cannot see it at all counts (A2). Occlusion by several pieces and
models is summed (A3); the value is the best among the occluders that hide part of it: the
piece's value (§5.2 table, `cover:` overrides), 5+ for models of a third unit (§5.3). A sample
seen through a forest counts as obscured by that forest (§5.5). Shooting through the gaps of a
third unit gives 5+ even when fully visible (A11). Models in area terrain always have their
piece's value, 5+ when it has none (§5.4, A8). Each ambiguity named here is a switchable
reading (`ambiguities.py`), read where the choice is made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.visibility import Visibility
from battlesight.rulesets.core.readings import current_key
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.verdict import share_text

from .ambiguities import A1, A2, A3, A10, A11
from .terrain import (
    RULE_COVER_TABLE,
    RULE_FOREST,
    area_cover,
    cover_value,
    is_forest,
)

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_COVER = "wh40k6 §5.1"
RULE_MODELS = "wh40k6 §5.3"
RULE_GROUND = "wh40k6 §5.7"
RULE_STEALTH = "wh40k6 §5.2"
THRESHOLD = 0.25  # A1 '25-percent'; 'any-part': any share hidden
MODEL_COVER = 5


@dataclass
class FirerView:
    """What one firer sees of one target model: obscured share and by what."""

    firer: str
    visible: bool
    obscured: float
    hiders: dict[str, float] = field(default_factory=dict)  # owner id -> share hidden
    forests: dict[str, float] = field(default_factory=dict)  # forest id -> share seen through


def memo_get(memo: dict | None, key: tuple, make: Callable[[], Any]) -> Any:
    """make(), kept in memo under key when a memo is given (work shared by many pairs); the
    key is the readings' too, so a switched reading never reuses another's answer."""
    if memo is None:
        return make()
    key = (*key, current_key())
    if key not in memo:
        memo[key] = make()
    return memo[key]


def placed(board: Board, model: str) -> tuple:
    """What a model's terrain and formation facts depend on: its id, place and facing."""
    m = board.world.models.get(model)
    return (model,) if m is None else (model, *map(float, m.position), float(m.facing))


def view_of(board: Board, vis: Visibility, memo: dict | None = None) -> FirerView:
    """A FirerView from a Visibility, with forests the firer stands in left out (A10)."""
    firer = vis.observer or ""
    own = {e.id for n in board.pieces_in(firer) for e in board.groups.members(n)} \
        if firer in board.models else set()
    through = vis.through if A10.means("canopy") else footprint_crossings(board, vis, memo)
    forests = {k: v for k, v in through.items()
               if k in board.world.terrain and is_forest(board.world.terrain[k]) and k not in own}
    obscured = min(1.0, vis.obscured_fraction + sum(forests.values()))
    return FirerView(firer, vis.visible, obscured, dict(vis.blockers), forests)


def footprint_crossings(board: Board, vis: Visibility, memo: dict | None = None
                        ) -> dict[str, float]:
    """Share of the target's samples seen along a line whose plan crosses each forest's
    footprint, at any height (A10 'footprint', the digest's reading). memo keeps the table's
    forests between the pairs of one call."""
    from battlesight.rulesets.core.lines import length_inside

    points = np.asarray(vis.points, float).reshape(-1, 3)
    seen = np.asarray(vis.blocker_of) < 0
    if not len(points) or not seen.any() or vis.eye is None:
        return {}
    ends = points[seen]
    eye = np.asarray(vis.eye, float)
    # the forests whose box meets the box of every line (most pairs: none), then only the
    # pieces meeting the hull of the eye and the box of the line ends: one query of the
    # footprint index
    lo, hi = ends[:, :2].min(axis=0), ends[:, :2].max(axis=0)
    x0, y0 = min(lo[0], eye[0]), min(lo[1], eye[1])
    x1, y1 = max(hi[0], eye[0]), max(hi[1], eye[1])
    forests = [(entry, foot) for entry, foot, (a, b, c, d) in _forests(board, memo)
               if a <= x1 and b <= y1 and c >= x0 and d >= y0]
    if not forests:
        return {}
    near = set(board.world.footprints.under(planar.hull_shape(
        [eye[:2], lo, hi, (lo[0], hi[1]), (hi[0], lo[1])])))
    starts = np.repeat(eye[None], len(ends), axis=0)
    out = {}
    for entry, foot in forests:
        if entry.id in near:
            share = float((length_inside(starts, ends, foot) > 1e-6).sum()) / len(points)
            if share > 0:
                out[entry.id] = share
    return out


def _forests(board: Board, memo: dict | None) -> list[tuple]:
    """(entry, footprint (k, 2), its plan box (x0, y0, x1, y1)) of each forest piece with a
    footprint, in the table's order; kept in memo with the world's footprint index it was
    read beside (a new index, after a piece is added, reads them again)."""
    index = board.world.footprints
    kept = memo.get(("forests",)) if memo is not None else None
    if kept is not None and kept[0] is index:
        return kept[1]
    out = []
    for entry in board.world.terrain.values():
        foot = np.asarray(entry.geometry.footprint, float)
        if is_forest(entry) and len(foot) >= 3:
            out.append((entry, foot, (*foot.min(axis=0).tolist(), *foot.max(axis=0).tolist())))
    if memo is not None:
        memo[("forests",)] = (index, out)
    return out


def occluder_value(board: Board, owner: str) -> tuple[int | None, str, str]:
    """(cover value, kind, rule) of one occluder: a terrain piece or a third-unit model."""
    if owner in board.world.terrain:
        entry = board.world.terrain[owner]
        kind = "forest" if is_forest(entry) else "terrain"
        return cover_value(entry), kind, RULE_FOREST if kind == "forest" else RULE_COVER_TABLE
    return MODEL_COVER, "models", RULE_MODELS


def decide(board: Board, target: str, views: list[FirerView]) -> Cover:
    """Cover from the firers' views alone (no area terrain, no gaps, no modifiers)."""
    best: Cover | None = None
    worst_seen = 0.0
    threshold = THRESHOLD if A1.means("25-percent") else 1e-6
    for view in views:
        if not view.visible and A2.means("seen-only"):
            continue
        obscured = 1.0 if not view.visible else view.obscured
        if view.visible and A3.means("largest-one"):
            obscured = max([*view.hiders.values(), *view.forests.values(), 0.0])
        worst_seen = max(worst_seen, obscured)
        if obscured < threshold - 1e-9:
            continue
        contributors = list(view.hiders.items()) + list(view.forests.items())
        for owner, share in sorted(contributors, key=lambda kv: -kv[1]):
            value, kind, rule = occluder_value(board, owner)
            if value is None:
                continue
            # a shape of a grouped piece hides as that piece (its own value, the group's name)
            source = board.unit_of(owner) if kind == "models" else board.groups.piece_of(owner)
            if best is None or value < best.value:
                # a forest does not hide what is behind it: sight passes through it (§5.5)
                how = "seen through" if owner in view.forests else "hidden by"
                # a firer that cannot see the model counts under A2: say whose view it is
                whose = "" if view.visible else f"from {view.firer}, which cannot see it (A2): "
                best = Cover(True, value, "save", kind, source, rule, obscured, view.firer,
                             [f"{whose}{share_text(share)} {how} "
                              f"{board.groups.piece_of(owner)}"])
    if best is None:
        return Cover.none(RULE_COVER, worst_seen, f"at most {worst_seen:.0%} obscured")
    best.obscured = worst_seen
    return best


def formation(board: Board, unit: str) -> tuple[np.ndarray, float] | None:
    """(plan hull, top height) of a unit of two or more models on the table, else None."""
    members = board.unit_models(unit)
    if len(members) < 2:
        return None
    outlines = [board.outline(m) for m in members]
    hull = planar.convex_hull(np.vstack([o.polygon(24) for o in outlines]))
    return hull, max(o.top for o in outlines)


def through_gaps(board: Board, firing_unit: str, target: str, firers: list[str],
                 memo: dict | None = None) -> str | None:
    """Id of a third unit whose formation a firer's sight line crosses below its models' tops
    (A11), or None. Formations are the board's (`Board.per_unit`), kept until a model of the
    unit moves; memo is not needed (kept for the callers' signature)."""
    if not firers:
        return None
    target_unit = board.unit_of(target)
    t_out = board.outline(target)
    t_point = np.array([*t_out.center, t_out.z + t_out.height / 2])
    eyes = np.array([board.eye(f) for f in firers])
    lines = planar.segments(eyes, np.repeat(t_point[None], len(eyes), 0))
    ts = np.linspace(0.0, 1.0, 41)
    for unit in board.unit_ids():
        if unit in (firing_unit, target_unit):
            continue
        shape = board.per_unit("formation", unit, lambda u=unit: _formation_shape(board, u))
        if shape is None:
            continue
        hull_shape, top = shape
        for eye in eyes[planar.lines_meet(lines, hull_shape)]:
            line = eye[None, :] + ts[:, None] * (t_point - eye)[None, :]
            inside = planar.covers(line[:, :2], hull_shape)
            if inside.any() and line[inside, 2].min() <= top:
                return unit
    return None


def _formation_shape(board: Board, unit: str):
    """(prepared shapely hull, top height) of `formation`, or None."""
    shape = formation(board, unit)
    return None if shape is None else (planar.shape(shape[0]), shape[1])


def model_cover(board: Board, firing_unit: str, target: str,
                visibilities: list[Visibility], memo: dict | None = None) -> Cover:
    """Cover of one target model against an attack by firing_unit (before modifiers); memo
    keeps the work that does not depend on the pair (pieces under a model, formations)."""
    views = [view_of(board, v, memo) for v in visibilities]
    cover = decide(board, target, views)
    area = memo_get(memo, ("area", *placed(board, target)), lambda: area_cover(board, target))
    if area is not None and (cover.value is None or area[0] < cover.value):
        value, source, rule = area
        cover = Cover(True, value, "save", "area", source, rule, cover.obscured, None,
                      [f"in area terrain {source}"])
    seeing = [v.firer for v in views if v.visible]
    if A11.means("gaps") and (cover.value is None or cover.value > MODEL_COVER):
        unit = through_gaps(board, firing_unit, target, seeing, memo)
        if unit is not None:
            cover = Cover(True, MODEL_COVER, "save", "gaps", unit, RULE_MODELS, cover.obscured,
                          None, [f"sight passes between the models of {unit}"])
    return cover


def in_area_or_defence_line(board: Board, cover: Cover, model: str | None = None) -> bool:
    """Going to ground gives +2 here (§5.4, §5.2 defence line): the model stands in area
    terrain (a forest is area terrain: "在区域地形里卧倒的模型掩体保护+2而不是通常的+1"),
    whichever piece gave the cover, or the cover is a defence line's."""
    if cover.kind == "area" or (model is not None and area_cover(board, model) is not None):
        return True
    return any("defence line" in str(e.data.get("feature", "")).lower()
               for e in board.groups.members(cover.source or ""))


def unit_rule_holder(board: Board, model: str, rule: str) -> str | None:
    """The first model of `model`'s unit with `rule` (itself first), or None: Stealth and
    Shrouded are the whole unit's when at least one of its models has them (§5.2)."""
    mates = board.unit_models(board.unit_of(model))
    return next((m for m in [model, *mates] if board.profile(m).has(rule)), None)


def with_modifiers(board: Board, cover: Cover, *, gone_to_ground: bool = False,
                   stealth: bool = False, shrouded: bool = False,
                   model: str | None = None) -> Cover:
    """Cover of `model` after going to ground, Stealth and Shrouded, capped at 2+ (§5.2,
    §5.7)."""
    from .tables import cover_with_modifiers

    if not (gone_to_ground or stealth or shrouded):
        return cover
    bonus = 2 if in_area_or_defence_line(board, cover, model) else 1
    value = cover_with_modifiers(cover.value, gone_to_ground=gone_to_ground, ground_bonus=bonus,
                                 stealth=stealth, shrouded=shrouded)
    notes = list(cover.notes)
    rule = cover.rule
    if gone_to_ground:
        notes.append(f"gone to ground (+{bonus}, 6+ in the open)")
        rule = RULE_GROUND
    if stealth:
        notes.append("Stealth (+1, at least 6+)")
    if shrouded:
        notes.append("Shrouded (+2, at least 5+)")
    return Cover(True, value, "save", cover.kind if cover.in_cover else "rule", cover.source,
                 rule, cover.obscured, cover.firer, notes)


def barrage_cover(board: Board, centre: tuple[float, float], target: str,
                  samples: int = 300) -> Cover:
    """Cover against a barrage: judged from the marker centre, at the target's mid-height,
    looking at it (§5.6, A22); area terrain gives cover whatever the direction."""
    from battlesight.geometry.visibility import visibility

    from .sight import target_parts

    out = board.outline(target)
    eye = np.array([centre[0], centre[1], out.z + out.height / 2.0])
    skip = tuple(m for m in board.unit_models(board.unit_of(target)) if m != target)
    vis = visibility(board.world, None, target, eye=eye, parts=target_parts(board, target),
                     skip=skip, samples=samples)
    cover = decide(board, target, [view_of(board, vis)])
    area = area_cover(board, target)
    if area is not None and (cover.value is None or area[0] < cover.value):
        return Cover(True, area[0], "save", "area", area[1], area[2], cover.obscured, None,
                     [f"in area terrain {area[1]}"])
    cover.notes.append("judged from the barrage marker's centre (§5.6)")
    return cover
