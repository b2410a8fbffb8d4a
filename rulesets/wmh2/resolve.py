"""Resolving legal actions with the seeded dice (wmh2 §2.5, §8, §9, §12): moves with free
strikes, runs, charges (charge attacks with boosted damage), attacks with boosts and
additional attacks, damage on boxes, grids and spirals, damage transfer and reaving for
warlocks, threshold checks and frenzy at the end of the Control Phase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import turn as turns
from .activation import begin, charge_targets, destinations, end, movement_bonus, speed
from .active import active_unit, model_turn, single_model
from .attacking import attack_costs, pick_weapon
from .bodies import bodies
from .combat import AttackContext, AttackPlan, plan_attack, roll_attack
from .damage import apply_damage, heal
from .movement import (
    RULE_CHARGE,
    charge_allowance,
    charge_move,
    facing_toward,
    free_strikers,
    plan_path,
)
from .rules import CHARGE_ATTACK_MIN, gap
from .template_play import resolve_template
from .templates import is_template, plan_template
from .terror import terror_checks

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game


def apply(game: Game, action: Action) -> None:
    if action.kind in ("allocate", "leach", "upkeep"):
        _control(game, action)
        return
    if action.kind != "end_activation":
        begin(game, action.unit)
    {"order": _order, "advance": _move, "run": _move, "charge": _charge, "attack": _attack,
     "stand_up": _stand, "heal": _heal, "end_activation": _end}[action.kind](game, action)
    terror_checks(game)  # whoever the action put in a terrifying entity's area checks now


def _control(game: Game, action: Action) -> None:
    caster = single_model(game, action)
    if action.kind == "allocate":
        to = dict(action.get("to") or {})
        turns.allocate(game, caster, to)
        game.emit("allocate", action.unit, caster=caster, to=to,
                  focus_left=game.board.model(caster).status.get("focus"),
                  rule=turns.RULE_CONTROL)
    elif action.kind == "upkeep":
        spell = str(action.get("spell"))
        turns.upkeep(game, caster, spell)
        game.emit("upkeep", action.unit, caster=caster, spell=spell, rule=turns.RULE_CONTROL)
    else:
        source = dict(action.get("from") or {})
        turns.leach(game, caster, source)
        game.emit("leach", action.unit, warlock=caster, source=source,
                  fury=game.board.model(caster).status.get("fury"), rule=turns.RULE_FURY)


def _order(game: Game, action: Action) -> None:
    game.unit(action.unit).turn["order"] = action.get("order")
    game.emit("order", action.unit, order=action.get("order"), rule="wmh2 §2.5 (orders)")


def _end(game: Game, action: Action) -> None:
    end(game, action.unit, "ended by its player")


def _move(game: Game, action: Action) -> None:
    run = action.kind == "run"
    board = game.board
    moves = []
    dests = destinations(game, action)
    for m, dest in dests.items():
        record = model_turn(game, action.unit, m)
        if run and (board.profile(m).is_warjack or board.profile(m).is_warbeast):
            turns.pay(game, m, "run")
        mates = tuple(x for x in dests if x != m)
        path = plan_path(board, m, [*dest.get("path", []), dest["at"]], ignore=mates)
        reached = _walk(game, m, path.points)
        if not board.model(m).alive:
            moves.append({"model": m, "destroyed": True})
            continue
        end_xy = path.end if reached is None else tuple(path.points[reached])
        facing = dest.get("facing")
        if facing is None and float(path.length) > 1e-9:
            facing = facing_toward(path.points[0], path.points[-1])
        board.move(m, end_xy, facing)
        record["move"] = "run" if run else "advance"
        record["distance"] = path.length
        if run or record.get("must_run"):
            record["no_action"] = "it ran" if run else "out of formation"
        moves.append({"model": m, "to": [round(end_xy[0], 4), round(end_xy[1], 4)],
                      "distance": round(path.length, 4), "cost": round(path.cost, 4),
                      "rough": path.rough, "obstacles": path.obstacles})
    game.emit("run" if run else "advance", action.unit, moves=moves,
              rule="wmh2 §8.2" if run else "wmh2 §8.2 (full advance)")
    if run and all(model_turn(game, action.unit, m)["move"] for m in
                   board.unit_models(action.unit)):
        end(game, action.unit, "a model that runs ends its activation")


def _walk(game: Game, model: str, pts: np.ndarray) -> int | None:
    """Free strikes on a model leaving melee ranges along a path; the index it stops at if
    it is destroyed or knocked down, else None (wmh2 §9.2)."""
    board = game.board
    for enemy, idx in free_strikers(board, model, pts):
        if not board.model(enemy).alive or not board.model(model).alive:
            break
        weapon = max(board.profile(enemy).melee_weapons(), key=lambda w: w.pow or 0)
        here = tuple(pts[max(idx - 1, 0)])
        start = tuple(board.outline(model).center)
        board.move(model, here)
        plan = plan_attack(board, enemy, model, weapon, AttackContext(free_strike=True))
        if not plan.legal:
            board.move(model, start)
            continue
        _resolve_attack(game, board.unit_of(enemy), plan, "free strike")
        if not board.model(model).alive or board.model(model).status.get("knocked_down"):
            return max(idx - 1, 0)
        board.move(model, start)
    return None


def _charge(game: Game, action: Action) -> None:
    board = game.board
    for m, target in charge_targets(game, action).items():
        record = model_turn(game, action.unit, m)
        if board.profile(m).is_warjack or board.profile(m).is_warbeast:
            turns.pay(game, m, "charge")
        allowance = charge_allowance(int(speed(game, m)), movement_bonus(game, m))
        stop = action.get("stop_at")
        move = charge_move(board, m, target, allowance, None if stop is None else float(stop))
        pts = plan_path(board, m, [move.end], ignore=(target,)).points
        reached = _walk(game, m, pts)
        record.update(move="charge", charge=target)
        if not board.model(m).alive:
            game.emit("charge", action.unit, model=m, target=target, destroyed=True,
                      rule=RULE_CHARGE)
            continue
        end_xy = move.end if reached is None else tuple(pts[reached])
        board.move(m, end_xy, facing_toward(end_xy, board.outline(target).center))
        bd = bodies(board, [m, target])
        reach = board.profile(m).melee_range
        success = reached is None and gap(bd[m].xy, bd[m].radius, bd[target].xy,
                                          bd[target].radius) <= reach + 1e-9
        record["distance"] = move.distance
        if success:
            record["charge_pending"] = target
            record["charge_attack"] = move.distance >= CHARGE_ATTACK_MIN - 1e-9
        else:
            record["no_action"] = "failed charge"
        game.emit("charge", action.unit, model=m, target=target, success=success,
                  distance=round(move.distance, 4), allowance=allowance,
                  stopped_by=move.stopped_by, charge_attack=bool(record.get("charge_attack")),
                  to=[round(end_xy[0], 4), round(end_xy[1], 4)], rule=RULE_CHARGE)
    if all(r.get("no_action") == "failed charge" for r in
           game.unit(action.unit).turn.get("models", {}).values()):
        end(game, action.unit, "failed charge: the activation ends")


def _attack(game: Game, action: Action) -> None:
    board = game.board
    model = single_model(game, action)
    target = str(action.get("target"))
    record = model_turn(game, action.unit, model)
    weapon = pick_weapon(game, model, target, action.get("weapon"))
    for _ in range(attack_costs(action)):
        turns.pay(game, model, "boost or buy an attack")
    charge_attack = bool(weapon.melee and record.get("charge_pending") == target
                         and record.get("charge_attack"))
    ctx = AttackContext(boost_hit=bool(action.get("boost_hit")),
                        boost_damage=bool(action.get("boost_damage")) and not charge_attack,
                        charge_attack=charge_attack,
                        aimed=not weapon.melee and record["move"] is None)
    tplan = plan_template(board, model, target, weapon, ctx) if is_template(weapon) else None
    plan = tplan.plan if tplan is not None else plan_attack(board, model, target, weapon, ctx)
    record["action"] = "melee" if weapon.melee else "ranged"
    record["attacks"][weapon.name] = int(record["attacks"].get(weapon.name, 0)) + 1
    if weapon.melee and record.get("charge_pending") == target:
        record.pop("charge_pending", None)
    if board.profile(model).has("incorporeal"):
        board.model(model).status["lost_incorporeal"] = game.active_player
    if tplan is not None:
        resolve_template(game, action.unit, tplan, _damage)
        return
    _resolve_attack(game, action.unit, plan, "charge attack" if charge_attack else "attack")


def _resolve_attack(game: Game, unit: str, plan: AttackPlan, label: str) -> dict[str, Any]:
    roll = roll_attack(plan, game.roller)
    target = plan.target
    damage = None
    if roll["points"] > 0:
        damage = _damage(game, target, roll["points"])
    game.emit(label.replace(" ", "_"), unit, attacker=plan.attacker, target=target,
              weapon=plan.weapon.name, attack_kind=plan.kind, **roll,
              attack_modifier=plan.attack_mod, attack_parts=plan.attack_parts,
              defense=plan.defense, arm=plan.armour,
              def_bonus=plan.defence.to_dict(), damage=damage,
              p_hit=round(float(plan.p_hit), 6), rule=plan.rule)
    return roll


def _damage(game: Game, target: str, points: int, after: bool = True) -> dict[str, Any]:
    """Mark damage (a warlock may transfer it to a warbeast for 1 fury, wmh2 §12); `after`:
    then the checks a removal calls for (massive casualties, victory), else the caller makes
    them once the whole attack is logged."""
    board = game.board
    profile = board.profile(target)
    status = board.model(target).status
    taker = target
    if profile.type == "warlock" and status.get("transfer", True) and \
            int(status.get("fury", 0)) >= 1:
        for beast, st in board.models.items():
            bp = st.profile
            if st.alive and st.on_table and bp.is_warbeast and bp.controller == target and \
                    turns.in_control_area(game, target, beast) and \
                    int(st.status.get("fury", 0)) < bp.stat("FURY"):
                status["fury"] -= 1
                taker = beast
                break
    start = game.roller.one(f"{taker} damage column") if (
        board.profile(taker).grid or board.profile(taker).spiral) else None
    fury = int(board.model(taker).status.get("fury", 0))
    marked = apply_damage(board, taker, points, start)
    out = {**marked.to_dict(), "model": taker}
    if taker != target:
        out["transferred_from"] = target
    if marked.destroyed and board.profile(taker).is_warbeast:
        _reave(game, taker, fury, out)
    if after:
        turns.after_removal(game, taker, marked.destroyed)
    return out


def _reave(game: Game, beast: str, fury: int, out: dict[str, Any]) -> None:
    """The warlock takes a destroyed warbeast's fury, up to its FURY (wmh2 §12)."""
    board = game.board
    leader = board.profile(beast).controller
    if not leader or leader not in board.models or not board.model(leader).alive:
        return
    lp = board.profile(leader)
    have = int(board.model(leader).status.get("fury", 0))
    taken = max(0, min(fury, lp.stat("FURY") - have))
    board.model(leader).status["fury"] = have + taken
    out["reaved"] = {"warlock": leader, "fury": taken}


