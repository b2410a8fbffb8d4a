"""WHFB 6th spells in play (whfb6 §10.3-§10.5): the spell list (`data/spells.yaml`), who a
spell may target, what it does, and spells that remain in play.

* Magic missile: the target must be an enemy unit within range, seen in the caster's 90-degree
  arc (whfb6 §4.2 LV-8, §10 [GK]); D6 hits at the spell's Strength, wounded and saved as
  shooting (whfb6 §8.3-§8.4); casualties past the shooting threshold cause a panic test
  (whfb6 §11 [GK✓] "shooting or magic"; the threshold is `tables.shooting_panic`, §8.5).
* Augment (a friendly unit) and hex (an enemy unit) within range: characteristic modifiers that
  last until the start of the caster's next turn; until then they are in play and may be
  dispelled on a total of at least the casting value (whfb6 §10.5, step 3-6) with the active
  player's leftover Power dice or the other player's Dispel dice.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling
from battlesight.rulesets.core.state import game_state, opponent
from battlesight.scenes.yamlread import package_data

from . import movement as mv
from . import sight, tables
from .charge import panic_test, remove_casualties
from .shooting import roll_wounds_and_saves

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_SPELL = "whfb6 §10.3"
RULE_IN_PLAY = "whfb6 §10.5"
RULE_MISSILE = "whfb6 §4.2"
DATA = Path(__file__).parent / "data" / "spells.yaml"
STAT_RANGE = (1, 10)


def pools(game: Game) -> dict[str, Any]:
    """The magic phase's dice left (whfb6 §10.1): 'power', 'dispel' and the spells 'cast'."""
    return game_state(game).setdefault("magic", {"power": 0, "dispel": 0, "cast": []})


@lru_cache(maxsize=1)
def spell_list() -> dict[str, dict[str, Any]]:
    """The spells, by name (whfb6 §10)."""
    data = package_data(DATA.read_text(encoding="utf-8")) or {}
    return {str(k): dict(v) for k, v in (data.get("spells") or {}).items()}


def wizards(game: Game, unit: str) -> list[str]:
    return [m for m in game.board.unit_models(unit) if game.board.profile(m).wizard]


def target_ruling(game: Game, unit: str, name: str, target: Any) -> Ruling:
    """Whether `target` is a valid target of spell `name` cast by `unit` (§10.3)."""
    spell = spell_list().get(name)
    if spell is None:
        return Ruling(True, RULE_SPELL)  # a spell given only by `value:` is just logged
    board = game.board
    if not target or target not in game.units or not board.unit_models(target):
        return Ruling(False, RULE_SPELL, f"{name} needs a target unit on the table, got "
                      f"{target!r}")
    friendly = board.unit_player(target) == board.unit_player(unit)
    if friendly != (spell["kind"] == "augment"):
        want = "a friendly" if spell["kind"] == "augment" else "an enemy"
        return Ruling(False, RULE_SPELL, f"{name} ({spell['kind']}) needs {want} unit")
    dist = 0.0 if target == unit else mv.unit_gap(game, unit, target)
    if dist > float(spell["range"]) + 1e-9:
        return Ruling(False, RULE_SPELL, f"{target} is {dist:.2f}\" away; {name} reaches "
                      f"{spell['range']}\"")
    if spell["kind"] == "magic missile":
        if game.unit(target).status.get("engaged"):
            return Ruling(False, RULE_MISSILE, f"{target} is in close combat")
        if not sight.unit_sees(board, wizards(game, unit), target):
            return Ruling(False, RULE_MISSILE, f"no wizard of {unit} sees {target} in its "
                          "90-degree arc (a magic missile needs sight, whfb6 §4.2 LV-8)")
    return Ruling(True, RULE_SPELL, geometry={"distance": round(dist, 3)})


def effect(game: Game, cast: dict[str, Any]) -> None:
    """The spell takes effect (3-4)."""
    name, unit, target = cast["spell"], cast["unit"], cast.get("target")
    spell = spell_list().get(name)
    if spell is None or not target or not game.board.unit_models(target):
        game.emit("spell", unit, spell=name, target=target, effect="logged only",
                  rule=RULE_SPELL)
        return
    if spell["kind"] == "magic missile":
        _missile(game, unit, target, name, spell)
        return
    entry = {"spell": name, "caster": unit, "player": game.unit(unit).player,
             "target": target, "value": int(spell["value"]),
             "modifiers": dict(spell.get("modifiers") or {}), "kind": spell["kind"]}
    in_play(game).append(entry)
    refresh(game, target)
    game.emit("spell", unit, spell=name, target=target, effect=spell["kind"],
              modifiers=entry["modifiers"], lasts="until the start of the caster's next turn",
              rule=RULE_IN_PLAY)


