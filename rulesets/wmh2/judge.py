"""The MK II sight verdict for many ordered pairs at once (wmh2 §5, cover §6).

Line of sight is all-or-nothing: one straight line from A's volume in its front arc to B's
volume that crosses no terrain, no base of an intervening model as large as B's, and no forest
or cloud it may not cross (`sight.lines_of_sight`, every pair's lines in one batch). The share
that counts is the share of the tested lines that pass. Against a ranged attack a visible
target may have cover +4 or concealment +2 DEF, +2 when elevated, +2 more for Camouflage
(`cover.defence`). Model volumes are the standard cylinders first (wmh2 §4); the plain shares
of every pair are one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.ruleset import sight_batch
from battlesight.rulesets.core.verdict import Verdict

from .bodies import bodies, standardise
from .combat import clouds_of
from .cover import Defence, defence
from .sight import Sight, lines_of_sight

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


def judge_with(board: Board, pairs: list[tuple[str, str]]
               ) -> list[tuple[Verdict, Sight, Defence | None]]:
    """One Verdict per (observer, target), with the MK II sight behind it and the DEF bonus of
    a ranged attack (None when not visible): what `judge` returns and what an attack plan of
    `battlesight shoot` is given, so both judge a pair once, the same way."""
    world = board.world
    standardise(world)
    bd = bodies(board)
    clouds = clouds_of(board)
    plain, _ = sight_batch(world, pairs, [])
    out = []
    sights = lines_of_sight(world, bd, pairs, clouds)
    for (o, t), geo, sight in zip(pairs, plain, sights, strict=True):
        details = {k: v for k, v in sight.to_dict().items()
                   if k not in ("observer", "target", "visible_by_rule", "rule", "reason")}
        cover, modifiers, bonus = None, [], None
        if sight.visible:
            bonus = defence(world, bd[o], bd[t], "ranged", clouds=clouds,
                            camouflage=board.profile(t).has("camouflage"))
            cover = bonus.to_cover(o)
            modifiers = bonus.modifiers()
            details["def_bonus"] = bonus.total
        share = sight.clear / sight.lines if sight.visible and sight.lines else 0.0
        out.append((Verdict(o, t, sight.visible, share, geo.visible_fraction, sight.reason,
                            sight.rule, cover, board.groups.shares(geo.blockers), modifiers,
                            details,
                            visibility=geo), sight, bonus))
    return out


def judge(board: Board, pairs: list[tuple[str, str]], samples: int | None = None
          ) -> list[Verdict]:
    """One Verdict per (observer, target). `samples` is not read: the rule tests lines
    between volumes, not silhouette samples."""
    return [verdict for verdict, _, _ in judge_with(board, pairs)]