def _stand(game: Game, action: Action) -> None:
    model = single_model(game, action)
    game.board.model(model).status.pop("knocked_down", None)
    model_turn(game, action.unit, model)["move"] = "stood up"
    game.emit("stand_up", action.unit, model=model, rule="wmh2 §8.5")


def _heal(game: Game, action: Action) -> None:
    model = single_model(game, action)
    target = str(action.get("target", model))
    amount = int(action.get("amount", 1))
    game.board.model(model).status["fury"] -= amount
    healed = heal(game.board, target, amount)
    game.emit("heal", action.unit, warlock=model, target=target, healed=healed,
              rule=turns.RULE_FURY)


def threshold_and_frenzy(game: Game) -> None:
    """Warbeasts with fury check threshold: 2d6 + fury > THR frenzies (wmh2 §12, A14); a
    frenzied warbeast activates now and attacks (or charges) the nearest model with its
    strongest melee weapon, attack and damage boosted; it then drops its fury."""
    board = game.board
    for m in turns.models_of(game, game.active_player):
        p, status = board.profile(m), board.model(m).status
        fury = int(status.get("fury", 0))
        if not p.is_warbeast or fury < 1:
            continue
        dice = game.roller.d6(2, f"{m} threshold check")
        frenzy = sum(dice) + fury > p.stat("THR")
        game.emit("threshold", board.unit_of(m), model=m, dice=dice, fury=fury,
                  threshold=p.stat("THR"), frenzy=frenzy, rule="wmh2 §12")
        if frenzy and board.model(m).alive:
            status["frenzied"] = True
            _frenzy(game, m)


