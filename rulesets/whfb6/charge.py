"""WHFB 6th charges (whfb6 §2 2-1, 2-4, §7): declaring, charge reactions (Hold, Stand & Shoot,
Flee), moving chargers 2 x M with one wheel into contact, failed charges, panic tests.

A charger lines up with the attacked edge of the target's block (front, flank or rear, by
where the charger's centre is relative to the target's facings); the move is priced as one
wheel plus the straight distance of its front centre (`movement.move_cost`). A declared
charge is not measured first (no pre-measuring): out of reach it fails and the unit moves M.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.lines import length_inside
from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import game_state, slay, turn_key

from . import formation as fm
from . import movement as mv
from . import shooting, sight, tables

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_DECLARE = "whfb6 §2"
RULE_REACT = "whfb6 §7"
RULE_CHARGE = "whfb6 §7"
RULE_PANIC = "whfb6 §11"
REACTIONS = ("hold", "stand_and_shoot", "flee")


def charges(game: Game) -> dict[str, dict[str, Any]]:
    """This player turn's declared charges: {charger: {target, distance, side, reaction}}."""
    state = game_state(game)
    if state.get("charges_turn") != turn_key(game):
        state["charges_turn"] = turn_key(game)
        state["charges"] = {}
    return state["charges"]


def ld_of(game: Game, unit: str) -> int:
    return max(int(game.board.profile(m).stat("Ld", 7) or 7) for m in game.board.unit_models(unit))


def immune(game: Game, unit: str) -> bool:
    return any(game.board.profile(m).has(r) for m in game.board.unit_models(unit)
               for r in ("immune to psychology", "unbreakable"))


def panic_test(game: Game, unit: str, why: str, source: np.ndarray) -> bool:
    """A panic test (2D6 <= Ld), at most one per unit per phase; failing, the unit flees
    (whfb6 §11). Immune to Psychology and Unbreakable units never test."""
    if not game.board.unit_models(unit) or game.unit(unit).status.get("fleeing"):
        return True
    seen = game_state(game).setdefault("panicked", set())
    key = (game.game_turn, game.active_player, game.phase.name, unit)
    if key in seen or immune(game, unit):
        return True
    seen.add(key)
    ld = ld_of(game, unit)
    dice = game.roller.d6(2, f"{unit} panic test (Ld {ld})")
    passed = tables.leadership_passes(sum(dice), ld)
    game.emit("panic", unit, passed=passed, ld=ld, reason=why, rule=RULE_PANIC)
    if not passed:
        mv.flee(game, unit, source, "failed panic test")
    return passed


def declare_ruling(game: Game, unit: str, target: Any) -> Ruling:
    board = game.board
    if not target or target not in game.units or not board.unit_models(target):
        return Ruling(False, RULE_DECLARE, f"charge needs an enemy unit on the table, got "
                      f"{target!r}")
    if board.unit_player(target) == board.unit_player(unit):
        return Ruling(False, RULE_DECLARE, "cannot charge a friendly unit")
    state = game.unit(unit)
    for flag, why in (("fleeing", "it is fleeing"), ("engaged", "it is in close combat")):
        if state.status.get(flag):
            return Ruling(False, RULE_DECLARE, f"{unit} cannot charge: {why}")
    if unit in charges(game):
        return Ruling(False, RULE_DECLARE, f"{unit} has already declared a charge")
    viewers = fm.order(game, unit)
    form = fm.formation(game, unit)
    if form is not None:
        viewers = viewers[: form.files]
    all_round = board.profile(viewers[0]).skirmisher
    if not sight.unit_sees(board, viewers, target, all_round=all_round):
        return Ruling(False, "whfb6 §4.1", f"no model of {unit} can see {target} in its arc")
    return Ruling(True, RULE_DECLARE, geometry={"distance": mv.unit_gap(game, unit, target)})


def declare(game: Game, unit: str, target: str) -> None:
    board = game.board
    dist = mv.unit_gap(game, unit, target)
    t_form = fm.formation(game, target)
    here = mv.centre(game, unit)
    side = "front" if t_form is None else fm.side_attacked(
        t_form, len(board.unit_models(target)), (float(here[0]), float(here[1])))
    charges(game)[unit] = {"target": target, "distance": round(dist, 3), "side": side,
                           "reaction": None}
    game.unit(unit).turn["declared"] = target
    game.emit("declare_charge", unit, target=target, distance=round(dist, 3), side=side,
              reach=tables.charge_reach(mv.unit_m(game, unit)), rule=RULE_DECLARE)
    t_state = game.unit(target)
    if t_state.status.get("engaged") and side != "front":
        panic_test(game, target, f"charged in the {side} while in combat", here)
    if t_state.status.get("fleeing"):
        charges(game)[unit]["reaction"] = "flee"
        mv.flee(game, target, here, "charged while fleeing")


