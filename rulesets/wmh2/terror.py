"""Terrifying entities in play (wmh2 §10): Abomination and Terror call for command checks.

The seed (S p.9-10) says who checks: every model and unit, friendly or enemy, within 3" of an
Abomination; every enemy model and unit in a Terror model's melee range, or whose melee range
the Terror model is in. A failed check makes the unit flee (`turn.command_check`). When they
check is on rulebook p.82, which the seed does not contain; the reading implemented: a unit
checks as soon as it is in the area (after each action or move that puts it there, and at the
start of the Activation Phase for units already there), once per entity per player turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bodies import Body, bodies
from .combat import engaged_by
from .rules import gap, must_check_abomination
from .turn import command_check

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_ABOMINATION = "wmh2 §10 (Abomination)"
RULE_TERROR = "wmh2 §10 (Terror)"
ENTITIES = ("abomination", "terror")
#: the unit status key holding the entities a unit has checked for this turn
CHECKED = "terror_checked"


def affected_units(game: Game, entity: str, kind: str,
                   all_bodies: dict[str, Body] | None = None) -> list[str]:
    """The units that must check for `entity` now: any unit but its own with a model within
    3" (Abomination), or an enemy unit with a model engaging it or engaged by it (Terror)."""
    board = game.board
    bd = all_bodies or bodies(board)
    if entity not in bd:
        return []
    me, own = bd[entity], board.unit_of(entity)
    if kind == "abomination":
        near = [m for m, b in bd.items() if m != entity and must_check_abomination(
            gap(me.xy, me.radius, b.xy, b.radius), b.player == me.player)]
    else:
        near = engaged_by(board, entity, bd)
    units = dict.fromkeys(board.unit_of(m) for m in near)
    return [u for u in units if u != own]


def terror_checks(game: Game) -> None:
    """Every unit in a terrifying entity's area that has not checked for it this turn takes a
    command check now; fleeing units do not check again."""
    board = game.board
    bd = bodies(board)
    for entity in list(bd):
        profile = board.profile(entity)
        for kind in ENTITIES:
            if not profile.has(kind):
                continue
            for unit in affected_units(game, entity, kind, bd):
                status = game.unit(unit).status
                checked = status.setdefault(CHECKED, [])
                if f"{kind}:{entity}" in checked or status.get("fleeing"):
                    continue
                checked.append(f"{kind}:{entity}")
                why = (f"Abomination: within 3\" of {entity}" if kind == "abomination" else
                       f"Terror: in melee with {entity}")
                command_check(game, unit, why)


def reset(game: Game) -> None:
    """A new player turn: units check again for the entities around them."""
    for state in game.units.values():
        state.status.pop(CHECKED, None)
