"""The AoS sight verdict for many ordered pairs at once (aos2 §4, cover §5).

True sight from any part of the observer to any part of the target, the observer's own unit
transparent (`sight`); a model never judges sight to its own unit. Cover is the one +1 save the
target's unit has against a missile attack from this observer (`cover.save_bonus`). The sight
points are worked out once per observer and cover once per observer and target unit; every
line of a call goes to the ray engine in one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.geometry.visibility import SightQuery
from battlesight.rulesets.core.ruleset import sight_batch
from battlesight.rulesets.core.verdict import Verdict, cover_modifiers

from . import cover as cover_rules
from .sight import RULE_OWN_UNIT, RULE_SEE, own_unit, sight_points

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


def judge(board: Board, pairs: list[tuple[str, str]], samples: int) -> list[Verdict]:
    """One Verdict per (observer, target): seen from some part of the observer."""
    points = {o: sight_points(board, o) for o in dict.fromkeys(o for o, _ in pairs)}
    own = {o: own_unit(board, o) for o in points}
    queries, owner = [], []
    for i, (o, t) in enumerate(pairs):
        if board.unit_of(o) == board.unit_of(t):
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
