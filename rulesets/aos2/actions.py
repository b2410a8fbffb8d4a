"""AoS 2nd actions through the phase engine (aos2 §2.3): legality with reasons, resolution.

Hero: `cast` {unit, spell, target, model?}; the opponent's `unbind` {unit}. Movement: `move`
{unit, to | by, run?, retreat?, at_the_double?: hero}; `garrison` {unit, feature};
`leave_garrison` {unit, to}. Shooting: `shoot` {unit, target}. Charge: `charge` {unit,
target? | targets?: [units], forward_to_victory?: hero}: without a target the charge is made
against the first of `targets` (else the nearest enemy unit) that the 2D6 reaches. The round's
first action may be the priority winner's `priority` {first: player} (`choices.py`).
Combat: `fight` {unit, target?}, players alternating; eligible units that have not fought
fight at the end of the phase. Battleshock: `inspiring_presence`
{unit, hero}; `battleshock` {unit}; untested units test at the end of the phase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import (
    dispatch_legal,
    game_state,
    opponent,
    settle_spell,
    turn_key,
)

from . import attacks, choices, cover, moves, rules, turn

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_SEQUENCE = "aos2 §2.3"
RULE_GARRISON = "aos2 §6.4"


def garrisons(game: Game) -> dict[str, str]:
    """The garrisons now: the board's (`Board.inside`), which the verdict reads too."""
    return dict(game.board.inside)


def start_game(game: Game) -> None:
    for unit, feature in game.board.inside.items():  # the scene's garrisons
        for m in game.board.unit_models(unit):
            game.board.take_off(m)
        game.unit(unit).status["garrison"] = feature
    chooser = turn.roll_priority(game)
    choices.open_choice(game, chooser, chooser)


def phase_start(game: Game) -> None:
    if game.phase.name == "hero":
        expired = []
        for state in game.units.values():
            if state.status.get("mystic_shield") == game.active_player:
                state.status.pop("mystic_shield")
                expired.append(state.id)
        turn.add_cp(game, game.active_player, 1)
        choices.note_turn_start(game, expired, game.active_player)
        game.emit("command_points", gained=1, total=turn.cp(game, game.active_player),
                  rule=turn.RULE_CP)
    if game.phase.name == "combat":
        game_state(game)["picker"] = game.active_player


def phase_end(game: Game) -> None:
    settle_spell(game)
    choices.close(game)
    if game.phase.name == "combat":
        while True:
            left = [u for p in (game.active_player, opponent(game)) for u in _eligible(game, p)]
            if not left:
                break
            _do_fight(game, left[0], None)
    if game.phase.name == "battleshock":
        turn.battleshock_phase(game)
        turn.remove_split_units(game)


def game_turn_end(game: Game) -> None:
    if game.game_turn >= game.ruleset.game_turns:
        game.end("fifth battle round played")
        return
    chooser = turn.roll_priority(game)
    choices.open_choice(game, chooser, chooser)


def legal(game: Game, action: Action) -> Ruling:
    return dispatch_legal(game, action, _LEGAL, RULE_SEQUENCE,
                          {"unbind": "reactive", "fight": "either", "battleshock": "either",
                           "priority": "none", "inspiring_presence": "either"})


# ---- movement ------------------------------------------------------------------------------


def _legal_move(game: Game, action: Action) -> Ruling:
    st = game.unit(action.unit)
    if st.turn.get("moved") or st.status.get("garrison"):
        return Ruling(False, moves.RULE_MOVE, f"{action.unit} has already moved this phase "
                      "or is a garrison (it leaves with leave_garrison)")
    near = bool(attacks.engaged_with(game.board, action.unit, garrisons(game)))
    retreat = bool(action.get("retreat"))
    if near and not retreat:
        return Ruling(False, moves.RULE_NORMAL, f"{action.unit} starts within 3\" of an enemy: "
                      "it may only stay or retreat")
    if retreat and not near:
        return Ruling(False, moves.RULE_NORMAL, f"{action.unit} is not within 3\" of an enemy")
    limit = float(min(game.board.profile(m).move for m in game.board.unit_models(action.unit)))
    if action.get("run"):  # a retreat may also be a run: nothing in §7.2 forbids it
        hero = action.get("at_the_double")
        if hero:
            ok = turn.hero_aura(game, action.unit, hero)
            if not ok:
                return ok
        limit += 6
    try:
        dests = moves.parse(game.board, action.unit, action.params)
    except (ValueError, TypeError) as exc:
        return Ruling(False, moves.RULE_MOVE, str(exc))
    kind = "retreat" if retreat else ("run" if action.get("run") else "normal")
    return moves.check(game.board, action.unit, dests, limit, kind)