def _missile(game: Game, unit: str, target: str, name: str, spell: dict[str, Any]) -> None:
    board = game.board
    hits_spec = str(spell.get("hits", 1))
    if hits_spec.upper() == "D6":
        hits = game.roller.d6(1, f"{name}: D6 hits")[0]
    else:
        hits = int(hits_spec)
    s = int(spell["S"])
    before = len(board.unit_models(target))
    wounds, unsaved = roll_wounds_and_saves(game.roller, hits, s,
                                            board.profile(board.unit_models(target)[0]), False,
                                            f"{name} hits {target}")
    slain = remove_casualties(game, target, unsaved)
    game.emit("spell", unit, spell=name, target=target, effect="magic missile", hits=hits,
              S=s, wounds=wounds, unsaved=unsaved, slain=slain, rule=RULE_SPELL)
    if board.unit_models(target) and tables.shooting_panic(before, len(slain)):
        panic_test(game, target, f"lost {len(slain)} of {before} to {name} (whfb6 §11 [GK✓])",
                   mv.centre(game, unit))


def in_play(game: Game) -> list[dict[str, Any]]:
    return game_state(game).setdefault("in_play", [])


def modifiers(game: Game, unit: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for entry in in_play(game):
        if entry["target"] == unit:
            for stat, by in entry["modifiers"].items():
                out[stat] = out.get(stat, 0) + int(by)
    return out


def refresh(game: Game, unit: str) -> None:
    """Each model's profile is its base profile plus the spells in play on its unit."""
    base = game_state(game).setdefault("base_profiles", {})
    mods = modifiers(game, unit)
    lo, hi = STAT_RANGE
    for m in game.board.unit_models(unit, alive=False, on_table=False):
        state = game.board.model(m)
        original = base.setdefault(m, state.profile)
        stats = dict(original.stats)
        for stat, by in mods.items():
            if stats.get(stat) is not None:
                stats[stat] = max(lo, min(hi, int(stats[stat]) + by))
        state.profile = replace(original, stats=stats) if mods else original


def expire(game: Game) -> None:
    """Start of a player's turn: that player's augments and hexes end (§10.5)."""
    keep, gone = [], []
    for entry in in_play(game):
        (gone if entry["player"] == game.active_player else keep).append(entry)
    in_play(game)[:] = keep
    for entry in gone:
        refresh(game, entry["target"])
        game.emit("spell_ends", entry["caster"], spell=entry["spell"], target=entry["target"],
                  reason="the start of the caster's next turn", rule=RULE_IN_PLAY)


def _find(game: Game, action: Action) -> dict[str, Any] | None:
    name, target = action.get("spell"), action.get("target")
    return next((e for e in in_play(game) if e["spell"] == name and
                 (target is None or e["target"] == target)), None)


def _dispeller(game: Game, action: Action, entry: dict[str, Any]) -> tuple[int, str]:
    """Who dispels and from which pool: the active player's leftover Power dice, the other
    player's Dispel dice (§10.5)."""
    player = action.player
    if player is None:
        player = next(p for p in game.turn_order if p != entry["player"]) \
            if len(game.turn_order) > 1 else opponent(game)
    return player, ("power" if player == game.active_player else "dispel")


def legal_dispel_in_play(game: Game, action: Action) -> Ruling:
    entry = _find(game, action)
    if entry is None:
        return Ruling(False, RULE_IN_PLAY, f"no spell {action.get('spell')!r} is in play")
    player, pool = _dispeller(game, action, entry)
    if player == entry["player"]:
        return Ruling(False, RULE_IN_PLAY, "the caster's side does not dispel its own spell")
    n = int(action.get("dice", 0) or 0)
    have = pools(game).get(pool, 0)
    if not 1 <= n <= have:
        return Ruling(False, RULE_IN_PLAY, f"roll 1 to {have} {pool} dice")
    return Ruling(True, RULE_IN_PLAY)


def dispel_in_play(game: Game, action: Action) -> None:
    """3-6: dispelled on a total of at least the casting value; two 1s fail (§10.5)."""
    entry = _find(game, action)
    player, pool = _dispeller(game, action, entry)
    n = int(action.get("dice"))
    pools(game)[pool] -= n
    dice = game.roller.d6(n, f"player {player} dispels {entry['spell']} in play "
                             f"(value {entry['value']})")
    ok = tables.dispelled_in_play(dice, entry["value"])
    if ok:
        in_play(game).remove(entry)
        refresh(game, entry["target"])
    game.emit("dispel_in_play", entry["caster"], spell=entry["spell"], target=entry["target"],
              player=player, pool=pool, dice=dice, dispelled=ok, rule=RULE_IN_PLAY)
