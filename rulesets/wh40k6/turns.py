"""Timed 40k rules the phase engine calls (wh40k6 §2.4): Warp Charge at the start of a player
turn, reserve rolls and regroup tests at the start of the movement phase (then its powers step,
passed over when no psyker can cast), morale checks at the end of the movement and shooting
phases, status and psychic effect expiry at the end of a player turn, game length rolls after
game turns 5 to 7."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import effects, psychic, special
from .morale import morale_checks, regroup_tests

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game


def start_game(game: Game) -> None:
    for unit_id, state in game.units.items():
        entry = game.board.scene.unit(unit_id) or {}
        if entry.get("reserve"):
            for m in game.board.unit_models(unit_id):
                game.board.take_off(m)
            state.status["reserve"] = True


def turn_start(game: Game) -> None:
    """Each psyker of the player regains Warp Charge equal to its mastery level (§2.4)."""
    psychic.refresh_warp_charge(game)


def phase_start(game: Game) -> None:
    if game.phase.name != "movement":
        return
    for unit_id, state in game.units.items():
        if state.player != game.active_player:
            continue
        if state.status.get("reserve"):
            roll = game.roller.one(f"{unit_id} reserve roll") if game.game_turn in (2, 3) else 0
            ruling = special.reserve_arrives(game.game_turn, roll)
            if game.game_turn >= 2:
                game.emit("reserves", unit_id, roll=roll or None, arrives=ruling.ok,
                          reason=ruling.reason, rule=ruling.rule)
            state.status["arriving"] = ruling.ok
    regroup_tests(game)
    if game.step.name == psychic.POWERS_STEP and not game.over and \
            not psychic.can_cast_in_step(game, psychic.POWERS_STEP):
        game.advance()  # no blessing or malediction to cast: straight to the moves


def phase_end(game: Game) -> None:
    if game.phase.name in ("movement", "shooting"):
        morale_checks(game)
    if game.phase.name == "assault":  # end of the player turn
        effects.expire(game)
        for state in game.units.values():
            if state.player == game.active_player:
                for flag in ("gone_to_ground", "regrouped"):
                    state.status.pop(flag, None)
            for m in game.board.unit_models(state.id, alive=True, on_table=False):
                status = game.board.model(m).status
                if state.player == game.active_player:
                    status.pop("crew_shaken", None)
                    status.pop("crew_stunned", None)
    _check_tabled(game)


def game_turn_end(game: Game) -> None:
    turn = game.game_turn
    if turn >= 5:
        roll = game.roller.one(f"game length after turn {turn}") if turn < 7 else None
        go_on = special.game_continues(turn, roll)
        game.emit("game_length", roll=roll, continues=go_on, rule=special.RULE_LENGTH)
        if not go_on:
            game.end(f"game ends after game turn {turn}")


def _check_tabled(game: Game) -> None:
    alive = {p: any(game.board.unit_models(u, True, False) for u in game.board.units_of(p))
             for p in game.turn_order}
    left = [p for p, ok in alive.items() if ok]
    if len(left) == 1 and len(alive) > 1:
        game.end("tabled", winner=left[0])
