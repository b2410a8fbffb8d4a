"""WHFB 6th pursuit and overrun moves into new enemies (whfb6 §7 table, §9.5, W-27, W-28).

A pursuer or overrunner moves its whole roll in a straight line (pursuers towards the fleeing
unit, overrunners straight ahead: the digest gives no direction for an overrun, so that is an
engine choice). The first enemy unit it would come within 1" of on the way is contacted: it
counts as a new charge, lined up like a charge move, with all charge bonuses (chargers strike
first, lances and the like in the first round), fought in the next close combat phase, not
this one. No fear or terror test is needed for that charge (whfb6 §7, §11). A unit contacted
by an overrun may only Hold (W-28); one contacted by pursuers has no reaction step in the
close combat phase either, so it holds too (engine reading; the seed names no reaction).
Units already in another combat or fleeing are not contacted (engine simplification): they
stop the move 1" short like any other unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.measure import plan_gap
from battlesight.rulesets.core.state import turn_key

from . import charge, tables
from . import formation as fm
from . import movement as mv
from .sight import square

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_PURSUE = "whfb6 §7"
STEP = 0.25
#: whfb6 §7, §11: a pursuit or overrun charge into a fear or terror causer needs no test.
NO_FEAR_TEST = ("no fear or terror test for a pursuit or overrun charge; those rules apply "
                "normally the next turn (whfb6 §7, §11)")


def disengage(game: Game, unit: str) -> None:
    """Forget a finished combat: no enemies left in contact."""
    st = game.unit(unit).status
    for key in ("engaged", "combat_round", "attacks_side", "charged", "last_won"):
        st.pop(key, None)


def _contact_at(game: Game, unit: str, form: fm.Formation, exclude: set[str]) -> str | None:
    """A fresh enemy unit within 1" of the block at `form`, or None."""
    board = game.board
    hull = form.hull(len(board.unit_models(unit)))
    near = []
    for other in board.enemies_of(board.unit_player(unit)):
        st = game.unit(other).status
        if other in exclude or not board.unit_models(other) or st.get("fleeing") or \
                st.get("engaged"):
            continue
        g = min(plan_gap(hull, square(board.outline(m))) for m in board.unit_models(other))
        if g < mv.KEEP_AWAY - 1e-6:
            near.append((g, other))
    return min(near)[1] if near else None


def advance(game: Game, unit: str, direction: np.ndarray, distance: float, kind: str,
            exclude: set[str]) -> dict[str, Any]:
    """Move `unit` up to `distance` along `direction` (facing it); a fresh enemy met on the
    way is charged (whfb6 §7). Returns {moved, contact, side?}."""
    form = fm.formation(game, unit)
    out: dict[str, Any] = {"moved": 0.0, "contact": None}
    if form is None or distance <= 0:
        return out  # a unit without a formation does not move here (engine simplification)
    u = np.asarray(direction, float) / (np.linalg.norm(direction) or 1.0)
    base = fm.Formation(form.front, fm.facing_of(u), form.files, form.width, form.depth)
    steps = [min(distance, STEP * i) for i in range(1, int(np.ceil(distance / STEP)) + 1)]
    best = None
    for t in steps:
        here = base.advanced(t)
        target = _contact_at(game, unit, here, exclude)
        if target is not None:
            mv.move_block(game, unit, here if best is None else best[1])
            out.update(moved=round(best[0] if best else 0.0, 3), contact=target)
            out.update(contact_charge(game, unit, target, kind))
            return out
        if mv.check_block(game, unit, here).ok:
            best = (t, here)
    if best is not None:
        out["moves"] = mv.move_block(game, unit, best[1])
        out["moved"] = round(best[0], 3)
    return out


def contact_charge(game: Game, unit: str, target: str, kind: str) -> dict[str, Any]:
    """The pursuer or overrunner charges `target`: lined up on the side it comes from, engaged
    as a charger; the combat waits for the next close combat phase (whfb6 §7, W-27, W-28)."""
    board = game.board
    t_form = fm.formation(game, target)
    here = mv.centre(game, unit)
    side = "front" if t_form is None else fm.side_attacked(
        t_form, len(board.unit_models(target)), (float(here[0]), float(here[1])))
    disengage(game, unit)
    plan = charge._contact_plan(game, unit, target, side)
    moves = charge._place(game, unit, target, plan)
    charge._engage(game, unit, target, side)
    for u in (unit, target):
        game.unit(u).status["fought"] = turn_key(game)  # fought next turn, not now
    allowed = tables.reactions_allowed(kind)
    game.emit("contact_charge", unit, target=target, side=side, by=kind, moves=moves,
              reaction="hold", reactions_allowed=list(allowed), fear_test=False,
              note=NO_FEAR_TEST, fought="next close combat phase; the chargers strike first",
              rule=RULE_PURSUE)
    return {"side": side}


def overrun(game: Game, unit: str) -> dict[str, Any] | None:
    """A unit that wiped out its enemy in the first round overruns 2D6" (3D6" for M over 6)
    straight ahead (whfb6 §7, W-28)."""
    if not game.board.unit_models(unit) or fm.formation(game, unit) is None:
        return None
    disengage(game, unit)
    n = tables.flee_dice(mv.unit_m(game, unit))
    dice = game.roller.d6(n, f"{unit} overruns ({n}D6\")")
    form = fm.formation(game, unit)
    out = advance(game, unit, form.forward, float(sum(dice)), "overrun", set())
    game.emit("overrun", unit, dice=dice, distance=sum(dice), moved=out["moved"],
              contact=out["contact"], rule=RULE_PURSUE)
    return out
