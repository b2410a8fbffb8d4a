"""The WHFB sight verdict for many ordered pairs at once (whfb6 §4.2, cover §5.1).

A yes/no answer: the target inside the firer's front arc and at least one sampled line from the
eye passing the rules (terrain, third units' bases, obstacles, woods; `sight`). The share that
counts is the share of sampled lines that pass. Cover is the worst piece on at least half of
the passing lines: soft -1, hard -2 to hit. One batch of ray casts for the whole call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.ruleset import sight_batch
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.verdict import Modifier, Verdict, cover_modifiers

from .sight import RULE_COVER, Line, _judge_all, in_arc_lines, is_woods, rule_queries

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

COVER_NAMES = {1: "soft", 2: "hard", 3: "soft and hard"}  # 3: reading whfb6.9 'soft-plus-hard'


def line_cover(board: Board, line: Line) -> Cover | None:
    """The to-hit modifier a judged line gives (None when not visible)."""
    if not line.visible:
        return None
    if not line.cover:
        return Cover.none(RULE_COVER)
    woods = board.groups.first(line.cover_source or "", is_woods)  # the piece, grouped or not
    kind = "forest" if woods is not None else "terrain"
    name = COVER_NAMES[line.cover]
    return Cover(True, -line.cover, "to_hit", kind, line.cover_source, RULE_COVER,
                 1.0 - line.rule_fraction, line.firer,
                 [f"{name} cover: the worst piece on at least half of the lines that pass"])


def hit_modifiers(cover: Cover | None) -> list[Modifier]:
    """The to-hit modifier a cover verdict gives ('soft cover' -1, 'hard cover' -2), the one
    list both the verdict and the shooting report show."""
    if cover is None or not cover.in_cover or not cover.value:
        return []
    return cover_modifiers(cover, f"{COVER_NAMES[-int(cover.value)]} cover")


def judge(board: Board, pairs: list[tuple[str, str]], samples: int) -> list[Verdict]:
    """One Verdict per (firer, target)."""
    lines, todo = in_arc_lines(board, pairs)
    plain, ruled = sight_batch(board.world, pairs, rule_queries(board, todo, samples))
    if todo:
        _judge_all(board, [lines[p] for p in todo], ruled)
    out = []
    for (f, t), geo in zip(pairs, plain, strict=True):
        line = lines[(f, t)]
        cover = line_cover(board, line)
        modifiers = hit_modifiers(cover)
        reason = line.reason if not line.visible else (
            f"{t} is in {f}'s arc and {line.rule_fraction:.0%} of the lines from its eye pass "
            f"terrain, troops, obstacles and woods")
        out.append(Verdict(
            f, t, line.visible, line.rule_fraction if line.visible else 0.0,
            geo.visible_fraction, reason, line.rule, cover, board.groups.shares(geo.blockers),
            modifiers,
            {"in_arc": line.in_arc, "blocked_by": {k: round(v, 4) for k, v in
                                                   line.blockers.items()}},
            visibility=geo))
    return out