def _frenzy(game: Game, beast: str) -> None:
    board = game.board
    unit = board.unit_of(beast)
    bd = bodies(board)
    me = bd[beast]
    others = sorted((gap(me.xy, me.radius, b.xy, b.radius), mid) for mid, b in bd.items()
                    if mid != beast)
    weapons = board.profile(beast).melee_weapons()
    game.unit(unit).turn.update(frenzy=True, activated=True, done=True)
    if not others or not weapons:
        return
    dist, nearest = others[0]
    weapon = max(weapons, key=lambda w: w.pow or 0)
    if dist > weapon.rng + 1e-9:
        move = charge_move(board, beast, nearest, charge_allowance(int(speed(game, beast))))
        board.move(beast, move.end, facing_toward(move.end, bd[nearest].xy))
        game.emit("frenzy_charge", unit, model=beast, target=nearest,
                  distance=round(move.distance, 4), rule="wmh2 §12 (frenzy)")
    else:
        board.move(beast, tuple(me.xy), facing_toward(me.xy, bd[nearest].xy))
    plan = plan_attack(board, beast, nearest, weapon,
                       AttackContext(boost_hit=True, boost_damage=True))
    if plan.legal:
        _resolve_attack(game, unit, plan, "frenzy attack")
    board.model(beast).status["fury"] = 0


def finish_activations(game: Game) -> None:
    """End of the Activation Phase: close the open activation; list models that never
    activated (every model must, wmh2 §2.5)."""
    current = active_unit(game)
    if current is not None:
        end(game, current, "end of the Activation Phase")
    idle = [u for u, s in game.units.items() if s.player == game.active_player
            and game.board.unit_models(u) and not s.turn.get("activated")]
    if idle:
        game.emit("not_activated", None, units=idle, rule="wmh2 §2.5")
