"""The MK II player turn outside activations (wmh2 §2, §10, §12): start-of-turn expiry,
Maintenance (focus removed, continuous effects, warlocks' excess fury, rallying), Control
(focus replenished and allocated, fury leached, upkeep, threshold checks and frenzy), and the
bookkeeping every phase needs: paying focus or forcing warbeasts, command checks, massive
casualties, victory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling

from .bodies import bodies
from .damage import apply_damage, crippled
from .rules import MAX_FOCUS_ON_JACK, TOL, command_immune, gap

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_MAINT = "wmh2 §2.3"
RULE_CONTROL = "wmh2 §2.4"
RULE_FOCUS = "wmh2 §2.6"
RULE_FURY = "wmh2 §12"
RULE_CONTINUOUS = "wmh2 §2.3 (continuous effects)"
RULE_MASSIVE = "wmh2 §10 (massive casualties)"
RULE_VICTORY = "wmh2 §13"
FIRE_POW = 12


def models_of(game: Game, player: int) -> list[str]:
    board = game.board
    return [m for m, s in board.models.items() if s.alive and s.on_table and s.player == player]


def in_control_area(game: Game, leader: str, model: str) -> bool:
    """Within the leader's control area, 2 x FOC or 2 x FURY (wmh2 §3)."""
    board = game.board
    if not board.model(leader).alive or not board.model(model).on_table:
        return False
    bd = bodies(board, [leader, model])
    a, b = bd[leader], bd[model]
    return gap(a.xy, a.radius, b.xy, b.radius) <= board.profile(leader).control_range + TOL


# ---- focus and fury (wmh2 §2.6, §12) ---------------------------------------------------------


def pay(game: Game, model: str, why: str, *, check_only: bool = False) -> Ruling:
    """Pay one focus (warjack, warcaster), one fury (warlock) or force a warbeast (+1 fury,
    only in its warlock's control area and below its FURY)."""
    board = game.board
    profile = board.profile(model)
    status = board.model(model).status
    if profile.is_warbeast:
        fury, cap = int(status.get("fury", 0)), profile.stat("FURY")
        leader = profile.controller
        if status.get("frenzied"):
            return Ruling(False, RULE_FURY, f"{model} is frenzied and cannot be forced")
        if not leader or not in_control_area(game, leader, model):
            return Ruling(False, RULE_FURY, f"{model} is not in its warlock's control area: "
                          f"it cannot be forced to {why}")
        if fury >= cap:
            return Ruling(False, RULE_FURY, f"{model} already has {fury} fury (FURY {cap})")
        if not check_only:
            status["fury"] = fury + 1
        return Ruling(True, RULE_FURY)
    key = "fury" if profile.type == "warlock" else "focus"
    if profile.type not in ("warjack", "warcaster", "warlock"):
        return Ruling(False, RULE_FOCUS, f"{model} has no focus or fury to {why}")
    have = int(status.get(key, 0))
    if have < 1:
        return Ruling(False, RULE_FOCUS, f"{model} has no {key} left to {why}")
    if not check_only:
        status[key] = have - 1
    return Ruling(True, RULE_FOCUS)


def start_game(game: Game) -> None:
    """Warcasters begin with focus = FOC, warlocks with fury = FURY, warbeasts with none
    (wmh2 §13, §12); turn-start unit sizes for massive casualties."""
    board = game.board
    for _m, state in board.models.items():
        p = state.profile
        if p.type == "warcaster":
            state.status["focus"] = p.stat("FOC")
        elif p.type == "warlock":
            state.status["fury"] = p.stat("FURY")
        elif p.type in ("warjack", "warbeast"):
            state.status.setdefault("focus" if p.is_warjack else "fury", 0)
    game_casters = {p: [m for m in models_of(game, p) if board.profile(m).is_caster]
                    for p in game.turn_order}
    for state in game.units.values():
        state.status["had_casters"] = bool(game_casters.get(state.player))