def _do_move(game: Game, action: Action) -> None:
    board, unit = game.board, action.unit
    st = game.unit(unit)
    limit = float(min(board.profile(m).move for m in board.unit_models(unit)))
    roll = None
    if action.get("run"):
        hero = action.get("at_the_double")
        roll = 6 if hero else game.roller.one(f"{unit} run roll")
        if hero:
            turn.spend_cp(game, st.player, "at the double", unit)
        limit = rules.run_distance(int(limit), roll, bool(hero))
    fly = moves.flies(board, unit)
    dests = {m: moves.truncate(board, m, d, limit, fly)
             for m, d in moves.parse(board, unit, action.params).items()}
    moved = moves.apply(board, dests)
    st.turn.update(moved=True, ran=bool(action.get("run")), retreated=bool(action.get("retreat")))
    game.emit("move", unit, run=roll, limit=limit, retreat=bool(action.get("retreat")),
              moves=moved, rule=moves.RULE_NORMAL)
    turn.deadly(game, unit)


def _legal_garrison(game: Game, action: Action) -> Ruling:
    board, unit = game.board, action.unit
    piece = action.get("feature")
    if piece not in board.world.terrain or not board.world.terrain[piece].data.get("garrison"):
        return Ruling(False, RULE_GARRISON, f"{piece!r} is not a feature that can be garrisoned")
    if game.unit(unit).turn.get("moved") or game.unit(unit).status.get("garrison"):
        return Ruling(False, RULE_GARRISON, f"{unit} has moved or is already a garrison")
    far = [m for m in board.unit_models(unit) if cover.feature_gap(board, m, piece) > 6.0 + 1e-9]
    if far:
        return Ruling(False, RULE_GARRISON, f"{far[0]} is more than 6\" from {piece}")
    enemy = [m for m in moves.enemy_models(board, unit)
             if cover.feature_gap(board, m, piece) <= rules.ENGAGE + 1e-9]
    held = [u for u, p in garrisons(game).items() if p == piece]
    if enemy or any(board.unit_player(u) != board.unit_player(unit) for u in held):
        return Ruling(False, RULE_GARRISON, f"enemy models or an enemy garrison within 3\" of "
                      f"{piece}")
    return Ruling(True, RULE_GARRISON)


def _do_garrison(game: Game, action: Action) -> None:
    for m in game.board.unit_models(action.unit):
        game.board.take_off(m)
    st = game.unit(action.unit)
    st.status["garrison"] = action.get("feature")
    game.board.inside[action.unit] = action.get("feature")
    st.turn["moved"] = True
    game.emit("garrison", action.unit, feature=action.get("feature"), rule=RULE_GARRISON)


def _legal_leave(game: Game, action: Action) -> Ruling:
    board, st = game.board, game.unit(action.unit)
    piece = st.status.get("garrison")
    if not piece:
        return Ruling(False, RULE_GARRISON, f"{action.unit} is not a garrison")
    to = action.get("to") or {}
    models = board.unit_models(action.unit, on_table=False)
    if set(to) != set(models):
        return Ruling(False, RULE_GARRISON, "set up every model: to: {model: [x, y]}")
    foot = cover.footprint(board, piece)
    for m, at in to.items():
        o = board.outline(m)
        here = type(o)((float(at[0]), float(at[1])), 0.0, o.height, o.radii)
        if cover.gap_to_piece(here, foot) > 6.0 + 1e-9:
            return Ruling(False, RULE_GARRISON, f"{m} would be more than 6\" from {piece}")
        for e in moves.enemy_models(board, action.unit):
            if cover.gap_to_piece(here, board.outline(e).polygon(48)) <= rules.ENGAGE:
                return Ruling(False, RULE_GARRISON, f"{m} would be within 3\" of {e}")
    return Ruling(True, RULE_GARRISON)


def _do_leave(game: Game, action: Action) -> None:
    for m, at in (action.get("to") or {}).items():
        game.board.move(m, (float(at[0]), float(at[1])))
    st = game.unit(action.unit)
    st.status.pop("garrison", None)
    game.board.inside.pop(action.unit, None)
    st.turn["moved"] = True
    game.emit("leave_garrison", action.unit, rule=RULE_GARRISON)


# ---- shooting, charge, combat --------------------------------------------------------------


def _ctx(game: Game, target: str, missile: bool) -> attacks.Context:
    charged = game.unit(target).turn.get("charged") == turn_key(game) and not missile
    return attacks.Context(missile=missile, combat_after_charge=charged,
                           garrisons=garrisons(game),
                           mystic_shield=bool(game.unit(target).status.get("mystic_shield")))


