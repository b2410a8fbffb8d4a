"""WHFB 6th magic phase (whfb6 §10): power and dispel dice pools, casting with up to level + 1
dice, miscasts and Irresistible Force, the opponent's dispel attempt.

Spells come from `data/spells.yaml` (`spells.py`: targets, effects, spells in play); an
action may also give `value:` for a spell the engine only logs. The miscast table is not in
the seed: a miscast is logged with its 2D6 roll and no result (whfb6 §10.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import (
    game_state,
    opponent,
    pending_spell,
    set_pending,
    settle_spell,
)

from . import psychology, spells, tables

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_POWER = "whfb6 §10.1"
RULE_CAST = "whfb6 §10.3"
RULE_DISPEL = "whfb6 §10.4"
MISCAST_NOTE = "the Miscast table is not in the seed (whfb6 §1, §10.3): no result is applied"


def wizard_levels(game: Game, player: int) -> list[int]:
    """Levels of the player's living wizards that are not fleeing (§10.1)."""
    out = []
    for unit in game.board.units_of(player):
        if game.unit(unit).status.get("fleeing"):
            continue
        out += [game.board.profile(m).wizard for m in game.board.unit_models(unit)
                if game.board.profile(m).wizard]
    return out


def start_phase(game: Game) -> None:
    """3-1: generate Power dice (caster) and Dispel dice (opponent)."""
    other = opponent(game)
    dwarfs = any(game.board.profile(m).army == "dwarfs" for u in game.board.units_of(other)
                 for m in game.board.unit_models(u))
    runesmiths = sum(1 for u in game.board.units_of(other) for m in game.board.unit_models(u)
                     if game.board.profile(m).has("runesmith") or
                     game.board.profile(m).has("runelord"))
    mine = wizard_levels(game, game.active_player)
    pools = {"power": tables.power_dice(mine) if mine else 0,
             "dispel": tables.dispel_dice(wizard_levels(game, other), dwarfs, runesmiths),
             "cast": []}
    game_state(game)["magic"] = pools
    game.emit("magic_dice", power=pools["power"], dispel=pools["dispel"], rule=RULE_POWER)


def legal_cast(game: Game, action: Action) -> Ruling:
    models = [m for m in game.board.unit_models(action.unit) if game.board.profile(m).wizard]
    if not models:
        return Ruling(False, RULE_CAST, f"{action.unit} has no wizard")
    level = game.board.profile(models[0]).wizard
    spell = str(action.get("spell", ""))
    if spell not in spells.spell_list() and action.get("value") is None:
        return Ruling(False, RULE_CAST, f"unknown spell {spell!r}; give value: N to log one")
    if (action.unit, spell) in spells.pools(game)["cast"]:
        return Ruling(False, RULE_CAST, f"{action.unit} has already tried {spell} this turn")
    why = psychology.may_act(game, action.unit, "cast")
    if why:
        return Ruling(False, psychology.RULE_PSYCHOLOGY, why)
    aim = spells.target_ruling(game, action.unit, spell, action.get("target"))
    if not aim:
        return aim
    dice = int(action.get("dice", 0) or 0)
    left = spells.pools(game)["power"]
    limit = min(tables.max_power_dice(level), left)
    if not 1 <= dice <= limit:
        return Ruling(False, RULE_CAST, f"a level {level} wizard may roll 1 to "
                      f"{tables.max_power_dice(level)} power dice ({left} left)")
    return Ruling(True, RULE_CAST)


def cast(game: Game, action: Action) -> None:
    settle_spell(game)
    spell = str(action.get("spell", ""))
    value = int(action.get("value") or spells.spell_list().get(spell, {}).get("value", 0))
    n = int(action.get("dice"))
    spells.pools(game)["power"] -= n
    spells.pools(game)["cast"].append((action.unit, spell))
    dice = game.roller.d6(n, f"{action.unit} casts {spell} (value {value})")
    result = tables.cast_result(dice, value)
    game.emit("cast", action.unit, spell=spell, value=value, dice=dice, rule=RULE_CAST,
              **result)
    if result["miscast"]:
        roll = game.roller.d6(2, f"{action.unit} miscast table (2D6; table not in the seed)")
        game.emit("miscast", action.unit, roll=roll, total=sum(roll), table=None,
                  note=MISCAST_NOTE, rule=RULE_CAST)
    if not result["cast"]:
        return
    info = {"unit": action.unit, "spell": spell, "total": result["total"],
            "irresistible": result["irresistible"], "target": action.get("target")}
    if result["irresistible"]:
        spells.effect(game, info)
    else:
        set_pending(game, info, spells.effect)


def legal_dispel(game: Game, action: Action) -> Ruling:
    spell = pending_spell(game)
    if spell is None:
        return Ruling(False, RULE_DISPEL, "no spell is waiting to be dispelled")
    dice = int(action.get("dice", 0) or 0)
    if not 1 <= dice <= spells.pools(game)["dispel"]:
        return Ruling(False, RULE_DISPEL, f"roll 1 to {spells.pools(game)['dispel']} dispel dice")
    return Ruling(True, RULE_DISPEL)


def dispel(game: Game, action: Action) -> None:
    spell = pending_spell(game)
    n = int(action.get("dice"))
    spells.pools(game)["dispel"] -= n
    dice = game.roller.d6(n, f"dispel {spell['spell']} (cast on {spell['total']})")
    ok = tables.dispelled(dice, spell["total"])
    game.emit("dispel", action.unit, dice=dice, dispelled=ok, rule=RULE_DISPEL)
    settle_spell(game, stopped=ok, by="dispel")
