"""The standard model of each ruleset: what stands on every cell of a layout analysis.

Each ruleset package declares its own (`Ruleset.standard_profile`, in `rulesets/<id>/
standard.py`: base, height, eye, sight test, the rules they come from and the game profile a
plain scene model gets); this module only looks them up and applies the command line's
overrides.
"""

from __future__ import annotations

from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.core.standard import StandardModel
from battlesight.scenes.systems import system_ids

__all__ = ["StandardModel", "standard_model", "standard_models"]


def _declared(ruleset: str) -> StandardModel:
    model = get_ruleset(ruleset).standard_profile
    if model is None:
        raise ValueError(f"ruleset {ruleset!r} declares no standard model")
    return model


def standard_models() -> dict[str, StandardModel]:
    """The standard model of every registered system, by ruleset id."""
    return {rid: _declared(rid) for rid in system_ids()}


def standard_model(ruleset: str, base: float | None = None, height: float | None = None,
                   eye: float | None = None) -> StandardModel:
    """The ruleset's standard model, with base, height or eye overridden when given (the torso
    point and a volume's eye follow the height)."""
    try:
        model = _declared(ruleset)
    except KeyError:
        raise ValueError(f"unknown ruleset {ruleset!r}; known: {', '.join(system_ids())}") from None
    return model.resized(base, height, eye)
