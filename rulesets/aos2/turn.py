"""AoS 2nd timed rules (aos2 §2, §8.5, §10, §11): battle round priority, command points,
spells and unbinding, wound allocation, battleshock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import (
    game_state,
    opponent,
    pending_spell,
    set_pending,
    settle_spell,
    slain_this_turn,
    slay,
    turn_key,
)

from . import cover, rules, sight
from .attacks import models_of

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

SPELLS = {"arcane bolt": {"value": 5, "range": 18.0, "enemy": True},
          "mystic shield": {"value": 6, "range": 18.0, "enemy": False}}
RULE_CP = "aos2 §11.2"


# ---- priority and command points -----------------------------------------------------------


def roll_priority(game: Game) -> int:
    """Start of a battle round: roll off; the winner (or, on a tie, the player who went first
    last round / finished deploying first) chooses who takes the first turn (aos2 §2.2): the
    chooser goes first unless they choose otherwise (`choices.py`). Returns the chooser."""
    players = sorted(game.turn_order)
    state = game_state(game)
    deployed = int(game.board.scene.extra.get("deployed_first", game.turn_order[0]))
    rolls = {p: game.roller.one(f"player {p} priority roll") for p in players}
    winner, chooser = rules.priority(rolls, state.get("went_first"), deployed)
    first = chooser
    game.turn_order[:] = [first] + [p for p in players if p != first]
    state["went_first"] = first
    game.emit("priority", rolls=rolls, winner=winner, chooser=chooser, first=first,
              rule=rules.RULE_PRIORITY)
    return chooser


def cp(game: Game, player: int) -> int:
    return game_state(game).setdefault("cp", {}).get(player, 0)


def add_cp(game: Game, player: int, n: int) -> None:
    pool = game_state(game).setdefault("cp", {})
    pool[player] = pool.get(player, 0) + n


def hero_aura(game: Game, unit: str, hero: Any) -> Ruling:
    """A command ability's range: 6" of a friendly HERO, 12" of the general (aos2 §11.2)."""
    board = game.board
    if not hero or hero not in board.models or not board.model(hero).alive:
        return Ruling(False, RULE_CP, f"no hero {hero!r}")
    if board.model(hero).player != board.unit_player(unit) or \
            not board.profile(hero).has("hero"):
        return Ruling(False, RULE_CP, f"{hero} is not a friendly HERO")
    if cp(game, board.unit_player(unit)) < 1:
        return Ruling(False, RULE_CP, "no command points left")
    general = bool(board.model(hero).spec.extra.get("general"))
    dist = min(board.gap(m, hero, "3d") for m in board.unit_models(unit))
    if not rules.in_aura(dist, general):
        return Ruling(False, RULE_CP, f"{unit} is {dist:.2f}\" from {hero}: needs 6\" (12\" "
                      "from the general)")
    return Ruling(True, RULE_CP)


def spend_cp(game: Game, player: int, ability: str, unit: str) -> None:
    add_cp(game, player, -1)
    game.emit("command_ability", unit, ability=ability, cp_left=cp(game, player), rule=RULE_CP)


# ---- wounds and battleshock ----------------------------------------------------------------


def allocate(game: Game, unit: str, damage: int, why: str = "") -> list[str]:
    """Allocate damage one wound at a time: a wounded model first, then the next model (the
    defender's choice: the last listed first); Mystical features negate on 6+ (aos2 §8.5)."""
    board = game.board
    slain: list[str] = []
    for _ in range(damage):
        models = [m for m in models_of(board, unit) if m not in slain]
        if not models:
            break
        full = {m: board.ruleset.starting_wounds(board.profile(m)) for m in models}
        m = next((x for x in models if board.model(x).wounds < full[x]), models[-1])
        if board.model(m).on_table and cover.scenery_near(board, m, "mystical"):
            if game.roller.one(f"{m} Mystical feature: 6+ negates a wound") >= 6:
                continue
        left = board.model(m).wounds - 1
        board.set_wounds(m, max(left, 0))
        if left <= 0:
            slain.append(m)
    slay(game, slain)
    if slain or damage:
        game.emit("wounds", unit, damage=damage, slain=slain, reason=why,
                  rule="aos2 §8.5")
    return slain


