"""The game hooks of WARMACHINE/HORDES MK II: what the core's `Game` calls at each point of a
turn (`core.parts.GAME_HOOKS`), each handing over to the module that keeps that part of the
rules (maintenance and control in `turn`, terror in `terror`, activations in `activation` and
`resolve`). Imported at the first hook: a sight verdict needs none of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import resolve, terror, turn
from .activation import legal
from .bodies import standardise
from .resolve import apply

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

__all__ = ["apply", "legal", "phase_end", "phase_start", "start_game", "turn_start"]


def start_game(game: Game) -> None:
    """Every model's volume becomes its standard volume (wmh2 §4), then the turn state."""
    standardise(game.board.world)
    turn.start_game(game)


def turn_start(game: Game) -> None:
    """The turn's resets, and the terror checks already taken this turn forgotten."""
    turn.turn_start(game)
    terror.reset(game)


def phase_start(game: Game) -> None:
    """Maintenance (wmh2 §2.3), focus and fury in control (§2.4), terror before activations."""
    if game.phase.name == "maintenance":
        turn.maintenance(game)
    elif game.phase.name == "control":
        turn.control_start(game)
    elif game.phase.name == "activation":
        terror.terror_checks(game)


def phase_end(game: Game) -> None:
    """Upkeep and threshold checks after control (§2.4); unfinished activations end (§2.5)."""
    if game.phase.name == "control":
        turn.expire_upkeep(game)
        resolve.threshold_and_frenzy(game)
    elif game.phase.name == "activation":
        resolve.finish_activations(game)
