"""WHFB 6th actions through the phase engine (whfb6 §2): legality with reasons, resolution.

Movement: `charge` {unit, target} and the opponent's `react` {unit, reaction: hold |
stand_and_shoot | flee} (2-1); `rally` {unit} (2-2; untested fleeing units test when the step
ends); compulsory moves run by themselves (2-3); `charge_move` {unit} (2-4; unmoved chargers
move when the step ends); `move` / `march` {unit, wheel?, forward?, then_wheel? | front,
facing | by} and `reform` {unit, facing, files?} (2-5); stupid and frenzied units move by
themselves in 2-3 (`psychology`). Magic: `cast` {unit, spell, dice, target}, the opponent's
`dispel` {dice}, `dispel_in_play` {spell, target?, dice, player?} (3-6, `spells`).
Shooting: `shoot` {unit, target, weapon?}. Close combat:
`fight` {unit} (combats not fought are fought at the end of the phase).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import (
    dispatch_legal,
    game_state,
    settle_spell,
    turn_key,
)

from . import charge, combat, magic, shooting, spells, tables
from . import formation as fm
from . import movement as mv
from . import psychology as psy

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_SEQUENCE = "whfb6 §2"
STAGES = (("rally", "compulsory"), ("compulsory", "compulsory"), ("chargers", "remaining"))


def start_game(game: Game) -> None:
    fm.init_formations(game)


def step_start(game: Game) -> None:
    stage_duties(game)


def phase_start(game: Game) -> None:
    name = game.phase.name
    if name == "start":
        spells.expire(game)
        psy.start_of_turn(game)
    elif name == "movement":
        mv.note_march_blocks(game)
        psy.frenzy_charges(game)
    elif name == "magic":
        magic.start_phase(game)


def phase_end(game: Game) -> None:
    settle_spell(game)
    if game.phase.name == "movement":
        stage_duties(game, everything=True)
    if game.phase.name == "close_combat":
        for unit in list(game.units):
            st = game.unit(unit).status
            if st.get("engaged") and st.get("fought") != turn_key(game) and \
                    game.board.unit_models(unit):
                combat.fight(game, unit)
    _check_tabled(game)


def _check_tabled(game: Game) -> None:
    alive = [p for p in game.turn_order
             if any(game.board.unit_models(u) for u in game.board.units_of(p))]
    if len(alive) == 1 and len(game.turn_order) > 1:
        game.end("the enemy army is destroyed or has fled", winner=alive[0])


def stage_duties(game: Game, everything: bool = False) -> None:
    """Automatic parts of the movement phase, run as the steps are left (whfb6 §2)."""
    if game.phase.name != "movement":
        return
    names = [s.name for s in game.phase.steps]
    done = game_state(game).setdefault("stages", {})
    for stage, due in STAGES:
        key = (game.game_turn, game.active_player, stage)
        if key in done or not (everything or game.step_index >= names.index(due)):
            continue
        done[key] = True
        {"rally": _auto_rally, "compulsory": _compulsory, "chargers": _auto_chargers}[stage](game)


def _auto_rally(game: Game) -> None:
    for unit in game.board.units_of(game.active_player):
        st = game.unit(unit)
        if st.status.get("fleeing") and not st.turn.get("rally_tested") and \
                game.board.unit_models(unit) and not st.turn.get("fled"):
            rally(game, unit)


def _compulsory(game: Game) -> None:
    """Fleeing units that did not rally flee again from the nearest enemy (2-3)."""
    for unit in game.board.units_of(game.active_player):
        st = game.unit(unit)
        if st.status.get("fleeing") and game.board.unit_models(unit) and not st.turn.get("fled"):
            st.turn["fled"] = True
            mv.flee(game, unit, _nearest_enemy(game, unit), "compulsory move of a fleeing unit")
    psy.compulsory(game)


def _nearest_enemy(game: Game, unit: str) -> np.ndarray:
    enemies = [e for e in game.board.enemies_of(game.unit(unit).player)
               if game.board.unit_models(e)]
    if not enemies:
        return mv.centre(game, unit) - np.array([0.0, 1.0])
    near = min(enemies, key=lambda e: mv.unit_gap(game, unit, e))
    return mv.centre(game, near)


def _auto_chargers(game: Game) -> None:
    for unit in list(charge.charges(game)):
        if not game.unit(unit).turn.get("charge_moved") and game.board.unit_models(unit) and \
                not game.unit(unit).status.get("fleeing"):
            charge.charge_move(game, unit)


def rally(game: Game, unit: str) -> None:
    """2-2: 2D6 <= Ld (+1 with a musician, at most 10) with a quarter of the unit left."""
    st = game.unit(unit)
    st.turn["rally_tested"] = True
    now = len(game.board.unit_models(unit))
    if not tables.may_rally(now, st.starting_models):
        game.emit("rally", unit, rallied=False, rule=tables.RULE_RALLY,
                  reason=f"{now} of {st.starting_models} models: under a quarter")
        return
    ld = tables.rally_ld(charge.ld_of(game, unit), combat._has_role(game, unit, "musician"))
    dice = game.roller.d6(2, f"{unit} rally test (Ld {ld})")
    ok = tables.leadership_passes(sum(dice), ld)
    if ok:
        st.status.pop("fleeing", None)
        st.turn["rallied"] = True
    game.emit("rally", unit, rallied=ok, ld=ld, dice=dice, rule=tables.RULE_RALLY)


# ---- legality ------------------------------------------------------------------------------


def legal(game: Game, action: Action) -> Ruling:
    stage_duties(game)
    return dispatch_legal(game, action, _LEGAL, RULE_SEQUENCE,
                          {"react": "reactive", "dispel": "none", "dispel_in_play": "none",
                           "fight": "either"})


def _legal_charge(game: Game, action: Action) -> Ruling:
    why = psy.may_act(game, action.unit, "charge")
    if why:
        return Ruling(False, psy.RULE_PSYCHOLOGY, why)
    return charge.declare_ruling(game, action.unit, action.get("target"))


def _legal_react(game: Game, action: Action) -> Ruling:
    return charge.react_ruling(game, action.unit, action.get("reaction"))


def _legal_rally(game: Game, action: Action) -> Ruling:
    st = game.unit(action.unit)
    if not st.status.get("fleeing"):
        return Ruling(False, tables.RULE_RALLY, f"{action.unit} is not fleeing")
    if st.turn.get("rally_tested"):
        return Ruling(False, tables.RULE_RALLY, f"{action.unit} has already tested")
    return Ruling(True, tables.RULE_RALLY)


def _legal_charge_move(game: Game, action: Action) -> Ruling:
    if action.unit not in charge.charges(game):
        return Ruling(False, charge.RULE_CHARGE, f"{action.unit} declared no charge")
    if game.unit(action.unit).turn.get("charge_moved"):
        return Ruling(False, charge.RULE_CHARGE, f"{action.unit} has already moved")
    return Ruling(True, charge.RULE_CHARGE)


def _may_move(game: Game, unit: str) -> Ruling:
    st = game.unit(unit)
    for flag, why in (("fleeing", "it is fleeing"), ("engaged", "it is in close combat")):
        if st.status.get(flag):
            return Ruling(False, mv.RULE_MOVE, f"{unit} cannot move: {why}")
    for flag, why in (("declared", "it declared a charge"), ("rallied", "it rallied this turn"),
                      ("moved", "it has already moved")):
        if st.turn.get(flag):
            return Ruling(False, mv.RULE_MOVE, f"{unit} cannot move: {why}")
    return Ruling(True, mv.RULE_MOVE)


def _legal_move(game: Game, action: Action, march: bool = False) -> Ruling:
    ok = _may_move(game, action.unit)
    if not ok:
        return ok
    if march:
        ok = mv.march_allowed(game, action.unit)
        if not ok:
            return ok
    limit = mv.unit_m(game, action.unit) * (2 if march else 1)
    form = fm.formation(game, action.unit)
    try:
        if form is None:
            by = action.get("by")
            if by is None:
                return Ruling(False, mv.RULE_MOVE, "a unit without a formation moves by: [dx, dy]")
            cost, new = float(np.hypot(*by)), None
        else:
            new, cost = mv.planned(form, action.params)
    except (TypeError, ValueError, KeyError) as exc:
        return Ruling(False, mv.RULE_MOVE, f"bad move: {exc}")
    if cost > limit + 1e-6:
        return Ruling(False, mv.RULE_MOVE, f"{action.unit} would move {cost:.2f}\"; it may move "
                      f"{limit:g}\"" + (" marching (2 x M)" if march else ""))
    if new is not None:
        return mv.check_block(game, action.unit, new)
    return Ruling(True, mv.RULE_MOVE)


def _legal_reform(game: Game, action: Action) -> Ruling:
    ok = _may_move(game, action.unit)
    if not ok:
        return ok
    if fm.formation(game, action.unit) is None:
        return Ruling(False, fm.RULE_FORMATION, f"{action.unit} has no formation")
    files, n = action.get("files"), len(game.board.unit_models(action.unit))
    if files is not None and (isinstance(files, bool) or not isinstance(files, int)
                              or not 1 <= files <= n):
        return Ruling(False, fm.RULE_FORMATION, f"'files' must be a whole number from 1 to "
                      f"{n} (the models of {action.unit}), got {files!r}")
    return Ruling(True, "whfb6 §3")


def _legal_shoot(game: Game, action: Action) -> Ruling:
    st = game.unit(action.unit)
    target = action.get("target")
    if not target or target not in game.units:
        return Ruling(False, shooting.RULE_TARGET, f"shoot needs a target unit, got {target!r}")
    for flag, why in (("fleeing", "it is fleeing"), ("engaged", "it is in close combat")):
        if st.status.get(flag):
            return Ruling(False, shooting.RULE_TARGET, f"{action.unit} cannot shoot: {why}")
    for flag, why in (("shot", "it has already shot"), ("rallied", "it rallied this turn"),
                      ("reformed", "it reformed this turn"),
                      ("failed_charge", "it failed a charge this turn")):
        if st.turn.get(flag):
            return Ruling(False, shooting.RULE_TARGET, f"{action.unit} cannot shoot: {why}")
    if game.unit(target).status.get("engaged"):
        return Ruling(False, shooting.RULE_TARGET, f"{target} is in close combat")
    why = psy.may_act(game, action.unit, "shoot")
    if why:
        return Ruling(False, psy.RULE_PSYCHOLOGY, why)
    report = shooting.analyse(game.board, action.unit, target, _context(game, action))
    if not report.eligible:
        return Ruling(False, report.rule, report.reason)
    return Ruling(True, report.rule)


def _context(game: Game, action: Action) -> shooting.ShotContext:
    st = game.unit(action.unit)
    form = fm.formation(game, action.unit)
    return shooting.ShotContext(weapon=action.get("weapon"), moved=bool(st.turn.get("moved")),
                                marched=bool(st.turn.get("marched")),
                                shooters=fm.order(game, action.unit),
                                files=form.files if form else None)


def _legal_fight(game: Game, action: Action) -> Ruling:
    st = game.unit(action.unit).status
    if not st.get("engaged"):
        return Ruling(False, combat.RULE_FIGHT, f"{action.unit} is not in close combat")
    if st.get("fought") == turn_key(game):
        return Ruling(False, combat.RULE_FIGHT, f"{action.unit}'s combat was fought this turn")
    return Ruling(True, combat.RULE_FIGHT)


_LEGAL = {
    "charge": _legal_charge, "react": _legal_react, "rally": _legal_rally,
    "charge_move": _legal_charge_move, "move": _legal_move,
    "march": lambda g, a: _legal_move(g, a, march=True), "reform": _legal_reform,
    "cast": magic.legal_cast, "dispel": magic.legal_dispel,
    "dispel_in_play": spells.legal_dispel_in_play, "shoot": _legal_shoot,
    "fight": _legal_fight,
}


# ---- resolution ----------------------------------------------------------------------------


def apply(game: Game, action: Action) -> None:
    if action.kind not in ("dispel",):
        settle_spell(game)
    _APPLY[action.kind](game, action)


def _do_move(game: Game, action: Action, march: bool = False) -> None:
    unit = action.unit
    form = fm.formation(game, unit)
    if form is None:
        moves = mv.move_loose(game, unit, tuple(float(v) for v in action.get("by")))
        cost = float(np.hypot(*action.get("by")))
    else:
        new, cost = mv.planned(form, action.params)
        moves = mv.move_block(game, unit, new)
    game.unit(unit).turn.update(moved=True, marched=march)
    game.emit("march" if march else "move", unit, distance=round(cost, 3), moves=moves,
              rule=mv.RULE_MARCH if march else mv.RULE_MOVE)


def _do_reform(game: Game, action: Action) -> None:
    """Reform (2-5): any formation and facing about the unit's centre; no shooting after."""
    unit = action.unit
    form = fm.formation(game, unit)
    n = len(game.board.unit_models(unit))
    files = int(form.files if action.get("files") is None else action.get("files"))
    facing = float(form.facing if action.get("facing") is None else action.get("facing")) % 360.0
    c = form.centre(n)
    probe = fm.Formation((0.0, 0.0), facing, files, form.width, form.depth)
    front = c + probe.forward * probe.ranks(n) * probe.depth / 2.0
    new = fm.Formation((float(front[0]), float(front[1])), facing, files, form.width, form.depth)
    moves = mv.move_block(game, unit, new)
    game.unit(unit).turn.update(moved=True, reformed=True)
    game.emit("reform", unit, facing=facing, files=files, moves=moves, rule="whfb6 §3")


