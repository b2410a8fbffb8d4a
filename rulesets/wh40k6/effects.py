"""Lasting effects of blessings, maledictions and Blind (wh40k6 §8.11, §8.8): characteristic
changes (capped at 10, floored at 1), invulnerable saves, special rules, until the end of the
next turn.

An effect is a plain mapping kept in the affected unit's `status["effects"]`; the typed
profiles of its models are rebuilt from their data with every effect applied, so every other
rule (to wound, saves, instant death, stealth, re-rolls) sees the changed profile.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .profile import Profile, parse_profile

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_EFFECTS = "wh40k6 §8.11"
RULE_BLIND = "wh40k6 §8.8"
STAT_CAP, STAT_FLOOR = 10, 1


def player_turn_index(game: Game) -> int:
    """A count of player turns since the game began (0: game turn 1, first player)."""
    return (game.game_turn - 1) * len(game.turn_order) + game.player_index


def add(game: Game, unit: str, source: str, *, models: list[str] | None = None,
        stats: dict[str, int] | None = None, set_stats: dict[str, int] | None = None,
        save: dict[str, int] | None = None, rules: list[str] | None = None,
        caster: str | None = None, rule: str = RULE_EFFECTS) -> dict[str, Any]:
    """Give `unit` (or only `models` of it) an effect lasting until the end of the next
    player turn; rebuild the profiles; log it."""
    effect = {
        "source": source, "caster": caster, "models": list(models) if models else None,
        "stats": dict(stats or {}), "set": dict(set_stats or {}), "save": dict(save or {}),
        "rules": [str(r).lower() for r in rules or []],
        "cast": [game.game_turn, game.active_player],
        "expires": player_turn_index(game) + 1,
    }
    game.unit(unit).status.setdefault("effects", []).append(effect)
    refresh(game, unit)
    if "fearless" in effect["rules"] and game.unit(unit).status.pop("falling_back", None):
        game.emit("regroup", unit, passed=True, reason=f"{source}: fearless", rule=rule)
    game.emit("effect", unit, **{k: v for k, v in effect.items() if v not in (None, {}, [])},
              until="the end of the next turn", rule=rule)
    return effect


def refresh(game: Game, unit: str) -> None:
    """Rebuild the profiles of the unit's models from their data and the effects on them."""
    board = game.board
    effects = game.unit(unit).status.get("effects", [])
    for m in board.unit_models(unit, alive=False, on_table=False):
        base = parse_profile(board.profile(m).raw)
        mine = [e for e in effects if e["models"] is None or m in e["models"]]
        board.model(m).profile = apply_effects(base, mine)


def apply_effects(base: Profile, effects: list[dict[str, Any]]) -> Profile:
    """`base` with the effects applied: changes summed then capped (1..10), fixed values,
    the better invulnerable save, extra special rules."""
    if not effects:
        return base
    stats = dict(base.stats)
    for key in {k for e in effects for k in e["stats"]}:
        if stats.get(key) is None:
            continue
        value = stats[key] + sum(e["stats"].get(key, 0) for e in effects)
        stats[key] = max(STAT_FLOOR, min(STAT_CAP, value))
    for e in effects:
        for key, value in e["set"].items():
            stats[key] = value
        for key, value in e["save"].items():
            stats[key] = value if stats.get(key) is None else min(stats[key], value)
    rules = base.rules | {r for e in effects for r in e["rules"]}
    return replace(base, stats=stats, rules=frozenset(rules))


def expire(game: Game) -> None:
    """End of a player turn: effects cast in the previous player turn wear off (§8.11, §2.4)."""
    now = player_turn_index(game)
    for unit, state in game.units.items():
        effects = state.status.get("effects")
        if not effects:
            continue
        gone = [e for e in effects if e["expires"] <= now]
        if not gone:
            continue
        state.status["effects"] = [e for e in effects if e["expires"] > now]
        if not state.status["effects"]:
            state.status.pop("effects")
        refresh(game, unit)
        for e in gone:
            game.emit("effect_ends", unit, source=e["source"], cast=e["cast"], rule=RULE_EFFECTS)


def active(game: Game, unit: str) -> list[str]:
    """Names of the effects on a unit now."""
    return [e["source"] for e in game.unit(unit).status.get("effects", [])]