def battleshock_test(game: Game, unit: str) -> None:
    board = game.board
    st = game.unit(unit)
    lost = slain_this_turn(game, unit)
    models = models_of(board, unit)
    if not lost or not models or st.status.get("battleshock_done") == turn_key(game):
        return
    st.status["battleshock_done"] = turn_key(game)
    if st.status.get("inspired") == turn_key(game):
        game.emit("battleshock", unit, taken=False, reason="Inspiring Presence",
                  rule=rules.RULE_BATTLESHOCK)
        return
    roll = game.roller.one(f"{unit} battleshock (D6 + {lost} slain)")
    mod = cover.bravery_modifier(board, unit)
    bravery = max(board.profile(m).bravery for m in models)
    passed, flee = rules.battleshock(roll, lost, bravery, len(models), mod)
    fled = list(reversed(models))[:flee]
    slay(game, fled)
    game.emit("battleshock", unit, roll=roll, slain=lost, bravery=bravery + len(models) // 10
              + mod, passed=passed, fled=fled, rule=rules.RULE_BATTLESHOCK)


def battleshock_phase(game: Game) -> None:
    """Both players test every unit that lost models this turn, the active player first."""
    for player in (game.active_player, opponent(game)):
        for unit in game.board.units_of(player):
            battleshock_test(game, unit)


# ---- spells --------------------------------------------------------------------------------


def wizard_of(game: Game, unit: str) -> str | None:
    for m in models_of(game.board, unit):
        if game.board.profile(m).has("wizard"):
            return m
    return None


def legal_cast(game: Game, action: Action) -> Ruling:
    board = game.board
    wizard = action.get("model") or wizard_of(game, action.unit)
    if wizard is None or not board.profile(wizard).has("wizard"):
        return Ruling(False, rules.RULE_CAST, f"{action.unit} has no WIZARD")
    spell = str(action.get("spell", "")).lower()
    if spell not in SPELLS:
        return Ruling(False, rules.RULE_CAST, f"unknown spell {spell!r}")
    done = game_state(game).setdefault("spells", {})
    key = tuple(turn_key(game))
    if (key, spell) in done:
        return Ruling(False, rules.RULE_CAST, f"{spell} was already attempted this turn "
                      "(once per army per turn, aos2 §10.1)")
    casts = int(board.profile(wizard).wizard.get("casts", 1))
    if sum(1 for (k, _), w in done.items() if k == key and w == wizard) >= casts:
        return Ruling(False, rules.RULE_CAST, f"{wizard} may cast {casts} spell(s) a turn")
    target = action.get("target")
    if not target or target not in game.units or not board.unit_models(target):
        return Ruling(False, rules.RULE_CAST, f"{spell} needs a target unit")
    enemy = board.unit_player(target) != board.unit_player(action.unit)
    if enemy != SPELLS[spell]["enemy"]:
        side = "an enemy" if SPELLS[spell]["enemy"] else "a friendly"
        return Ruling(False, rules.RULE_CAST, f"{spell} targets {side} unit")
    dist = min(board.gap(wizard, t, "3d") for t in board.unit_models(target))
    if dist > SPELLS[spell]["range"] + 1e-9:
        return Ruling(False, rules.RULE_CAST, f"{target} is {dist:.2f}\" away (range 18\")")
    if target != action.unit and not sight.sees_unit(board, wizard, target):
        return Ruling(False, sight.RULE_SEE, f"{wizard} cannot see {target}")
    return Ruling(True, rules.RULE_CAST)