def chargers_of(game: Game, target: str) -> list[str]:
    return [c for c, d in charges(game).items() if d["target"] == target]


def react_ruling(game: Game, unit: str, reaction: Any) -> Ruling:
    who = chargers_of(game, unit)
    if not who:
        return Ruling(False, RULE_REACT, f"{unit} has not been charged this turn")
    if any(charges(game)[c]["reaction"] for c in who):
        return Ruling(False, RULE_REACT, f"{unit} has already reacted")
    if reaction not in REACTIONS:
        return Ruling(False, RULE_REACT, f"reaction must be one of {', '.join(REACTIONS)}")
    status = game.unit(unit).status
    if reaction == "flee" and immune(game, unit):
        return Ruling(False, "whfb6 §11", f"{unit} is Immune to Psychology or Unbreakable: "
                      "it cannot flee")
    if reaction == "stand_and_shoot":
        if status.get("engaged"):
            return Ruling(False, RULE_REACT, f"{unit} is in close combat")
        if not any(shooting.pick_weapon(game.board.profile(m), None)
                   for m in game.board.unit_models(unit)):
            return Ruling(False, RULE_REACT, f"{unit} has no missile weapons")
        for c in who:
            d, m = charges(game)[c]["distance"], mv.unit_m(game, c)
            if not tables.stand_and_shoot_allowed(d, m):
                return Ruling(False, RULE_REACT, f"{c} declared from {d:.2f}\", not more than "
                              f"half its charge ({tables.charge_reach(m):g}\"): no Stand & "
                              "Shoot")
    return Ruling(True, RULE_REACT)


def react(game: Game, unit: str, reaction: str) -> None:
    who = chargers_of(game, unit)
    for c in who:
        charges(game)[c]["reaction"] = reaction
    game.emit("react", unit, reaction=reaction, chargers=who, rule=RULE_REACT)
    if reaction == "flee":
        mv.flee(game, unit, mv.centre(game, who[0]), "flee as a charge reaction")
    elif reaction == "stand_and_shoot":
        stand_and_shoot(game, unit, who[0])


def stand_and_shoot(game: Game, unit: str, charger: str) -> None:
    """The charged unit shoots at the charger, +1 to the score needed (whfb6 §8.2)."""
    ctx = shooting.ShotContext(charging=True, shooters=fm.order(game, unit),
                               files=_files(game, unit))
    report = shooting.analyse(game.board, unit, charger, ctx)
    if not report.eligible:
        game.emit("stand_and_shoot", unit, target=charger, fired=False, reason=report.reason)
        return
    before = len(game.board.unit_models(charger))
    outcome = shooting.resolve(game.board, report, game.roller)
    lost = remove_casualties(game, charger, outcome["unsaved"])
    game.emit("stand_and_shoot", unit, target=charger, fired=True, outcome=outcome,
              slain=lost, cover=report.cover.to_dict(), rule=RULE_REACT)
    if tables.shooting_panic(before, len(lost)) and game.board.unit_models(charger):
        panic_test(game, charger, f"lost {len(lost)} of {before} to Stand & Shoot",
                   mv.centre(game, unit))


def _files(game: Game, unit: str) -> int | None:
    form = fm.formation(game, unit)
    return form.files if form else None


def remove_casualties(game: Game, unit: str, wounds: int) -> list[str]:
    """Unsaved wounds: wounded models first, then whole models from the rear (§8.5)."""
    board = game.board
    order = fm.order(game, unit)
    roles = {m: board.profile(m).role for m in order}
    slain: list[str] = []
    for m in fm.casualties(order, len(order), roles):
        if wounds <= 0:
            break
        left = board.model(m).wounds
        take = min(left, wounds)
        wounds -= take
        if take >= left:
            slain.append(m)
        else:
            board.set_wounds(m, left - take)
    slay(game, slain)
    form = fm.formation(game, unit)
    if form is not None and board.unit_models(unit):
        fm.set_formation(game, unit, form)
    return slain