def _do_shoot(game: Game, action: Action) -> None:
    target = action.get("target")
    report = shooting.analyse(game.board, action.unit, target, _context(game, action))
    before = len(game.board.unit_models(target))
    outcome = shooting.resolve(game.board, report, game.roller)
    slain = charge.remove_casualties(game, target, outcome["unsaved"])
    game.unit(action.unit).turn["shot"] = target
    game.emit("shoot", action.unit, target=target, outcome=outcome, slain=slain,
              cover=report.cover.to_dict(), expected_unsaved=float(report.expected_unsaved),
              firers=[f.to_dict() for f in report.firing], rule="whfb6 §8")
    if tables.shooting_panic(before, len(slain)) and game.board.unit_models(target):
        charge.panic_test(game, target, f"lost {len(slain)} of {before} models to shooting",
                          mv.centre(game, action.unit))


_APPLY = {
    "charge": lambda g, a: charge.declare(g, a.unit, a.get("target")),
    "react": lambda g, a: charge.react(g, a.unit, a.get("reaction")),
    "rally": lambda g, a: rally(g, a.unit),
    "charge_move": lambda g, a: charge.charge_move(g, a.unit),
    "move": _do_move, "march": lambda g, a: _do_move(g, a, march=True), "reform": _do_reform,
    "cast": magic.cast, "dispel": magic.dispel,
    "dispel_in_play": spells.dispel_in_play, "shoot": _do_shoot,
    "fight": lambda g, a: combat.fight(g, a.unit),
}
