"""Activations and their legality (wmh2 §2.5, §8, §9): each model or unit activates once per
turn, movement first then one action; units need an order to run or charge; warjacks pay
focus to run, charge, boost and buy attacks, warbeasts are forced for them; troopers out of
formation must run toward their commander and lose their action.

Actions (mappings, `unit` is the unit id, or the model id of an independent model):
`order` {unit, order: run | charge}; `advance` / `run` {unit, to: [x, y] | {model: [x, y] |
{at, facing}}, by: [dx, dy], path: [[x, y], ...], facing}; `charge` {unit, target | targets:
{model: target}, stop_at}; `attack` {unit, model, target, weapon, boost_hit, boost_damage,
additional}; `stand_up` {unit}; `heal` {unit, target, amount}; `end_activation` {unit}.
Control phase: `allocate` {unit, to: {jack: n}}, `leach` {unit, from: {beast: n}},
`upkeep` {unit, spell}.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.moves import parse_point
from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import acting_unit_problem

from . import turn as turns
from .active import RULE_ACTIVATION, active_unit, model_turn, must_run, single_model
from .attacking import legal_attack
from .bodies import bodies
from .combat import clouds_of, current, effects_of
from .movement import (
    RULE_ADVANCE,
    RULE_BASICS,
    RULE_CHARGE,
    can_charge,
    commander_of,
    in_formation,
    plan_path,
)
from .rules import total_mod
from .sight import line_of_sight

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_ORDERS = "wmh2 §2.5 (orders)"
ACTIVATION_ACTIONS = ("order", "advance", "run", "charge", "attack", "stand_up", "heal",
                      "end_activation")
CONTROL_ACTIONS = ("allocate", "leach", "upkeep")


def begin(game: Game, unit: str) -> None:
    """Start a unit's activation (ending the one before); note troopers out of formation."""
    under_way = active_unit(game)
    if under_way == unit:
        return
    if under_way is not None:
        end(game, under_way, f"{unit} activates")
    state = game.unit(unit)
    state.turn.update(activating=True, activated=True)
    stray = []
    for m in game.board.unit_models(unit):
        record = model_turn(game, unit, m)
        if game.board.profile(m).is_trooper and not in_formation(game.board, m):
            record["must_run"] = True
            stray.append(m)
    game.emit("activate", unit, out_of_formation=stray, order=state.turn.get("order"),
              rule=RULE_ACTIVATION)


def end(game: Game, unit: str, why: str) -> None:
    state = game.unit(unit)
    if state.turn.get("done"):
        return
    state.turn.update(done=True, activating=False)
    game.emit("activation_end", unit, reason=why, rule=RULE_ACTIVATION)


def destinations(game: Game, action: Action) -> dict[str, dict[str, Any]]:
    """{model: {at, facing, path}} from `to`, `by` or `path` (ValueError on bad input)."""
    board = game.board
    models = board.unit_models(action.unit)
    out: dict[str, dict[str, Any]] = {}
    to = action.get("to")
    if "by" in action.params:
        dx, dy = parse_point(action.get("by"), "by")
        for m in models:
            c = board.outline(m).center
            out[m] = {"at": (c[0] + dx, c[1] + dy)}
    if isinstance(to, (list, tuple)):
        m = single_model(game, action)
        if m is None:
            raise ValueError(f"{action.unit} has several models: give to: {{model: [x, y]}}")
        out[m] = {"at": parse_point(to, "to")}
    elif isinstance(to, dict):
        for m, v in to.items():
            if m not in models:
                raise ValueError(f"{m!r} is not a model of {action.unit} on the table")
            at = v.get("at") if isinstance(v, dict) else v
            out[m] = {"at": parse_point(at, f"to: {m}")}
            if isinstance(v, dict):
                out[m].update({k: v[k] for k in ("facing", "path") if k in v})
    elif to is not None:
        raise ValueError(f"'to' must be [x, y] or {{model: [x, y]}}, got {to!r}")
    if "path" in action.params and (m := single_model(game, action)):
        path = action.get("path")
        if not isinstance(path, (list, tuple)) or not path:
            raise ValueError(f"'path' must be a list of [x, y] points, got {path!r}")
        pts = [parse_point(p, "path") for p in path]
        out[m] = {"at": pts[-1], "path": pts[:-1]}
    if not out:
        raise ValueError("a move needs to, by or path")
    if action.get("facing") is not None:
        for d in out.values():
            d.setdefault("facing", float(action.get("facing")))
    return out


def movement_bonus(game: Game, model: str) -> float:
    return float(max(0, total_mod(effects_of(game.board, model), "movement")))


def speed(game: Game, model: str) -> float:
    return float(current(game.board, model, "SPD"))


