"""The circumstances of a unit's shooting attack read from the game (wh40k6 §4, §8.11): whether
it moved, whether it fires snap shots, which psykers' witchfire replaces their shooting.

Weapon fire (`actions`), overwatch and shooting psychic powers (`targets`, `powers`) all build
their `ShotContext` here, so every shot of a unit in the same state is judged alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .shooting import ShotContext

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game


def shot_context(game: Game, unit: str, weapon: Any = None, **kw: Any) -> ShotContext:
    """The `ShotContext` for `unit` firing `weapon` now (extra fields in `kw`)."""
    state = game.unit(unit)
    if "only" not in kw and game.phase.name == "shooting" and \
            state.player == game.active_player:  # a witchfire replaces its shooting (§8.11)
        kw["hold"] = tuple(state.turn.get("witchfire_models", ()))
    snap = bool(state.status.get("gone_to_ground") or state.status.get("falling_back")
                or state.status.get("regrouped") or any(
                    game.board.model(m).status.get(k) for m in game.board.unit_models(unit)
                    for k in ("crew_shaken", "crew_stunned")))
    return ShotContext(weapon=weapon, moved=bool(state.turn.get("moved")),
                       snap=snap, vehicle_moved=float(state.turn.get("distance", 0.0)),
                       samples=game.ruleset.sight_samples, **kw)
