"""The AoS sight verdict for many ordered pairs at once (aos2 §4, cover §5).

True sight from any part of the observer to any part of the target, the observer's own unit
transparent (`sight`); a model never judges sight to its own unit. Cover is the one +1 save the
target's unit has against a missile attack from this observer (`cover.save_bonus`). A garrison
(`Board.inside`) sees and is seen through its feature (§5.3): the same test `shoot` and `play`
use (`sight.garrison_sight`), the whole model seen, in cover, -1 to hit. The sight points are
worked out once per observer and cover once per observer and target unit; every line of a call
goes to the ray engine in one batch.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from battlesight.geometry.visibility import SightQuery, Visibility
from battlesight.rulesets.core.ruleset import sight_batch
from battlesight.rulesets.core.verdict import Verdict, cover_modifiers

from . import cover as cover_rules
from .sight import RULE_OWN_UNIT, RULE_SEE, garrison_sight, own_unit, sight_points

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


def judge(board: Board, pairs: list[tuple[str, str]], samples: int) -> list[Verdict]:
    """One Verdict per (observer, target): seen from some part of the observer."""
    points = {o: sight_points(board, o) for o in dict.fromkeys(o for o, _ in pairs)}
    own = {o: own_unit(board, o) for o in points}
    queries, owner = [], []
    garrisoned = {i for i, (o, t) in enumerate(pairs) if board.unit_of(o) != board.unit_of(t)
                  and (board.unit_of(o) in board.inside or board.unit_of(t) in board.inside)}
    for i, (o, t) in enumerate(pairs):
        if board.unit_of(o) == board.unit_of(t) or i in garrisoned:
            continue
        for k, p in enumerate(points[o]):
            queries.append(SightQuery(o, t, eye=p, skip=own[o], samples=samples))
            owner.append((i, k))
    plain, ruled = sight_batch(board.world, pairs, queries)
    best: dict[int, tuple[float, int]] = {}
    for (i, k), vis in zip(owner, ruled, strict=True):
        if vis.visible and vis.visible_fraction > best.get(i, (0.0, -1))[0]:
            best[i] = (vis.visible_fraction, k)
    covers: dict[tuple[str, str], object] = {}
    out = []
    for i, ((o, t), geo) in enumerate(zip(pairs, plain, strict=True)):
        if i in garrisoned:
            out.append(_through_garrison(board, o, t, geo))
            continue
        unit = board.unit_of(t)
        same = board.unit_of(o) == unit
        share, point = best.get(i, (0.0, -1))
        visible = point >= 0
        cover = None
        if visible:
            if (o, unit) not in covers:
                covers[(o, unit)] = cover_rules.save_bonus(board, o, unit, missile=True)
            cover = covers[(o, unit)]
        if same:
            reason, rule = f"{t} is in {o}'s own unit", RULE_OWN_UNIT
        elif visible:
            where = "its eye" if point == 0 else "a part of its volume"
            reason, rule = f"{o} sees {share:.0%} of {t} from {where}", RULE_SEE
        else:
            reason, rule = f"no part of {o} sees any part of {t}", RULE_SEE
        out.append(Verdict(
            o, t, visible, share, geo.visible_fraction, reason, rule, cover, dict(geo.blockers),
            cover_modifiers(cover), {
                "own_unit": same, "seen_from": None if not visible else
                ("eye" if point == 0 else "volume"),
                "own_unit_transparent": RULE_OWN_UNIT,
            }, visibility=geo))
    return out


def _through_garrison(board: Board, o: str, t: str, geo: Visibility) -> Verdict:
    """The verdict of a pair with a garrison on either side (§5.3): seen through the feature,
    the whole model; a garrisoned target in cover (+1 save, from its feature) and -1 to hit."""
    from .attacks import hit_modifiers

    unit = board.unit_of(t)
    piece = board.inside.get(unit)
    visible = bool(garrison_sight(board, o, unit, board.inside))
    cover = None
    if visible:
        cover = cover_rules.save_bonus(board, o, unit, missile=True, garrisoned=piece is not None)
        if piece is not None:
            cover = replace(cover, source=piece)
    where = piece if piece is not None else board.inside[board.unit_of(o)]
    if visible:
        reason = (f"{o} sees {t} through {where}, the feature {unit} garrisons" if piece
                  else f"{o} sees {t} from {where}, the feature its unit garrisons")
    else:
        reason = f"{o} does not see {where}, the feature {unit} garrisons"
    modifiers = cover_modifiers(cover) + (hit_modifiers(False, True) if visible and piece
                                          else [])
    return Verdict(
        o, t, visible, 1.0 if visible else 0.0, geo.visible_fraction, reason,
        cover_rules.RULE_GARRISON, cover, dict(geo.blockers), modifiers,
        {"own_unit": False, "seen_from": "feature" if visible else None, "garrison": piece,
         "observer_garrison": board.inside.get(board.unit_of(o))}, visibility=geo)