def _legal_shoot(game: Game, action: Action) -> Ruling:
    st, target = game.unit(action.unit), action.get("target")
    if not target or target not in game.units:
        return Ruling(False, attacks.RULE_TARGET, f"shoot needs a target unit, got {target!r}")
    for flag, why in (("ran", "it ran"), ("retreated", "it retreated"), ("shot", "it has shot")):
        if st.turn.get(flag):
            return Ruling(False, "aos2 §8.1", f"{action.unit} cannot shoot: {why} this turn")
    report = attacks.analyse(game.board, action.unit, target, _ctx(game, target, True))
    return Ruling(report.eligible, report.rule, report.reason)


def _do_shoot(game: Game, action: Action) -> None:
    target = action.get("target")
    ctx = _ctx(game, target, True)
    report = attacks.analyse(game.board, action.unit, target, ctx)
    outcome = attacks.roll(game.board, report, game.roller, ctx.mystic_shield)
    game.unit(action.unit).turn["shot"] = target
    covers = sorted({f.cover.source or f.cover.kind for f in report.firing if f.cover.in_cover})
    game.emit("shoot", action.unit, target=target, outcome=outcome, cover=covers,
              expected_damage=float(report.expected_damage), rule="aos2 §8.1")
    turn.allocate(game, target, outcome["damage"], f"shot by {action.unit}")


def _legal_charge(game: Game, action: Action) -> Ruling:
    board, st, target = game.board, game.unit(action.unit), action.get("target")
    named = [target] if target is not None else action.get("targets", [])
    if not isinstance(named, list) or (target is not None and "targets" in action.params):
        return Ruling(False, rules.RULE_CHARGE, "name one 'target', or 'targets': a list of "
                      "enemy units to choose from after the roll, or neither")
    for t in named:
        if isinstance(t, bool) or not isinstance(t, str) or t not in game.units or \
                not board.unit_models(t) or board.unit_player(t) == st.player:
            return Ruling(False, rules.RULE_CHARGE, f"charge targets are enemy units on the "
                          f"table, got {t!r}")
    if st.turn.get("charged") or st.status.get("garrison"):
        return Ruling(False, rules.RULE_CHARGE, f"{action.unit} has charged or is a garrison")
    closest = min(board.unit_gap(action.unit, e, "3d") for e in board.enemies_of(st.player)
                  if board.unit_models(e))
    if not rules.charge_eligible(closest, st.turn.get("ran"), st.turn.get("retreated")):
        return Ruling(False, rules.RULE_CHARGE, f"{action.unit} is not eligible: closest enemy "
                      f"{closest:.2f}\" (3\" < it <= 12\"), no run or retreat this turn")
    hero = action.get("forward_to_victory")
    return turn.hero_aura(game, action.unit, hero) if hero else Ruling(True, rules.RULE_CHARGE)


def charge_candidates(game: Game, action: Action) -> list[tuple[str, float]]:
    """(enemy unit, gap) a charge may end against: its `target`, else its `targets` in the
    order given, else every enemy unit on the table nearest first (aos2 §7.3: the target need
    not be chosen before the roll)."""
    board, unit = game.board, action.unit
    named = [action.get("target")] if action.get("target") is not None else \
        action.get("targets") or sorted(
            (e for e in board.enemies_of(game.unit(unit).player) if board.unit_models(e)),
            key=lambda e: board.unit_gap(unit, e, "3d"))
    return [(t, board.unit_gap(unit, t, "3d")) for t in named]


def _reached(candidates: list[tuple[str, float]], roll: int) -> tuple[str | None, float]:
    """The first candidate the roll reaches (the player's choice after the roll), else the
    first candidate (the charge fails against it)."""
    for t, gap in candidates:
        if rules.charge_succeeds(roll, gap):
            return t, gap
    return candidates[0] if candidates else (None, float("inf"))


def _do_charge(game: Game, action: Action) -> None:
    board, unit = game.board, action.unit
    candidates = charge_candidates(game, action)
    dice = game.roller.d6(2, f"{unit} charge roll (2D6)")
    rerolled = None
    hero = action.get("forward_to_victory")
    target, gap = _reached(candidates, sum(dice))
    if hero and not rules.charge_succeeds(sum(dice), gap):
        turn.spend_cp(game, game.unit(unit).player, "forward to victory", unit)
        rerolled, dice = dice, game.roller.d6(2, f"{unit} Forward to Victory: re-roll both")
        target, gap = _reached(candidates, sum(dice))
    ok = target is not None and rules.charge_succeeds(sum(dice), gap)
    moved: list[dict[str, Any]] = []
    if ok:
        moved = moves.apply(board, moves.towards(board, unit, target, float(sum(dice)),
                                                 rules.CHARGE_END - 0.05))
        game.unit(unit).turn["charged"] = turn_key(game)
    game.unit(unit).turn["charge_declared"] = target
    game.emit("charge", unit, target=target, dice=dice, rerolled=rerolled,
              needed=round(rules.charge_needed(gap), 3), success=ok, moves=moved,
              chosen_after_roll=action.get("target") is None,
              candidates=[t for t, _ in candidates], rule=rules.RULE_CHARGE)
    if ok:
        turn.deadly(game, unit)


