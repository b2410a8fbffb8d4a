"""40k actions through the phase engine: legality with reasons, resolution with seeded dice.

Actions (mappings): `move` / `arrive` {unit, to | by}; `run` {unit, to | by}; `shoot` {unit,
target, weapon?, floor?: the ruin floor a blast or template is declared at, go_to_ground?: the
target goes to ground before saves}; `charge` {unit, target, overwatch?: default true};
`fight` {unit}; `psychic` {unit, model, power, target, pick?, point?} (see `psychic`). Timed
rules are in `turns`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.moves import parse_destinations
from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import acting_unit_problem

from . import assault, movement, powers, special
from .context import shot_context
from .morale import combat_result, fall_back
from .resolve import resolve_shooting
from .shooting import analyse

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_SEQUENCE = "wh40k6 §2.4"
RULE_REGROUP = "wh40k6 §10"
#: inches a unit that regrouped may move at once (§10)
REGROUP_MOVE = 3.0


# ---- legality ------------------------------------------------------------------------------


def legal(game: Game, action: Action) -> Ruling:
    handler = _LEGAL.get(action.kind)
    if handler is None:
        return Ruling(False, RULE_SEQUENCE, f"unknown action {action.kind!r}")
    # units arriving from reserves have no models on the table yet
    problem = acting_unit_problem(game, action, RULE_SEQUENCE,
                                  needs_models=action.kind != "arrive")
    return handler(game, action) if problem is None else problem


def _legal_move(game: Game, action: Action) -> Ruling:
    state = game.unit(action.unit)
    for flag, why in (("moved", "it has already moved this phase"),):
        if state.turn.get(flag):
            return Ruling(False, movement.RULE_MOVE, f"{action.unit} cannot move: {why}")
    for flag, why in (("locked", "it is locked in combat"),
                      ("falling_back", "it is falling back (it moves automatically)"),
                      ("gone_to_ground", "it has gone to ground")):
        if state.status.get(flag):
            return Ruling(False, movement.RULE_MOVE, f"{action.unit} cannot move: {why}")
    if any(game.board.model(m).status.get(k) for m in game.board.unit_models(action.unit)
           for k in ("immobilised", "crew_stunned")):
        return Ruling(False, "wh40k6 §8.9", f"{action.unit} is immobilised or stunned")
    if state.status.get("regrouped"):
        if state.turn.get("regroup_moved") or not state.turn.get("regroup_move"):
            return Ruling(False, RULE_REGROUP, f"{action.unit} cannot move: it regrouped this "
                          "turn (only its 3\" regroup move, at once)")
        return _check_dests(game, action, REGROUP_MOVE, "regroup move")
    return _check_dests(game, action, _max_move(game, action.unit), "move")


def _max_move(game: Game, unit: str) -> float:
    models = game.board.unit_models(unit, on_table=False)
    return min((movement.allowance(game.board.profile(m)) for m in models), default=0.0)


def _check_dests(game: Game, action: Action, limit: float, what: str) -> Ruling:
    try:
        dests = parse_destinations(game.board, action.unit, action.params)
    except (ValueError, TypeError) as exc:
        return Ruling(False, movement.RULE_MOVE, str(exc))
    return movement.check_move(game.board, action.unit, dests, limit, what=what)


def _legal_arrive(game: Game, action: Action) -> Ruling:
    state = game.unit(action.unit)
    if not state.status.get("reserve"):
        return Ruling(False, special.RULE_RESERVES, f"{action.unit} is not in reserve")
    if not state.status.get("arriving"):
        return Ruling(False, special.RULE_RESERVES, f"{action.unit} did not arrive this turn")
    to = action.get("to") or {}
    missing = [m for m in game.board.unit_models(action.unit, on_table=False) if m not in to]
    if missing:
        return Ruling(False, special.RULE_RESERVES, f"place every model: missing {missing}")
    edge = movement.table_edge(game.board, state.player)
    limit = _max_move(game, action.unit)
    for m, at in to.items():
        xy = at["at"] if isinstance(at, dict) else at
        dist = abs((xy[0] if edge[0] == "x" else xy[1]) - edge[1])
        if dist > limit + 1e-9:
            return Ruling(False, special.RULE_RESERVES, f"{m} would be {dist:.2f}\" from "
                          f"its table edge; it moves on at most {limit:g}\"")
    return Ruling(True, special.RULE_RESERVES)


def _legal_run(game: Game, action: Action) -> Ruling:
    state = game.unit(action.unit)
    for flag, why in (("shot", "it has shot"), ("ran", "it has already run"),
                      ("arrived_deep", "it deep struck"),
                      ("witchfire_models", "its psyker cast a witchfire power (§8.11)")):
        if state.turn.get(flag):
            return Ruling(False, "wh40k6 §7.2", f"{action.unit} cannot run: {why}")
    for flag, why in (("locked", "it is locked in combat"), ("gone_to_ground", "gone to ground"),
                      ("regrouped", "it regrouped this turn")):
        if state.status.get(flag):
            return Ruling(False, "wh40k6 §7.2", f"{action.unit} cannot run: {why}")
    if any(game.board.profile(m).is_vehicle and not game.board.profile(m).is_walker
           for m in game.board.unit_models(action.unit)):
        return Ruling(False, "wh40k6 §7.3", "vehicles go flat out instead of running")
    return _check_dests(game, action, 6.0, "run")


def _legal_shoot(game: Game, action: Action) -> Ruling:
    state = game.unit(action.unit)
    target = action.get("target")
    if not target or target not in game.units:
        return Ruling(False, "wh40k6 §8.1", f"shoot needs a target unit, got {target!r}")
    if state.turn.get("ran"):
        return Ruling(False, "wh40k6 §8.1", f"{action.unit} ran this turn: it cannot shoot")
    if state.turn.get("shot"):
        return Ruling(False, "wh40k6 §2.1", f"{action.unit} has already shot this phase")
    if state.turn.get("witchfire") not in (None, target):
        return Ruling(False, "wh40k6 §8.11", f"its psyker's witchfire targeted "
                      f"{state.turn['witchfire']}: {action.unit} shoots at it too")
    if state.status.get("locked"):
        return Ruling(False, "wh40k6 §4.2", f"{action.unit} is locked in combat")
    if game.unit(target).status.get("locked"):
        return Ruling(False, "wh40k6 §4.2", f"{target} is locked in combat: it cannot be shot")
    report = analyse(game.board, action.unit, target,
                     shot_context(game, action.unit, action.get("weapon"),
                              floor=action.get("floor")))
    if not report.eligible:
        return Ruling(False, report.rule, report.reason)
    return Ruling(True, report.rule, value=report)


def _legal_charge(game: Game, action: Action) -> Ruling:
    target = action.get("target")
    if not target or target not in game.units:
        return Ruling(False, assault.RULE_CHARGE, f"charge needs a target unit, got {target!r}")
    state = game.unit(action.unit)
    return assault.charge_ruling(game.board, action.unit, target, state.turn, state.status)


def _legal_fight(game: Game, action: Action) -> Ruling:
    state = game.unit(action.unit)
    if not state.status.get("locked"):
        return Ruling(False, assault.RULE_FIGHT, f"{action.unit} is not locked in combat")
    if state.turn.get("fought") or state.status.get("fought_turn") == _turn_key(game):
        return Ruling(False, assault.RULE_FIGHT, f"{action.unit}'s combat was fought this turn")
    return Ruling(True, assault.RULE_FIGHT)


_LEGAL = {"move": _legal_move, "arrive": _legal_arrive, "run": _legal_run,
          "shoot": _legal_shoot, "charge": _legal_charge, "fight": _legal_fight,
          "psychic": powers.legal}


def _turn_key(game: Game) -> list[int]:
    return [game.game_turn, game.active_player]


# ---- resolution ----------------------------------------------------------------------------


def apply(game: Game, action: Action) -> None:
    {"move": _do_move, "arrive": _do_arrive, "run": _do_run, "shoot": _do_shoot,
     "charge": _do_charge, "fight": _do_fight, "psychic": powers.apply}[action.kind](game, action)


def _do_move(game: Game, action: Action) -> None:
    board, unit = game.board, action.unit
    dests = parse_destinations(board, unit, action.params)
    if game.unit(unit).status.get("regrouped"):
        _do_regroup_move(game, unit, dests)
        return
    limit = _max_move(game, unit)
    pieces = movement.crosses_difficult(board, unit, dests)
    if not pieces and any(board.profile(m).has("enfeebled") for m in board.unit_models(unit)):
        pieces = ["open ground (Enfeeble: all terrain is difficult, wh40k6 §8.11)"]
    roll = None
    if pieces and _dangerous_for(game, unit, dests, pieces):
        return
    dice_n = min(movement.difficult_dice(board.profile(m)) for m in board.unit_models(unit))
    if pieces and dice_n:
        dice = game.roller.d6(dice_n, f"{unit} difficult terrain ({dice_n}D6 pick the highest)")
        roll = max(dice)
        limit = min(limit, float(roll))
        dests = {m: movement.truncate(board, m, d, limit) for m, d in dests.items()}
    distance = max(movement.path_length(board, m, d) for m, d in dests.items())
    moved = movement.apply_moves(board, dests)
    state = game.unit(unit)
    state.turn.update(moved=True, distance=distance)
    game.emit("move", unit, moves=moved, difficult=pieces, roll=roll, limit=limit,
              rule=movement.RULE_MOVE)


def _do_regroup_move(game: Game, unit: str, dests) -> None:
    """A unit that regrouped this phase moves up to 3" at once, not slowed by difficult
    terrain (§10: "该单位马上可以移动多达3英寸。这个移动不受困难地形影响"); it counts as having
    moved and may not move again this phase."""
    moved = movement.apply_moves(game.board, dests)
    game.unit(unit).turn.update(moved=True, regroup_moved=True, distance=REGROUP_MOVE)
    game.emit("move", unit, moves=moved, regroup=True, limit=REGROUP_MOVE, rule=RULE_REGROUP)


def _dangerous_for(game: Game, unit: str, dests, pieces: list[str]) -> bool:
    """Vehicles (not walkers) treat difficult terrain as dangerous: D6, a 1 immobilises and
    the vehicle stops before entering; bikes and cavalry: a 1 is a wound (armour saves, no
    cover) (§7.1, §7.3). True when the move was stopped."""
    board = game.board
    stopped = False
    for m in list(board.unit_models(unit)):
        profile = board.profile(m)
        if profile.is_vehicle and not profile.is_walker:
            roll = game.roller.one(f"{m} dangerous terrain ({', '.join(pieces)})")
            if roll == 1:
                board.model(m).status["immobilised"] = True
                stopped = True
            game.emit("dangerous_terrain", unit, model=m, roll=roll, immobilised=roll == 1,
                      rule="wh40k6 §7.3")
        elif profile.type in ("bike", "cavalry"):
            roll = game.roller.one(f"{m} dangerous terrain")
            wounded = False
            if roll == 1:
                sv = profile.stat("Sv")
                if sv is None or game.roller.one(f"{m} armour save ({sv}+)") < max(2, sv):
                    wounded = True
                    left = board.model(m).wounds - 1
                    board.set_wounds(m, max(0, left))
                    if left <= 0:
                        board.remove(m)
            game.emit("dangerous_terrain", unit, model=m, roll=roll, wounded=wounded,
                      rule="wh40k6 §6.1")
    if stopped:
        game.unit(unit).turn.update(moved=True, distance=0.0)
        game.emit("move", unit, moves=[], stopped="immobilised entering difficult terrain",
                  difficult=pieces, rule="wh40k6 §7.3")
    return stopped


def _do_arrive(game: Game, action: Action) -> None:
    board, unit = game.board, action.unit
    state = game.unit(unit)
    moves = []
    for m, at in (action.get("to") or {}).items():
        dest = movement.Dest(tuple(at["at"] if isinstance(at, dict) else at),
                             at.get("floor") if isinstance(at, dict) else None)
        board.move(m, dest.at, floor=dest.floor)
        moves.append({"model": m, "to": list(dest.at)})
    state.status.pop("reserve", None)
    state.status.pop("arriving", None)
    state.turn.update(moved=True, arrived=True, distance=_max_move(game, unit))
    game.emit("arrive", unit, moves=moves, rule=special.RULE_RESERVES)


def _do_run(game: Game, action: Action) -> None:
    board, unit = game.board, action.unit
    roll = game.roller.one(f"{unit} run (D6\")")
    dests = parse_destinations(board, unit, action.params)
    dests = {m: movement.truncate(board, m, d, float(roll)) for m, d in dests.items()}
    moved = movement.apply_moves(board, dests)
    game.unit(unit).turn.update(ran=True, moved=True)
    game.emit("run", unit, roll=roll, moves=moved, rule="wh40k6 §7.2")


def _do_shoot(game: Game, action: Action) -> None:
    target = action.get("target")
    report = analyse(game.board, action.unit, target,
                     shot_context(game, action.unit, action.get("weapon"),
                              floor=action.get("floor")))
    gtg = bool(action.get("go_to_ground")) and _may_go_to_ground(game, target)
    outcome = resolve_shooting(game.board, report, game.roller, go_to_ground=gtg,
                               floor=action.get("floor"))
    state = game.unit(action.unit)
    state.turn["shot"] = target
    state.turn["fired"] = sorted({ln.weapon.kind for ln in report.firing}
                                 | set(state.turn.get("fired", [])))
    state.turn["fired_models"] = sorted({ln.model for ln in report.firing})
    if gtg:
        game.unit(target).status["gone_to_ground"] = True
    covers = {t.model: t.cover.to_dict() for t in report.targets}
    game.emit("shoot", action.unit, target=target, outcome=outcome.to_dict(), cover=covers,
              expected_unsaved=float(report.expected_unsaved), gone_to_ground=gtg,
              firers=[ln.to_dict() for ln in report.firers], rule="wh40k6 §8.1")


def _may_go_to_ground(game: Game, unit: str) -> bool:
    profiles = [game.board.profile(m) for m in game.board.unit_models(unit)]
    return bool(profiles) and not any(
        p.is_vehicle or p.type in ("bike", "jetbike") or p.has("fearless") for p in profiles
    ) and not game.unit(unit).status.get("falling_back")


def _do_charge(game: Game, action: Action) -> None:
    board, unit, target = game.board, action.unit, action.get("target")
    state, t_state = game.unit(unit), game.unit(target)
    state.turn["charged"] = target
    if action.get("overwatch", True) and not t_state.status.get("locked") \
            and t_state.status.get("overwatched") != _turn_key(game):
        _overwatch(game, target, unit)
    if not board.unit_models(unit):
        game.emit("charge", unit, target=target, success=False,
                  reason="wiped out by overwatch", rule=assault.RULE_CHARGE)
        return
    roll = assault.charge_roll(board, game.roller, unit, target)
    moves = []
    if roll["success"]:
        moves = assault.move_into_contact(board, unit, target, roll["distance"])
        for a, b in ((unit, target), (target, unit)):
            locked = set(game.unit(a).status.get("locked") or [])
            game.unit(a).status["locked"] = sorted(locked | {b})
        grenades = all(board.profile(m).has("assault grenades") for m in board.unit_models(unit))
        state.turn["through_cover"] = bool(roll["difficult"]) and not grenades
        state.turn["charge_success"] = True
    game.emit("charge", unit, target=target, moves=moves, rule=assault.RULE_CHARGE, **roll)


def _overwatch(game: Game, shooter: str, charger: str) -> None:
    """The charged unit fires snap shots at the charger (§9.1): no morale from it."""
    game.unit(shooter).status["overwatched"] = _turn_key(game)
    ctx = shot_context(game, shooter, overwatch=True)
    report = analyse(game.board, shooter, charger, ctx)
    if not report.eligible:
        game.emit("overwatch", shooter, target=charger, fired=False, reason=report.reason)
        return
    before = len(game.board.unit_models(charger))
    outcome = resolve_shooting(game.board, report, game.roller)
    game.unit(charger).phase_start_models -= before - len(game.board.unit_models(charger))
    game.emit("overwatch", shooter, target=charger, fired=True, outcome=outcome.to_dict(),
              rule=assault.RULE_CHARGE)


def _do_fight(game: Game, action: Action) -> None:
    board = game.board
    units = _combat_of(game, action.unit)
    sides: dict[int, list[str]] = {}
    for u in units:
        sides.setdefault(game.unit(u).player, []).append(u)
    charged = {u for u in units if game.unit(u).turn.get("charge_success")}
    cover = {u for u in units if game.unit(u).turn.get("through_cover")}
    moved_vehicles = {m for u in units for m in board.unit_models(u)
                      if game.unit(u).turn.get("moved") and board.profile(m).is_vehicle}
    before = {u: len(board.unit_models(u)) for u in units}
    record = assault.fight(board, game.roller, sides, charged, cover, moved_vehicles)
    for u in units:
        game.unit(u).status["fought_turn"] = _turn_key(game)
    game.emit("fight", action.unit, units=units, record=record, rule=assault.RULE_FIGHT)
    combat_result(game, sides, record["wounds"], before)
    game.unit(action.unit).turn["fought"] = True


def _combat_of(game: Game, unit: str) -> list[str]:
    seen, todo = [unit], [unit]
    while todo:
        for other in game.unit(todo.pop()).status.get("locked") or []:
            if other not in seen and game.board.unit_models(other):
                seen.append(other)
                todo.append(other)
    return seen


__all__ = ["apply", "legal", "fall_back"]