def turn_start(game: Game) -> None:
    """Effects lasting one round end at the start of their creator's next turn (wmh2 §2.1);
    every unit's size is noted for massive casualties (wmh2 §10)."""
    board = game.board
    for _m, state in board.models.items():
        effects = state.status.get("effects") or []
        kept = [e for e in effects if not (e.get("rounds") == 1 and e.get("player") ==
                                           game.active_player)]
        if len(kept) != len(effects):
            state.status["effects"] = kept
        if state.status.get("stationary_until") == game.active_player:
            state.status.pop("stationary", None)
            state.status.pop("stationary_until", None)
        if state.status.get("lost_incorporeal") == game.active_player:
            state.status.pop("lost_incorporeal", None)
        if state.player == game.active_player:
            state.status.pop("frenzied", None)
    for unit, ustate in game.units.items():
        ustate.status["turn_start_models"] = len(board.unit_models(unit))
        ustate.status.pop("casualty_checked", None)


def maintenance(game: Game) -> None:
    """Remove all focus, resolve continuous effects (expire on 1-2, else fire POW 12 or one
    corrosion damage point, all together), trim warlocks' fury, rally fleeing units."""
    board = game.board
    player = game.active_player
    damage: list[tuple[str, int, str]] = []
    for m in models_of(game, player):
        state = board.model(m)
        if "focus" in state.status and state.status["focus"]:
            game.emit("focus_removed", state.unit, model=m, focus=state.status["focus"],
                      rule=RULE_MAINT)
            state.status["focus"] = 0
        kept = []
        for effect in state.status.get("continuous") or []:
            roll = game.roller.one(f"{m} {effect} expiry")
            if roll <= 2:
                game.emit("continuous_expires", state.unit, model=m, effect=effect, roll=roll,
                          rule=RULE_CONTINUOUS)
                continue
            kept.append(effect)
            if effect == "fire":
                dice = game.roller.d6(2, f"{m} fire damage roll (POW 12)")
                arm = state.profile.stat("ARM")
                damage.append((m, max(0, sum(dice) + FIRE_POW - arm), "fire"))
            elif effect == "corrosion":
                damage.append((m, 1, "corrosion"))
        state.status["continuous"] = kept
        p = state.profile
        if p.type == "warlock" and state.status.get("fury", 0) > p.stat("FURY"):
            state.status["fury"] = p.stat("FURY")
    for m, points, effect in damage:
        if board.model(m).alive:
            start = game.roller.one(f"{m} damage column") if _tracked(game, m) else None
            marked = apply_damage(board, m, points, start)
            game.emit("continuous_damage", board.unit_of(m), model=m, effect=effect,
                      damage=marked.to_dict(), rule=RULE_CONTINUOUS)
            after_removal(game, m, marked.destroyed)
    for unit, ustate in game.units.items():
        if ustate.player == player and ustate.status.get("fleeing") and board.unit_models(unit):
            result = command_check(game, unit, "rally")
            if result["passed"]:
                ustate.status.pop("fleeing", None)


def _tracked(game: Game, model: str) -> bool:
    p = game.board.profile(model)
    return bool(p.grid or p.spiral)


def control_start(game: Game) -> None:
    """Warcasters replenish focus to their current FOC (wmh2 §2.4 step 1)."""
    board = game.board
    for m in models_of(game, game.active_player):
        p = board.profile(m)
        if p.type == "warcaster":
            board.model(m).status["focus"] = p.stat("FOC")
            game.emit("focus", board.unit_of(m), model=m, focus=p.stat("FOC"), rule=RULE_CONTROL)
        if p.is_warjack and "cortex" in crippled(board, m):
            board.model(m).status["focus"] = 0