def _eligible(game: Game, player: int) -> list[str]:
    """Units that may still fight this phase: within 3" of an enemy or charged this turn."""
    out = []
    for u in game.board.units_of(player):
        st = game.unit(u)
        if not game.board.unit_models(u) or st.turn.get("fought") == turn_key(game):
            continue
        if st.turn.get("charged") == turn_key(game) or attacks.engaged_with(
                game.board, u, garrisons(game)):
            out.append(u)
    return out


def _legal_fight(game: Game, action: Action) -> Ruling:
    player = game.unit(action.unit).player
    if action.unit not in _eligible(game, player):
        return Ruling(False, "aos2 §9", f"{action.unit} is not eligible to fight (within 3\" "
                      "of an enemy or charged this turn, once per phase)")
    picker = game_state(game).get("picker", game.active_player)
    if player != picker and _eligible(game, picker):
        return Ruling(False, "aos2 §9", f"player {picker} picks the next unit to fight")
    return Ruling(True, "aos2 §9")


def _do_fight(game: Game, unit: str, target: Any) -> None:
    board = game.board
    st = game.unit(unit)
    st.turn["fought"] = turn_key(game)
    enemies = attacks.engaged_with(board, unit, {}) or []
    if not enemies and st.turn.get("charge_declared"):
        enemies = [st.turn["charge_declared"]]
    target = target if target in game.units else (enemies[0] if enemies else None)
    piled = moves.apply(board, moves.towards(board, unit, target, rules.PILE_IN, 0.05)) \
        if target and board.unit_models(target) else []
    other = opponent(game) if st.player == game.active_player else game.active_player
    game_state(game)["picker"] = other if _eligible(game, other) else st.player
    if not target or not board.unit_models(target):
        game.emit("fight", unit, target=None, pile_in=piled, reason="no enemy in reach")
        return
    ctx = _ctx(game, target, False)
    report = attacks.analyse(board, unit, target, ctx)
    outcome = attacks.roll(board, report, game.roller, ctx.mystic_shield) if report.eligible \
        else {"damage": 0}
    covers = sorted({f.cover.source or f.cover.kind for f in report.firing if f.cover.in_cover})
    game.emit("fight", unit, target=target, pile_in=piled, outcome=outcome, cover=covers,
              reason=report.reason, rule="aos2 §9")
    turn.allocate(game, target, outcome["damage"], f"fought by {unit}")


def _legal_inspiring(game: Game, action: Action) -> Ruling:
    """Inspiring Presence, "在崩溃阶段开始时" (at the start of the battleshock phase): either
    player's, since only an ability timed by "您的...阶段" (your phase) is kept to your own
    (§12: "能在 您的移动阶段 使用的技能则无法用在对手的移动阶段")."""
    if game.step_index != 0 or game.phase.name != "battleshock":
        return Ruling(False, turn.RULE_CP, "Inspiring Presence is used at the start of the "
                      "battleshock phase")
    return turn.hero_aura(game, action.unit, action.get("hero"))


def _do_inspiring(game: Game, action: Action) -> None:
    turn.spend_cp(game, game.unit(action.unit).player, "inspiring presence", action.unit)
    game.unit(action.unit).status["inspired"] = turn_key(game)


_LEGAL = {
    "cast": turn.legal_cast, "unbind": turn.legal_unbind, "move": _legal_move,
    "garrison": _legal_garrison, "leave_garrison": _legal_leave, "shoot": _legal_shoot,
    "charge": _legal_charge, "fight": _legal_fight, "inspiring_presence": _legal_inspiring,
    "battleshock": lambda g, a: Ruling(True, rules.RULE_BATTLESHOCK),
    "priority": choices.legal_priority,
}
_APPLY = {
    "cast": turn.cast, "unbind": turn.unbind, "move": _do_move, "garrison": _do_garrison,
    "leave_garrison": _do_leave, "shoot": _do_shoot, "charge": _do_charge,
    "fight": lambda g, a: _do_fight(g, a.unit, a.get("target")),
    "inspiring_presence": _do_inspiring,
    "battleshock": lambda g, a: turn.battleshock_test(g, a.unit),
    "priority": choices.apply_priority,
}


def apply(game: Game, action: Action) -> None:
    if action.kind != "priority":
        choices.close(game)  # the round's first action: who goes first is settled
    if action.kind != "unbind":
        settle_spell(game)
    _APPLY[action.kind](game, action)
