"""The activation under way (wmh2 §2.5): which unit is activating, the record it keeps of each
of its models, which model an action names, and which troopers must run.

Both the movement legality (`activation`) and the attack legality (`attacking`) read these, so
they live below both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .movement import in_formation

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game

RULE_ACTIVATION = "wmh2 §2.5"


def model_turn(game: Game, unit: str, model: str) -> dict[str, Any]:
    """This activation's record of one model."""
    models = game.unit(unit).turn.setdefault("models", {})
    if model not in models:
        xy = game.board.outline(model).center
        models[model] = {"move": None, "distance": 0.0, "action": None, "attacks": {},
                         "start": [float(xy[0]), float(xy[1])], "charge": None}
    return models[model]


def active_unit(game: Game) -> str | None:
    for unit, state in game.units.items():
        if state.turn.get("activating") and not state.turn.get("done"):
            return unit
    return None


def must_run(game: Game, unit: str, model: str) -> bool:
    """A trooper out of formation at the start of its unit's activation (wmh2 §2.5, A8)."""
    if game.unit(unit).turn.get("activated"):
        return bool(model_turn(game, unit, model).get("must_run"))
    return game.board.profile(model).is_trooper and not in_formation(game.board, model)


def single_model(game: Game, action: Action) -> str | None:
    """The model an action names, or the unit's only model."""
    models = game.board.unit_models(action.unit)
    chosen = action.get("model")
    if chosen is not None:
        return str(chosen) if chosen in models else None
    return models[0] if len(models) == 1 else None