def legal(game: Game, action: Action) -> Ruling:
    problem = acting_unit_problem(game, action, RULE_ACTIVATION)
    if problem is not None:
        return problem
    state = game.unit(action.unit)
    if action.kind in CONTROL_ACTIONS:
        return _legal_control(game, action)
    if state.turn.get("done"):
        return Ruling(False, RULE_ACTIVATION, f"{action.unit} has already activated this turn")
    if state.turn.get("frenzy"):
        return Ruling(False, "wmh2 §12 (frenzy)", f"{action.unit} activated in the Control "
                      "Phase (frenzy)")
    handler = {"order": _legal_order, "advance": _legal_move, "run": _legal_move,
               "charge": _legal_charge, "attack": legal_attack, "stand_up": _legal_stand,
               "heal": _legal_heal, "end_activation": _legal_end}[action.kind]
    return handler(game, action)


def _legal_control(game: Game, action: Action) -> Ruling:
    caster = single_model(game, action)
    if caster is None:
        return Ruling(False, turns.RULE_CONTROL, f"{action.unit} is not a single model")
    key = {"allocate": "to", "leach": "from"}.get(action.kind)
    if key is not None and not isinstance(action.get(key) or {}, dict):
        return Ruling(False, turns.RULE_CONTROL, f"'{action.kind}': '{key}' must map models to "
                      f"amounts ({{model: N}}), got {action.get(key)!r}")
    if action.kind == "allocate":
        return turns.allocate(game, caster, dict(action.get("to") or {}), check_only=True)
    if action.kind == "upkeep":
        return turns.upkeep(game, caster, str(action.get("spell")), check_only=True)
    return turns.leach(game, caster, dict(action.get("from") or {}), check_only=True)


def _unit_acted(game: Game, unit: str) -> bool:
    return any(r.get("action") in ("melee", "ranged")
               for r in game.unit(unit).turn.get("models", {}).values())


def _legal_order(game: Game, action: Action) -> Ruling:
    order = action.get("order")
    unit = action.unit
    if order not in ("run", "charge"):
        return Ruling(False, RULE_ORDERS, f"unknown order {order!r} (run or charge)")
    if not all(game.board.profile(m).is_trooper for m in game.board.unit_models(unit)):
        return Ruling(False, RULE_ORDERS, f"{unit} is not a unit of troopers")
    records = game.unit(unit).turn.get("models", {}).values()
    if any(r["move"] or r["action"] for r in records) or game.unit(unit).turn.get("order"):
        return Ruling(False, RULE_ORDERS, "an order is given at the start of the unit's "
                      "activation")
    if game.unit(unit).status.get("fleeing"):
        return Ruling(False, "wmh2 §10", f"{unit} is fleeing: it takes no orders")
    return Ruling(True, RULE_ORDERS)


def _movable(game: Game, unit: str, model: str) -> str:
    record = model_turn(game, unit, model)
    status = game.board.model(model).status
    if record["move"]:
        return f"{model} has already used its normal movement"
    if _unit_acted(game, unit):
        return "a unit resolves all its movement before its actions"
    if status.get("knocked_down"):
        return f"{model} is knocked down: it must stand up first"
    if status.get("stationary"):
        return f"{model} is stationary"
    return ""


def _legal_move(game: Game, action: Action) -> Ruling:
    run = action.kind == "run"
    rule = "wmh2 §8.2" if run else RULE_ADVANCE
    try:
        dests = destinations(game, action)
    except (TypeError, ValueError) as exc:
        return Ruling(False, rule, str(exc))
    unit_turn = game.unit(action.unit).turn
    for m, dest in dests.items():
        why = _movable(game, action.unit, m)
        if why:
            return Ruling(False, rule, why)
        profile = game.board.profile(m)
        spd, bonus = speed(game, m), movement_bonus(game, m)
        limit = 2 * spd + bonus if run else spd + bonus
        if run:
            if profile.is_trooper and unit_turn.get("order") not in ("run", "charge") and \
                    not must_run(game, action.unit, m) and not game.unit(action.unit).status.get(
                        "fleeing"):
                return Ruling(False, RULE_ORDERS, f"{m} needs a run or charge order to run")
            if profile.is_warjack or profile.is_warbeast:
                paid = turns.pay(game, m, "run", check_only=True)
                if not paid:
                    return paid
        if must_run(game, action.unit, m):
            leader = commander_of(game.board, action.unit)
            bd = bodies(game.board, [m, leader])
            before = np.linalg.norm(bd[m].xy - bd[leader].xy)
            after = np.linalg.norm(np.asarray(dest["at"]) - bd[leader].xy)
            if after >= before:
                return Ruling(False, RULE_ACTIVATION, f"{m} is out of formation: it must move "
                              f"toward its unit commander {leader}")
        mates = tuple(x for x in dests if x != m)  # unit-mates move with it
        path = plan_path(game.board, m, [*dest.get("path", []), dest["at"]], ignore=mates)
        if path.problem:  # what a base may not pass through: the basics of movement
            return Ruling(False, RULE_BASICS, f"{m}: {path.problem}")
        if path.cost > limit + 1e-6:
            return Ruling(False, rule, f"{m} would spend {path.cost:.2f}\" of movement; it "
                          f"has {limit:g}\"" + (" (rough terrain costs double)" if path.rough
                                                else ""))
    clash = _overlapping_ends(game, dests)
    if clash:
        return Ruling(False, rule, clash)
    return Ruling(True, rule, value=dests)


