"""Morale, falling back, regrouping, combat results and sweeping advances (wh40k6 §9.4, §10)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import movement
from .tables import leadership_passes

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_MORALE = "wh40k6 §10"
RULE_RESULT = "wh40k6 §9.4"
FAST_FALL_BACK = {"jump infantry", "bike", "jetbike", "beast", "cavalry"}


def unit_ld(game: Game, unit: str) -> int:
    """Units use the highest Ld among their models."""
    return max((game.board.profile(m).stat("Ld", 7) or 7) for m in game.board.unit_models(unit))


def _has(game: Game, unit: str, rule: str) -> bool:
    return any(game.board.profile(m).has(rule) for m in game.board.unit_models(unit))


def _never_tests(game: Game, unit: str) -> bool:
    return all(game.board.profile(m).is_vehicle for m in game.board.unit_models(unit))


def needs_morale_check(start: int, now: int) -> bool:
    """Lost at least 25% of the models it had at the start of the phase (§10)."""
    return start > 0 and now > 0 and (start - now) * 4 >= start


def morale_test(game: Game, unit: str, modifier: int = 0, why: str = "") -> bool:
    """A morale check (Ld test); Fearless passes; falling-back units fail automatically."""
    state = game.unit(unit)
    if _has(game, unit, "fearless"):
        game.emit("morale", unit, passed=True, reason=f"{why}: Fearless", rule=RULE_MORALE)
        return True
    if state.status.get("falling_back"):
        game.emit("morale", unit, passed=False, reason=f"{why}: already falling back",
                  rule=RULE_MORALE)
        return False
    ld = unit_ld(game, unit)
    if _has(game, unit, "stubborn"):
        modifier = max(0, modifier)
    dice = game.roller.d6(2, f"{unit} morale (Ld {ld}{modifier:+d})")
    passed = leadership_passes(dice, ld, modifier)
    game.emit("morale", unit, passed=passed, ld=ld, modifier=modifier, reason=why,
              rule=RULE_MORALE)
    return passed


def morale_checks(game: Game) -> None:
    """End of the movement / shooting phase: units that lost 25% test (not locked units)."""
    for unit, state in game.units.items():
        now = len(game.board.unit_models(unit))
        if not needs_morale_check(state.phase_start_models, now):
            continue
        if state.status.get("locked") or _never_tests(game, unit):
            continue
        lost = state.phase_start_models - now
        if not morale_test(game, unit, 0, f"lost {lost} of {state.phase_start_models} models"):
            fall_back(game, unit)


def fall_back(game: Game, unit: str) -> None:
    """Fall back 2D6" (3D6 for fast units) straight towards the owner's table edge; a model
    reaching the edge takes the whole unit off as destroyed (§10)."""
    board = game.board
    state = game.unit(unit)
    models = board.unit_models(unit)
    if not models:
        return
    state.status["falling_back"] = True
    state.status.pop("gone_to_ground", None)
    n = 3 if any(board.profile(m).type in FAST_FALL_BACK for m in models) else 2
    dice = game.roller.d6(n, f"{unit} fall back ({n}D6\")")
    edge = movement.table_edge(board, state.player)
    dests = {m: movement.towards_edge(board, m, edge, float(sum(dice))) for m in models}
    moved = movement.apply_moves(board, dests)
    gone = any(movement.touches_edge(board, m, edge) for m in models)
    if gone:
        for m in models:
            board.remove(m)
    for other in state.status.pop("locked", []) or []:
        rest = [u for u in game.unit(other).status.get("locked", []) if u != unit]
        if rest:
            game.unit(other).status["locked"] = rest
        else:
            game.unit(other).status.pop("locked", None)
    game.emit("fall_back", unit, dice=dice, distance=sum(dice), edge=list(edge), moves=moved,
              destroyed=gone, rule=RULE_MORALE)


def regroup_tests(game: Game) -> None:
    """Start of the owner's movement phase: falling-back units test to regroup; with under
    25% of their starting models only a double 1 passes; ATSKNF regroups automatically."""
    for unit, state in game.units.items():
        if state.player != game.active_player or not state.status.get("falling_back"):
            continue
        models = game.board.unit_models(unit)
        if not models:
            continue
        if _has(game, unit, "and they shall know no fear"):
            state.status.pop("falling_back", None)
            game.emit("regroup", unit, passed=True, reason="And They Shall Know No Fear",
                      rule=RULE_MORALE)
            continue
        few = len(models) * 4 < state.starting_models
        ld = unit_ld(game, unit)
        dice = game.roller.d6(2, f"{unit} regroup (Ld {ld})")
        passed = dice == [1, 1] if few else leadership_passes(dice, ld)
        game.emit("regroup", unit, passed=passed, below_quarter=few, rule=RULE_MORALE)
        if passed:
            state.status.pop("falling_back", None)
            state.status["regrouped"] = True
            state.turn["regroup_move"] = True  # its free 3" move, this movement phase
        else:
            fall_back(game, unit)


def sweeping_advance(winner_roll: int, winner_i: int, loser_roll: int, loser_i: int) -> bool:
    """True when the fleeing loser is caught and destroyed: D6 + I, winner >= loser (§9.4)."""
    return winner_roll + winner_i >= loser_roll + loser_i


def combat_result(game: Game, sides: dict[int, list[str]], wounds: dict[int, int],
                  before: dict[str, int]) -> None:
    """Compare unsaved wounds; the loser tests at -1 Ld per point of difference; a failed test
    falls back unless caught by a sweeping advance; a wiped-out side loses regardless."""
    board = game.board
    players = list(sides)
    alive = {p: [u for u in sides[p] if board.unit_models(u)] for p in players}
    score = {p: wounds.get(p, 0) for p in players}
    wiped = [p for p in players if not alive[p]]
    if len(players) < 2:
        return
    if wiped:
        winner = next((p for p in players if p not in wiped), None)
        loser = wiped[0]
    elif score[players[0]] == score[players[1]]:
        game.emit("combat_result", None, score=score, result="draw", rule=RULE_RESULT)
        return
    else:
        winner, loser = sorted(players, key=lambda p: -score[p])
    diff = abs(score.get(winner, 0) - score.get(loser, 0)) if winner else 0
    game.emit("combat_result", None, score=score, winner=winner, loser=loser,
              difference=diff, rule=RULE_RESULT)
    if winner is None or wiped:
        _unlock(game, alive.get(winner, []) if winner else [])
        return
    fled = [u for u in alive[loser] if not morale_test(game, u, -diff, "lost the combat")]
    if not fled:
        return
    w_i = max((board.profile(m).stat("I", 1) or 1) for u in alive[winner]
              for m in board.unit_models(u))
    for u in fled:
        l_i = max((board.profile(m).stat("I", 1) or 1) for m in board.unit_models(u))
        w_roll = game.roller.one(f"sweeping advance D6 + I{w_i}")
        l_roll = game.roller.one(f"{u} escape D6 + I{l_i}")
        caught = sweeping_advance(w_roll, w_i, l_roll, l_i)
        atsknf = _has(game, u, "and they shall know no fear")
        game.emit("sweeping_advance", u, winner_total=w_roll + w_i, loser_total=l_roll + l_i,
                  caught=caught, rule=RULE_RESULT)
        if caught and not atsknf:
            for m in board.unit_models(u):
                board.remove(m)
        fall_back(game, u)
    if all(not board.unit_models(u) or game.unit(u).status.get("falling_back")
           for u in alive[loser]):
        _unlock(game, alive[winner])


def _unlock(game: Game, winners: list[str]) -> None:
    """Winners no longer locked consolidate D6" (rolled and logged; models stay put)."""
    for u in winners:
        state = game.unit(u)
        still = [o for o in state.status.get("locked", []) if game.board.unit_models(o)
                 and not game.unit(o).status.get("falling_back")]
        if still:
            state.status["locked"] = still
            continue
        state.status.pop("locked", None)
        roll = game.roller.one(f"{u} consolidate (D6\")")
        game.emit("consolidate", u, distance=roll, rule=RULE_RESULT)


def ceil_quarter(n: int) -> int:
    return math.ceil(n / 4)