def allocate(game: Game, caster: str, to: dict[str, Any], *, check_only: bool = False
             ) -> Ruling:
    """Give focus to warjacks of the caster's battlegroup in its control area, at most 3 on
    each; a crippled cortex takes none (wmh2 §2.4)."""
    board = game.board
    if board.profile(caster).type != "warcaster":
        return Ruling(False, RULE_CONTROL, f"{caster} is not a warcaster")
    total = 0
    for jack, n in to.items():
        if jack not in board.models or not board.model(jack).alive:
            return Ruling(False, RULE_CONTROL, f"no warjack {jack!r} on the table")
        p = board.profile(jack)
        if not p.is_warjack or p.controller != caster:
            return Ruling(False, RULE_CONTROL, f"{jack} is not in {caster}'s battlegroup")
        if not in_control_area(game, caster, jack):
            return Ruling(False, RULE_CONTROL, f"{jack} is outside {caster}'s control area "
                          f"({board.profile(caster).control_range:g}\")")
        if "cortex" in crippled(board, jack):
            return Ruling(False, RULE_CONTROL, f"{jack}'s cortex is crippled")
        have = int(board.model(jack).status.get("focus", 0))
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return Ruling(False, RULE_CONTROL, f"focus for {jack} must be a whole number of 0 "
                          f"or more, got {n!r}")
        if have + n > MAX_FOCUS_ON_JACK:
            return Ruling(False, RULE_CONTROL, f"{jack} would hold {have + n} focus; a warjack "
                          f"holds at most {MAX_FOCUS_ON_JACK}")
        total += n
    if total > int(board.model(caster).status.get("focus", 0)):
        return Ruling(False, RULE_CONTROL, f"{caster} has only "
                      f"{board.model(caster).status.get('focus', 0)} focus")
    if not check_only:
        board.model(caster).status["focus"] -= total
        for jack, n in to.items():
            board.model(jack).status["focus"] = int(board.model(jack).status.get("focus", 0)) + n
    return Ruling(True, RULE_CONTROL)


def leach(game: Game, warlock: str, source: dict[str, int], *, check_only: bool = False
          ) -> Ruling:
    """A warlock takes fury from warbeasts of its battlegroup in its control area, up to its
    FURY (wmh2 §12)."""
    board = game.board
    p = board.profile(warlock)
    if p.type != "warlock":
        return Ruling(False, RULE_FURY, f"{warlock} is not a warlock")
    for beast, n in source.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return Ruling(False, RULE_FURY, f"fury from {beast} must be a whole number of 0 or "
                          f"more, got {n!r}")
    have = int(board.model(warlock).status.get("fury", 0))
    total = sum(int(n) for n in source.values())
    if have + total > p.stat("FURY"):
        return Ruling(False, RULE_FURY, f"{warlock} would hold {have + total} fury (FURY "
                      f"{p.stat('FURY')})")
    for beast, n in source.items():
        bp = board.profile(beast) if beast in board.models else None
        if bp is None or not bp.is_warbeast or bp.controller != warlock:
            return Ruling(False, RULE_FURY, f"{beast} is not in {warlock}'s battlegroup")
        if not in_control_area(game, warlock, beast):
            return Ruling(False, RULE_FURY, f"{beast} is outside {warlock}'s control area")
        if int(board.model(beast).status.get("fury", 0)) < int(n):
            return Ruling(False, RULE_FURY, f"{beast} has fewer than {n} fury")
    if not check_only:
        for beast, n in source.items():
            board.model(beast).status["fury"] -= int(n)
        board.model(warlock).status["fury"] = have + total
    return Ruling(True, RULE_FURY)


# ---- command (wmh2 §10) ----------------------------------------------------------------------


def command_check(game: Game, unit: str, why: str) -> dict[str, Any]:
    """2d6 <= CMD (the commander's, or a Commander's in range); Constructs pass automatically;
    Fearless and Undead models never flee. A failed check makes the unit flee."""
    board = game.board
    models = board.unit_models(unit)
    profiles = [board.profile(m) for m in models]
    immune = next((command_immune(p.keywords) for p in profiles if command_immune(p.keywords)),
                  None)
    result: dict[str, Any] = {"why": why, "rule": "wmh2 §10"}
    if immune == "construct":
        result.update(passed=True, auto="Construct: passes automatically")
    else:
        cmd = max((p.stat("CMD") for p in profiles), default=0)
        cmd = max([cmd] + [board.profile(c).stat("CMD") for c in _commanders_near(game, unit)])
        dice = game.roller.d6(2, f"{unit} command check ({why})")
        passed = sum(dice) <= cmd or (immune is not None and why != "rally")
        result.update(passed=passed, dice=dice, cmd=cmd)
        if immune and sum(dice) > cmd:
            result["auto"] = f"{immune}: never flees"
    if not result["passed"] and why != "rally":
        game.unit(unit).status["fleeing"] = True
    game.emit("command_check", unit, **result)
    return result