def _overlapping_ends(game: Game, dests: dict[str, dict[str, Any]]) -> str:
    """Two models of the move may not end on each other's bases."""
    bd = bodies(game.board, list(dests))
    ends = [(m, np.asarray(d["at"], float), bd[m].radius) for m, d in dests.items()]
    for i, (m1, p1, r1) in enumerate(ends):
        for m2, p2, r2 in ends[i + 1:]:
            if float(np.linalg.norm(p1 - p2)) < r1 + r2 - 1e-6:
                return f"{m1} and {m2} would end on each other's bases"
    return ""


def charge_targets(game: Game, action: Action) -> dict[str, str]:
    if isinstance(action.get("targets"), dict):
        return {str(k): str(v) for k, v in action.get("targets").items()}
    model = single_model(game, action)
    target = action.get("target")
    if model is None or target is None:
        raise ValueError("charge needs a target (or targets: {model: target} for a unit)")
    return {model: str(target)}


def _legal_charge(game: Game, action: Action) -> Ruling:
    try:
        pairs = charge_targets(game, action)
    except ValueError as exc:
        return Ruling(False, RULE_CHARGE, str(exc))
    board = game.board
    for m, target in pairs.items():
        if m not in board.unit_models(action.unit):
            return Ruling(False, RULE_CHARGE, f"{m} is not a model of {action.unit}")
        if target not in board.models or not board.model(target).on_table:
            return Ruling(False, RULE_CHARGE, f"no model {target!r} on the table")
        if target == m:
            return Ruling(False, RULE_CHARGE, f"{m} cannot charge itself")
        why = _movable(game, action.unit, m)
        if why:
            return Ruling(False, RULE_CHARGE, why)
        profile = board.profile(m)
        if not profile.melee_weapons():
            return Ruling(False, RULE_CHARGE, f"{m} has no melee weapon")
        if must_run(game, action.unit, m):
            return Ruling(False, RULE_ACTIVATION, f"{m} is out of formation: it cannot charge")
        if profile.is_trooper and game.unit(action.unit).turn.get("order") != "charge":
            return Ruling(False, RULE_ORDERS, f"{m} needs a charge order to charge")
        effects = effects_of(board, m)
        penalty = can_charge([total_mod(effects, "SPD")] + [e.mods.get("SPD", 0)
                                                            for e in effects],
                             [e.mods.get("movement", 0) for e in effects])
        if not penalty:
            return penalty
        if profile.is_warjack or profile.is_warbeast:
            paid = turns.pay(game, m, "charge", check_only=True)
            if not paid:
                return paid
        sight = line_of_sight(board.world, bodies(board), m, target, clouds_of(board))
        if not sight.visible:
            return Ruling(False, sight.rule, f"{m} must see its charge target: {sight.reason}")
    return Ruling(True, RULE_CHARGE, value=pairs)


def _legal_stand(game: Game, action: Action) -> Ruling:
    model = single_model(game, action)
    if model is None or not game.board.model(model).status.get("knocked_down"):
        return Ruling(False, "wmh2 §8.5", f"{action.unit} is not knocked down")
    if model_turn(game, action.unit, model)["move"]:
        return Ruling(False, "wmh2 §8.5", "standing up forfeits the normal movement")
    return Ruling(True, "wmh2 §8.5")


def _legal_heal(game: Game, action: Action) -> Ruling:
    model = single_model(game, action)
    target = str(action.get("target", model))
    amount = action.get("amount", 1)
    board = game.board
    if not isinstance(amount, int) or amount < 1:
        return Ruling(False, turns.RULE_FURY, f"heal needs a whole amount, got {amount!r}")
    if model is None or board.profile(model).type != "warlock":
        return Ruling(False, turns.RULE_FURY, f"{action.unit} is not a warlock")
    if int(board.model(model).status.get("fury", 0)) < amount:
        return Ruling(False, turns.RULE_FURY, f"{model} has too little fury to heal {amount}")
    if target != model and not (target in board.models and turns.in_control_area(
            game, model, target)):
        return Ruling(False, turns.RULE_FURY, f"{target} is not in {model}'s control area")
    return Ruling(True, turns.RULE_FURY)


def _legal_end(game: Game, action: Action) -> Ruling:
    if active_unit(game) != action.unit:
        return Ruling(False, RULE_ACTIVATION, f"{action.unit} is not activating")
    return Ruling(True, RULE_ACTIVATION)
