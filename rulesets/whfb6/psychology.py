"""WHFB 6th psychology in play (whfb6 §11, §2 1 and 2-3, §7 compulsory moves): stupidity,
frenzy and panic from fleeing friends at the start of the turn; stupid and frenzied units'
compulsory moves.

* Stupidity: a Ld test at the start of the turn (whfb6 §2 1); failing, the unit moves at half
  M in the compulsory moves step (whfb6 §7 "Compulsory moves", §11). The digest gives no
  direction: the engine moves it straight ahead. Having moved compulsorily, it may not declare
  a charge or move again; that it may not shoot or cast either is [GK] (not in the seed) and
  switchable by `STUPID_NO_SHOOT_OR_CAST`.
* Frenzy: a frenzied unit must charge an enemy within charge reach (whfb6 §7, §11): the
  nearest visible one is declared automatically at the start of the movement phase (2-1) and
  the charge is moved in the compulsory moves step (2-3).
* Immune to Psychology and Unbreakable units take no frenzy (or panic) tests (whfb6 §11). The
  digest's lists do not name stupidity, so they still test for it.
* Fear and terror are not modelled beyond the seed's one line (whfb6 §11): see
  `pursuit.NO_FEAR_TEST` for pursuit and overrun charges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import charge, combat, tables
from . import formation as fm
from . import movement as mv

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_PSYCHOLOGY = "whfb6 §11"
RULE_COMPULSORY = "whfb6 §7"
FLEEING_FRIENDS = 4.0
#: [GK] (not in the seed): a unit that failed its stupidity test may not shoot or cast.
STUPID_NO_SHOOT_OR_CAST = True
STEP = 0.25


def has_rule(game: Game, unit: str, rule: str) -> bool:
    return any(game.board.profile(m).has(rule) for m in game.board.unit_models(unit))


def start_of_turn(game: Game) -> None:
    """Start of turn (whfb6 §2 1): stupidity tests; panic for units with fleeing friends
    within 4" unless they are at least as strong ([GK✓] §11)."""
    board = game.board
    for unit in board.units_of(game.active_player):
        state = game.unit(unit)
        if not board.unit_models(unit) or state.status.get("fleeing"):
            continue
        if has_rule(game, unit, "stupidity") and not state.status.get("engaged"):
            ld = charge.ld_of(game, unit)
            dice = game.roller.d6(2, f"{unit} stupidity test (Ld {ld})")
            stupid = not tables.leadership_passes(sum(dice), ld)
            state.turn["stupid"] = stupid
            game.emit("stupidity", unit, passed=not stupid, ld=ld, dice=dice,
                      rule=RULE_PSYCHOLOGY)
        fleeing = [u for u in board.units_of(game.active_player) if u != unit and
                   game.unit(u).status.get("fleeing") and board.unit_models(u) and
                   mv.unit_gap(game, unit, u) <= FLEEING_FRIENDS]
        strength = sum(combat.unit_strength(game, u) for u in fleeing)
        if fleeing and combat.unit_strength(game, unit) < strength:
            charge.panic_test(game, unit, f"fleeing friends within 4\": {', '.join(fleeing)}",
                              mv.centre(game, fleeing[0]))


def stupid(game: Game, unit: str) -> bool:
    return bool(game.unit(unit).turn.get("stupid"))


def frenzy_charges(game: Game) -> None:
    """2-1: each frenzied unit declares a charge on the nearest enemy in charge reach that it
    may charge (whfb6 §7, §11); Immune to Psychology / Unbreakable units are exempt."""
    board = game.board
    for unit in board.units_of(game.active_player):
        st = game.unit(unit)
        if not board.unit_models(unit) or not has_rule(game, unit, "frenzy") or \
                st.status.get("fleeing") or st.status.get("engaged") or stupid(game, unit):
            continue
        if charge.immune(game, unit):
            game.emit("frenzy", unit, compelled=False, reason="Immune to Psychology or "
                      "Unbreakable: immune to frenzy", rule=RULE_PSYCHOLOGY)
            continue
        reach = tables.charge_reach(mv.unit_m(game, unit))
        enemies = sorted((mv.unit_gap(game, unit, e), e) for e in board.enemies_of(st.player)
                         if board.unit_models(e))
        target = next((e for d, e in enemies if d <= reach + 1e-9 and
                       charge.declare_ruling(game, unit, e).ok), None)
        if target is None:
            game.emit("frenzy", unit, compelled=False, reason=f"no enemy it can charge within "
                      f"{reach:g}\": it moves normally", rule=RULE_PSYCHOLOGY)
            continue
        charge.declare(game, unit, target)
        charge.charges(game)[unit]["frenzy"] = True
        game.emit("frenzy", unit, compelled=True, target=target, rule=RULE_PSYCHOLOGY)


def compulsory(game: Game) -> None:
    """2-3 for stupid and frenzied units (fleeing ones flee in `actions`): frenzied chargers
    move their charge; stupid units move half M straight ahead (whfb6 §7)."""
    for unit, info in list(charge.charges(game).items()):
        st = game.unit(unit)
        if info.get("frenzy") and not st.turn.get("charge_moved") and \
                game.board.unit_models(unit) and not st.status.get("fleeing"):
            charge.charge_move(game, unit)
    for unit in game.board.units_of(game.active_player):
        st = game.unit(unit)
        if stupid(game, unit) and game.board.unit_models(unit) and not st.turn.get("moved") \
                and not st.status.get("fleeing") and not st.status.get("engaged"):
            stupid_move(game, unit)


def stupid_move(game: Game, unit: str) -> None:
    """Half M straight ahead, stopping short of the table edge, terrain or 1" from enemies."""
    half = mv.unit_m(game, unit) / 2.0
    form = fm.formation(game, unit)
    st = game.unit(unit)
    st.turn.update(moved=True, compulsory=True)
    moved, moves = 0.0, []
    if form is not None:
        d = float(half)
        while d > 0 and not mv.check_block(game, unit, form.advanced(d)).ok:
            d -= STEP
        if d > 0:
            moves = mv.move_block(game, unit, form.advanced(d))
            moved = d
    game.emit("compulsory_move", unit, reason="failed stupidity test: half M",
              allowed=half, distance=round(moved, 3), moves=moves, rule=RULE_COMPULSORY)


def may_act(game: Game, unit: str, what: str) -> str | None:
    """Why a stupid unit may not `what` ('charge', 'shoot', 'cast') now, or None."""
    if not stupid(game, unit):
        return None
    if what == "charge":
        return f"{unit} failed its stupidity test: it moves half M in the compulsory moves " \
               "step and cannot charge (whfb6 §7, §11)"
    if STUPID_NO_SHOOT_OR_CAST:
        return f"{unit} failed its stupidity test: it cannot {what} ([GK], not in the seed; " \
               "whfb6 §11)"
    return None