def _commanders_near(game: Game, unit: str) -> list[str]:
    """Friendly Commanders whose command range (CMD inches) reaches a model of the unit."""
    board = game.board
    player = board.unit_player(unit)
    out = []
    members = set(board.unit_models(unit))
    bd = bodies(board)
    for m in models_of(game, player):
        p = board.profile(m)
        if m in members or not p.has("commander"):
            continue
        if any(gap(bd[m].xy, bd[m].radius, bd[x].xy, bd[x].radius) <= p.stat("CMD") + TOL
               for x in members):
            out.append(m)
    return out


def after_removal(game: Game, model: str, destroyed: bool) -> None:
    """Massive casualties (a unit that has lost half or more of its turn-start models checks,
    wmh2 §10; the seed lists the rule by name only, the reading is the edition's 50% or more)
    and victory (the last warcaster or warlock of a side destroyed, wmh2 §13)."""
    if not destroyed:
        return
    board = game.board
    unit = board.unit_of(model)
    ustate = game.unit(unit)
    left = len(board.unit_models(unit))
    start = int(ustate.status.get("turn_start_models", ustate.starting_models))
    if left and start > 1 and left * 2 <= start and not ustate.status.get("casualty_checked"):
        ustate.status["casualty_checked"] = True
        command_check(game, unit, "massive casualties")
    _victory(game)


def _victory(game: Game) -> None:
    board = game.board
    alive = {p: [m for m in models_of(game, p) if board.profile(m).is_caster]
             for p in game.turn_order}
    had = {p: any(game.unit(u).status.get("had_casters") for u in board.units_of(p))
           for p in game.turn_order}
    lost = [p for p in game.turn_order if had[p] and not alive[p]]
    left = [p for p in game.turn_order if p not in lost]
    if lost and len(left) == 1:
        game.end("every enemy warcaster and warlock destroyed", winner=left[0])


# ---- upkeep (wmh2 §2.4 step 2) ---------------------------------------------------------------


def _upkept(game: Game, caster: str) -> list[tuple[str, dict[str, Any]]]:
    """(model, effect) pairs of upkeep spells this caster keeps in play."""
    return [(m, e) for m, s in game.board.models.items() if s.alive
            for e in s.status.get("effects") or [] if e.get("upkeep") == caster]


def upkeep(game: Game, caster: str, name: str, *, check_only: bool = False) -> Ruling:
    """Pay 1 focus (a warlock: 1 fury) to keep an upkeep spell (wmh2 §2.4, §2.6)."""
    spells = [e for _, e in _upkept(game, caster) if e.get("name") == name]
    if not spells:
        return Ruling(False, RULE_CONTROL, f"{caster} upkeeps no spell {name!r}")
    paid = game.unit(game.board.unit_of(caster)).turn.setdefault("upkept", [])
    if name in paid:
        return Ruling(False, RULE_CONTROL, f"{name} is already paid this turn")
    ruling = pay(game, caster, f"upkeep {name}", check_only=check_only)
    if ruling and not check_only:
        paid.append(name)
    return ruling


def expire_upkeep(game: Game) -> None:
    """End of the Control Phase: an upkeep spell that was not paid expires now."""
    board = game.board
    for caster in models_of(game, game.active_player):
        if not board.profile(caster).is_caster:
            continue
        paid = game.unit(board.unit_of(caster)).turn.get("upkept", [])
        for model, effect in _upkept(game, caster):
            if effect.get("name") not in paid:
                board.model(model).status["effects"].remove(effect)
                game.emit("upkeep_expires", board.unit_of(caster), caster=caster, model=model,
                          effect=effect.get("name"), rule=RULE_CONTROL)
