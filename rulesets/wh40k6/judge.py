"""The 40k sight verdict for many ordered pairs at once (wh40k6 §4.2-§4.4, cover §5).

Sight is from the firer's eye to the target's body, past its own unit and the target's
unit-mates (`sight`); cover is the 25% rule, area terrain and third-unit gaps, vehicles
obscured by the majority (`cover`, `vehicles`). Every rule line and every plain line of a call
goes to the ray engine in one batch; body parts and blockers that may be skipped are worked out
once per target and per firing unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.geometry.visibility import Visibility
from battlesight.rulesets.core.ruleset import sight_batch
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.verdict import Verdict, cover_modifiers

from .sight import RULE_LOS, rule_queries

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


def cover_from_views(board: Board, firers: list[str], target: str, views: list[Visibility], *,
                     gone_to_ground: bool = False, stealth: bool = False,
                     shrouded: bool = False, memo: dict | None = None,
                     call: dict | None = None) -> Cover:
    """Cover of `target` against firers of one unit, from their rule views of it (§5, §5.9):
    the one cover function of the verdict (one firer) and of a shooting attack (the unit's
    firers, A2: a firer that cannot see the model counts too; a vehicle: the firers able to
    hurt it, by majority). Stealth and Shrouded of any model of the target's unit are the
    whole unit's (§5.2); `stealth` / `shrouded` grant them from outside (night fighting,
    §8.12); memo shares the per-model work between the pairs of one call, and call the
    facts that hold for this call only (who in the target's unit has Stealth, Shrouded)."""
    from .cover import model_cover, unit_rule_holder, with_modifiers
    from .vehicles import facing_view, vehicle_cover

    profile = board.profile(target)
    if profile.is_vehicle:
        return vehicle_cover(board, target, [facing_view(board, target, v) for v in views])
    cover = model_cover(board, board.unit_of(firers[0]), target, views, memo)
    key = ("holders", target)
    holders = call.get(key) if call is not None else None
    if holders is None:
        holders = {r: unit_rule_holder(board, target, r) for r in ("stealth", "shrouded")}
        if call is not None:
            call[key] = holders
    out = with_modifiers(board, cover, gone_to_ground=gone_to_ground,
                         stealth=stealth or holders["stealth"] is not None,
                         shrouded=shrouded or holders["shrouded"] is not None, model=target)
    out.notes.extend(f"{rule} is unit-wide: from {who} (§5.2)" for rule, who in holders.items()
                     if who not in (None, target))
    return out


def judge(board: Board, pairs: list[tuple[str, str]], samples: int) -> list[Verdict]:
    """One Verdict per (firer, target): visible when any body sample is seen from the eye."""
    return judge_views(board, pairs, samples)[0]


def judge_views(board: Board, pairs: list[tuple[str, str]], samples: int
                ) -> tuple[list[Verdict], dict[tuple[str, str], Visibility]]:
    """The verdicts of `judge` and the rule view behind each (eye to body, past the models
    that may not block): a shooting attack builds its per-unit cover from these same views
    with `cover_from_views`, so that sight and cover are judged once, one way."""
    queries = rule_queries(board, pairs, samples)
    plain, ruled = sight_batch(board.world, pairs, queries)
    out = []
    memo, call, groups = board.sight_memo, {}, board.groups
    parts = {p: sorted(p) for p in {q.parts for q in queries} if p is not None}
    for (f, t), query, geo, vis in zip(pairs, queries, plain, ruled, strict=True):
        cover = cover_from_views(board, [f], t, [vis], memo=memo, call=call) \
            if vis.visible else None
        if vis.visible:
            reason = f"{f} sees {vis.visible_fraction:.0%} of {t}'s body from its eye"
        else:
            main = max(vis.blockers, key=vis.blockers.get, default=None)
            reason = f"no part of {t}'s body is seen from {f}'s eye" + (
                f" (hidden by {groups.piece_of(main)})" if main else "")
        out.append(Verdict(
            f, t, vis.visible, vis.visible_fraction if vis.visible else 0.0,
            geo.visible_fraction, reason, RULE_LOS, cover, groups.shares(geo.blockers),
            cover_modifiers(cover), {
                "target_parts": list(parts[query.parts]) if query.parts is not None else None,
                "ignored_models": [m for m in query.skip if m != f],
                "obscured": round(vis.obscured_fraction, 4),
            }, visibility=geo))
    return out, dict(zip(pairs, ruled, strict=True))
