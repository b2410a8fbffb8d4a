"""The priority roll's choice (aos2 §2.2): the player who wins the roll-off at the start of a
battle round (on a tie, the player who went first last round, or who finished deploying
first) chooses who takes the first turn.

The roll comes before the round's first turn starts, which the engine begins at once with the
roller's choice as the default (the winner goes first). The chooser may then choose, as the
round's first action, `priority` {first: PLAYER}; choosing the other player undoes the start
of the turn already begun (the command point of its hero phase, the Mystic Shields that
phase ended) and starts that player's turn instead. Any other action, or the end of the hero
phase, closes the choice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import game_state

from . import rules, turn

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

#: the game state key of the open choice: {chooser, first, expired: [units], cp: player}
OPEN = "priority_choice"


def open_choice(game: Game, chooser: int, first: int) -> None:
    """The roll is made: `chooser` may choose who goes first until the round's first action."""
    game_state(game)[OPEN] = {"chooser": chooser, "first": first, "expired": [], "cp": None}


def note_turn_start(game: Game, expired: list[str], cp_player: int) -> None:
    """What the hero phase that began the round did (undone if the chooser picks the other
    player): the Mystic Shields it ended and who gained its command point."""
    choice = game_state(game).get(OPEN)
    if choice is not None and game.player_index == 0:
        choice["expired"], choice["cp"] = list(expired), cp_player


def close(game: Game) -> None:
    game_state(game).pop(OPEN, None)


def legal_priority(game: Game, action: Action) -> Ruling:
    choice = game_state(game).get(OPEN)
    if choice is None or game.player_index != 0:
        return Ruling(False, rules.RULE_PRIORITY, "who goes first is chosen right after the "
                      "priority roll, before the round's first action")
    chooser = choice["chooser"]
    if action.player is not None and action.player != chooser:
        return Ruling(False, rules.RULE_PRIORITY, f"player {chooser} won the priority roll and "
                      f"chooses who goes first, not player {action.player}")
    first = action.get("first")
    if isinstance(first, bool) or first not in game.turn_order:
        players = ", ".join(str(p) for p in sorted(game.turn_order))
        return Ruling(False, rules.RULE_PRIORITY, f"'first' must be a player ({players}), got "
                      f"{first!r}")
    return Ruling(True, rules.RULE_PRIORITY)


def apply_priority(game: Game, action: Action) -> None:
    """The chooser's choice: keep the turn begun, or start the other player's instead."""
    choice: dict[str, Any] = game_state(game)[OPEN]
    first = int(action.get("first"))
    before = game.active_player
    game.emit("priority_choice", chooser=choice["chooser"], first=first,
              changed=first != before, rule=rules.RULE_PRIORITY)
    close(game)
    if first == before:
        return
    if choice["cp"] is not None:
        turn.add_cp(game, choice["cp"], -1)
    for unit in choice["expired"]:
        game.unit(unit).status["mystic_shield"] = before
    game.turn_order[:] = [first] + [p for p in game.turn_order if p != first]
    game_state(game)["went_first"] = first
    game._start_turn()  # the engine's own turn start, for the player now going first
