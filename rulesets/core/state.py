"""Game-wide state and hooks shared by rulesets that need more than `Game` keeps.

Game-wide state that `Game` has no slot for (pending spells, models slain this turn, combat
picks) lives in `game_state(game)`; action dispatch with the usual "whose unit is it" checks;
removing casualties with a per-turn tally; the pending-spell flow (a spell is cast, the opponent
may answer it before anything else happens).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .ruling import Ruling

if TYPE_CHECKING:
    from .game import Action, Game

_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

Handler = Callable[["Game", "Action"], Any]


def game_state(game: Game) -> dict[str, Any]:
    """A dict of ruleset state kept beside the game (created empty on first use)."""
    if game not in _STATE:
        _STATE[game] = {}
    return _STATE[game]


def turn_key(game: Game) -> list[int]:
    """[game turn, active player]: which player turn a flag belongs to."""
    return [game.game_turn, game.active_player]


def opponent(game: Game) -> int:
    """The player whose turn it is not (two-player games)."""
    others = [p for p in game.turn_order if p != game.active_player]
    return others[0] if others else game.active_player


def acting_unit_problem(game: Game, action: Action, rule: str, who: str = "active",
                        needs_models: bool = True) -> Ruling | None:
    """Why `action.unit` may not act now, or None: the action needs a unit, the unit must
    belong to the player whose turn it is (`who` 'active'), to the opponent ('reactive') or to
    either ('either'), and must have models on the table (unless not `needs_models`)."""
    if action.unit is None:
        return Ruling(False, rule, f"'{action.kind}' needs a unit")
    player = game.unit(action.unit).player
    want = {"active": game.active_player, "reactive": opponent(game)}.get(who, player)
    if player != want:
        return Ruling(False, rule, f"{action.unit} belongs to player {player}; only player "
                      f"{want}'s units may '{action.kind}' now")
    if needs_models and not game.board.unit_models(action.unit):
        return Ruling(False, rule, f"{action.unit} has no models on the table")
    return None


def dispatch_legal(game: Game, action: Action, handlers: dict[str, Handler], rule: str,
                   whose: dict[str, str] | None = None) -> Ruling:
    """Common checks, then the handler. `whose[kind]` says who acts: 'active' (default),
    'reactive' (the opponent's unit), 'either', or 'none' (no unit needed)."""
    handler = handlers.get(action.kind)
    if handler is None:
        return Ruling(False, rule, f"unknown action {action.kind!r}")
    who = (whose or {}).get(action.kind, "active")
    if who != "none":
        problem = acting_unit_problem(game, action, rule, who)
        if problem is not None:
            return problem
    return handler(game, action)


# ---- casualties ----------------------------------------------------------------------------


def slay(game: Game, models: list[str]) -> list[str]:
    """Remove models as casualties and count them as slain this player turn, per unit."""
    tally = game_state(game).setdefault("slain", {})
    key = tuple(turn_key(game))
    if tally.get("_turn") != key:
        tally.clear()
        tally["_turn"] = key
    for m in models:
        unit = game.board.unit_of(m)
        game.board.remove(m)
        tally[unit] = tally.get(unit, 0) + 1
    return list(models)


def slain_this_turn(game: Game, unit: str) -> int:
    tally = game_state(game).get("slain", {})
    return int(tally.get(unit, 0)) if tally.get("_turn") == tuple(turn_key(game)) else 0


# ---- pending spells ------------------------------------------------------------------------


def pending_spell(game: Game) -> dict[str, Any] | None:
    return game_state(game).get("pending_spell")


def set_pending(game: Game, spell: dict[str, Any], effect: Callable[[Game, dict], None]) -> None:
    """A spell was cast; the opponent may answer before it takes effect."""
    game_state(game)["pending_spell"] = {**spell, "_effect": effect}


def settle_spell(game: Game, stopped: bool = False, **why: Any) -> None:
    """Resolve the pending spell: stopped (dispelled / unbound) or taking effect."""
    spell = game_state(game).pop("pending_spell", None)
    if spell is None:
        return
    effect = spell.pop("_effect")
    if stopped:
        game.emit("spell_stopped", spell.get("unit"), spell=spell.get("spell"), **why)
    else:
        effect(game, spell)


@dataclass
class ReportHead:
    """The head of a shooting report: which unit shoots which, and whether it may."""

    unit: str
    target: str
    eligible: bool
    reason: str
    rule: str

    @property
    def firing(self) -> list[Any]:
        return [f for f in getattr(self, "firers", []) if f.can_fire]