def charge_move(game: Game, unit: str) -> dict[str, Any]:
    """Move a charger into contact (2 x M, one wheel), or fail and move M (whfb6 §7)."""
    board = game.board
    info = charges(game)[unit]
    target = info["target"]
    reach = tables.charge_reach(mv.unit_m(game, unit))
    out: dict[str, Any] = {"target": target, "reach": reach, "side": info["side"]}
    if not board.unit_models(target):
        out.update(success=False, reason="the target is gone")
    elif game.unit(target).status.get("fleeing"):
        gap = mv.unit_gap(game, unit, target)
        caught = gap <= reach + 1e-9
        out.update(success=False, needed=round(gap, 3), caught_fleeing=caught)
        if caught:
            slay(game, board.unit_models(target))
            out["reason"] = "the fleeing target was within reach: destroyed (whfb6 §7)"
    else:
        plan = _contact_plan(game, unit, target, info["side"])
        out.update(needed=round(plan["cost"], 3), success=plan["cost"] <= reach + 1e-6)
        if out["success"]:
            out["moves"] = _place(game, unit, target, plan)
            _engage(game, unit, target, info["side"])
    if not out["success"] and not out.get("caught_fleeing") and board.unit_models(target):
        out["moves"] = _failed(game, unit, target)
        game.unit(unit).turn["failed_charge"] = True
    game.unit(unit).turn["charge_moved"] = True
    game.emit("charge", unit, rule=RULE_CHARGE, **out)
    return out


def _contact_plan(game: Game, unit: str, target: str, side: str) -> dict[str, Any]:
    board = game.board
    c_form, t_form = fm.formation(game, unit), fm.formation(game, target)
    if c_form is None or t_form is None:
        gap = mv.unit_gap(game, unit, target)
        return {"cost": gap, "loose": True}
    n_t = len(board.unit_models(target))
    edge, look = fm.contact_edge(t_form, n_t, side, tuple(mv.centre(game, unit)))
    along = np.array([look[1], -look[0]])
    length = t_form.frontage if side in ("front", "rear") else t_form.ranks(n_t) * t_form.depth
    room = max(0.0, (length - c_form.frontage) / 2.0)
    shift = float(np.clip(np.dot(np.asarray(c_form.front) - edge, along), -room, room))
    front = edge + along * shift
    facing = fm.facing_of(look)
    front_t = (float(front[0]), float(front[1]))
    return {"cost": mv.move_cost(c_form, front_t, facing), "front": front_t, "facing": facing}


def _place(game: Game, unit: str, target: str, plan: dict[str, Any]) -> list[dict]:
    if plan.get("loose"):
        return _loose_contact(game, unit, target)
    form = fm.formation(game, unit)
    new = fm.Formation(plan["front"], plan["facing"], form.files, form.width, form.depth)
    return mv.move_block(game, unit, new)


def _loose_contact(game: Game, unit: str, target: str) -> list[dict]:
    board = game.board
    pairs = [(a, b) for a in board.unit_models(unit) for b in board.unit_models(target)]
    a, b = min(pairs, key=lambda p: sight.gap(board, *p))
    d = np.subtract(board.outline(b).center, board.outline(a).center)
    g = sight.gap(board, a, b)
    n = float(np.linalg.norm(d)) or 1.0
    return mv.move_loose(game, unit, (float(d[0] / n * g), float(d[1] / n * g)))


def _failed(game: Game, unit: str, target: str) -> list[dict]:
    """A failed charge: the unit moves its normal M straight towards the target."""
    m = mv.unit_m(game, unit)
    here, there = mv.centre(game, unit), mv.centre(game, target)
    d = there - here
    dist = min(float(m), max(0.0, mv.unit_gap(game, unit, target) - mv.KEEP_AWAY))
    u = d / (np.linalg.norm(d) or 1.0)
    form = fm.formation(game, unit)
    if form is None:
        return mv.move_loose(game, unit, (float(u[0] * dist), float(u[1] * dist)))
    front = np.asarray(form.front) + u * dist
    new = fm.Formation((float(front[0]), float(front[1])), form.facing, form.files,
                       form.width, form.depth)
    return mv.move_block(game, unit, new)


def _engage(game: Game, unit: str, target: str, side: str) -> None:
    for a, b in ((unit, target), (target, unit)):
        st = game.unit(a).status
        st["engaged"] = sorted(set(st.get("engaged") or []) | {b})
        st.setdefault("combat_round", 0)
    game.unit(unit).status["charged"] = turn_key(game)
    game.unit(unit).status.setdefault("attacks_side", {})[target] = side
    if _behind_obstacle(game, unit, target):
        game.unit(target).status["defended"] = True


def _behind_obstacle(game: Game, charger: str, target: str) -> bool:
    """Whether the target stands directly behind an obstacle the charger crosses (§5.2)."""
    board = game.board
    here, there = mv.centre(game, charger), mv.centre(game, target)
    for e in board.world.terrain.values():
        foot = np.asarray(e.geometry.footprint, float)
        if not sight.is_obstacle(e) or len(foot) < 3:
            continue
        if length_inside(np.asarray([here]), np.asarray([there]), foot)[0] > 0 and any(
                sight.near_piece(board.outline(m), foot, sight.OBSTACLE_ADJACENT)
                for m in board.unit_models(target)):
            return True
    return False
