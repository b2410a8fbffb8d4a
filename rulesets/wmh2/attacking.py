"""Legality of an attack action (wmh2 §8.3, §9): the model's action, melee or ranged but not
both, the charge target first, initial and bought attacks (ROF), boosts paid with focus or fury
or by forcing a warbeast, then the geometry of the attack itself (range, arc, sight)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.ruling import Ruling

from . import turn as turns
from .active import RULE_ACTIVATION, model_turn, must_run, single_model
from .bodies import bodies
from .combat import AttackContext, plan_attack
from .movement import RULE_CHARGE
from .rules import gap

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game


def pick_weapon(game: Game, model: str, target: str, name: str | None):
    profile = game.board.profile(model)
    if name:
        return profile.weapon(str(name))
    bd = bodies(game.board, [model, target])
    dist = gap(bd[model].xy, bd[model].radius, bd[target].xy, bd[target].radius)
    melee = [w for w in profile.melee_weapons() if dist <= w.rng + 1e-9]
    if melee and bd[model].faces(bd[target]):
        return max(melee, key=lambda w: w.pow or 0)
    ranged = profile.ranged_weapons()
    if ranged:
        return ranged[0]
    return melee[0] if melee else max(profile.melee_weapons(), key=lambda w: w.pow or 0,
                                      default=None)


def attack_costs(action: Action) -> int:
    return sum(1 for k in ("boost_hit", "boost_damage", "additional") if action.get(k))


def legal_attack(game: Game, action: Action) -> Ruling:
    board = game.board
    model = single_model(game, action)
    target = action.get("target")
    if model is None:
        return Ruling(False, RULE_ACTIVATION, "attack needs model: (the unit has several)")
    if target not in board.models or not board.model(target).on_table:
        return Ruling(False, "wmh2 §9.2", f"no model {target!r} on the table")
    if target == model:
        return Ruling(False, "wmh2 §9.2", f"{model} cannot attack itself")
    record = model_turn(game, action.unit, model)
    status = board.model(model).status
    if record["move"] == "run" or record.get("no_action"):
        return Ruling(False, RULE_ACTIVATION, f"{model} has no action this activation: "
                      f"{record.get('no_action') or 'it ran'}")
    if must_run(game, action.unit, model):
        return Ruling(False, RULE_ACTIVATION, f"{model} is out of formation: no action")
    if status.get("knocked_down") or status.get("stationary"):
        return Ruling(False, RULE_ACTIVATION, f"{model} is knocked down or stationary")
    if game.unit(action.unit).status.get("fleeing"):
        return Ruling(False, "wmh2 §10", f"{action.unit} is fleeing: no actions")
    weapon = pick_weapon(game, model, str(target), action.get("weapon"))
    if weapon is None:
        return Ruling(False, "wmh2 §9.2", f"{model} has no weapon {action.get('weapon')!r}")
    kind = "melee" if weapon.melee else "ranged"
    if record["action"] not in (None, kind):
        return Ruling(False, "wmh2 §9.2", f"{model} is making {record['action']} attacks; it "
                      "cannot mix melee and ranged attacks")
    pending = record.get("charge_pending")
    if pending and pending in board.models and board.model(pending).on_table:
        bd = bodies(board, [model, pending])
        reach = max((w.rng for w in board.profile(model).melee_weapons()), default=0)
        if gap(bd[model].xy, bd[model].radius, bd[pending].xy, bd[pending].radius) <= reach and (
                target != pending or not weapon.melee):
            return Ruling(False, RULE_CHARGE, f"{model}'s first attack after its charge must "
                          f"be a melee attack on {pending}")
    if action.get("boost_damage") and weapon.melee and record.get("charge_attack") and \
            pending == target:
        return Ruling(False, RULE_CHARGE, "a charge attack's damage roll is already boosted; "
                      "it cannot be boosted again (wmh2 §8.3)")
    used = int(record["attacks"].get(weapon.name, 0))
    if used >= 1 and not action.get("additional"):
        return Ruling(False, "wmh2 §9.2", f"{model} has made its initial attack with "
                      f"{weapon.name}: buy an additional attack (additional: true)")
    if action.get("additional"):
        profile = board.profile(model)
        if not (profile.is_warjack or profile.is_warbeast or profile.is_caster):
            return Ruling(False, RULE_ACTIVATION, f"{model} cannot buy additional attacks")
        if not weapon.melee and weapon.rof is not None and used >= weapon.rof:
            return Ruling(False, "wmh2 §9.1", f"{weapon.name} has ROF {weapon.rof}")
    cost = attack_costs(action)
    if cost:
        ok = can_pay(game, model, cost)
        if not ok:
            return ok
    plan = plan_attack(board, model, str(target), weapon, AttackContext())
    if not plan.legal:
        return Ruling(False, plan.rule, plan.reason)
    return Ruling(True, plan.rule)


def can_pay(game: Game, model: str, cost: int) -> Ruling:
    board = game.board
    profile = board.profile(model)
    status = board.model(model).status
    if profile.is_warbeast:
        first = turns.pay(game, model, "boost or buy an attack", check_only=True)
        if not first:
            return first
        if int(status.get("fury", 0)) + cost > profile.stat("FURY"):
            return Ruling(False, turns.RULE_FURY, f"{model} cannot be forced {cost} times")
        return Ruling(True, turns.RULE_FURY)
    key = "fury" if profile.type == "warlock" else "focus"
    if profile.type not in ("warjack", "warcaster", "warlock"):
        return Ruling(False, turns.RULE_FOCUS, f"{model} cannot boost or buy attacks")
    if int(status.get(key, 0)) < cost:
        return Ruling(False, turns.RULE_FOCUS, f"{model} has {status.get(key, 0)} {key}; "
                      f"this attack needs {cost}")
    return Ruling(True, turns.RULE_FOCUS)