def cast(game: Game, action: Action) -> None:
    board = game.board
    wizard = action.get("model") or wizard_of(game, action.unit)
    spell = str(action.get("spell")).lower()
    game_state(game).setdefault("spells", {})[(tuple(turn_key(game)), spell)] = wizard
    bonus = int(bool(cover.scenery_near(board, wizard, "arcane")))
    dice = game.roller.d6(2, f"{wizard} casts {spell} (2D6{'+1 Arcane' if bonus else ''})")
    total = sum(dice) + bonus
    ok = rules.cast_succeeds(total, SPELLS[spell]["value"])
    game.emit("cast", action.unit, spell=spell, dice=dice, total=total, cast=ok,
              value=SPELLS[spell]["value"], rule=rules.RULE_CAST)
    if ok:
        set_pending(game, {"unit": action.unit, "model": wizard, "spell": spell,
                           "total": total, "target": action.get("target")}, _effect)


def _effect(game: Game, spell: dict[str, Any]) -> None:
    target = spell["target"]
    if spell["spell"] == "arcane bolt":
        n = game.roller.d3("Arcane Bolt D3 mortal wounds") if spell["total"] >= 10 else 1
        game.emit("spell", spell["unit"], spell="arcane bolt", target=target, mortal=n,
                  rule="aos2 §10.3")
        allocate(game, target, n, "Arcane Bolt")
    else:
        game.unit(target).status["mystic_shield"] = game.active_player
        game.emit("spell", spell["unit"], spell="mystic shield", target=target,
                  rule="aos2 §10.3")


def legal_unbind(game: Game, action: Action) -> Ruling:
    spell = pending_spell(game)
    if spell is None:
        return Ruling(False, rules.RULE_UNBIND, "no spell to unbind")
    wizard = action.get("model") or wizard_of(game, action.unit)
    if wizard is None:
        return Ruling(False, rules.RULE_UNBIND, f"{action.unit} has no WIZARD")
    dist = game.board.gap(wizard, spell["model"], "3d")
    if not rules.may_unbind(dist):
        return Ruling(False, rules.RULE_UNBIND, f"{wizard} is {dist:.2f}\" from the caster "
                      "(within 30\" to unbind)")
    return Ruling(True, rules.RULE_UNBIND)


def unbind(game: Game, action: Action) -> None:
    spell = pending_spell(game)
    wizard = action.get("model") or wizard_of(game, action.unit)
    bonus = int(bool(cover.scenery_near(game.board, wizard, "arcane")))
    dice = game.roller.d6(2, f"{wizard} unbinds {spell['spell']} (cast on {spell['total']})")
    ok = rules.unbinds(sum(dice) + bonus, spell["total"])
    game.emit("unbind", action.unit, dice=dice, unbound=ok, rule=rules.RULE_UNBIND)
    settle_spell(game, stopped=ok, by="unbind")


def remove_split_units(game: Game) -> None:
    """End of a turn: a unit split into groups keeps its largest group; the rest are slain
    (aos2 §2.3 step 7, A-15)."""
    from .moves import groups

    for unit in game.board.unit_ids():
        parts = groups(game.board, unit)
        if len(parts) > 1:
            gone = [m for g in parts[1:] for m in g]
            slay(game, gone)
            game.emit("split_unit", unit, slain=gone, rule=rules.RULE_COHERENCY)


def deadly(game: Game, unit: str) -> None:
    """A unit ending a normal or charge move within 1" of a Deadly feature rolls a D6: on a 1
    it suffers D3 mortal wounds (aos2 §6.2)."""
    piece = cover.unit_near_scenery(game.board, unit, "deadly")
    if not piece:
        return
    roll = game.roller.one(f"{unit} Deadly feature {piece}")
    wounds = game.roller.d3(f"{unit} Deadly: D3 mortal wounds") if roll == 1 else 0
    game.emit("deadly", unit, feature=piece, roll=roll, mortal=wounds, rule=cover.RULE_SCENERY)
    if wounds:
        allocate(game, unit, wounds, f"Deadly feature {piece}")
