"""The shared rules core: dice, measuring, rulings, profiles, the Ruleset interface and registry,
the board (scene + world + model states) and the phase engine (`Game`)."""

from .board import Board, ModelState
from .dice import Dist, Roller
from .game import Action, Event, Game, Result, UnitState
from .measure import Outline
from .profiles import ProfileError
from .ruleset import REGISTRY, Phase, Ruleset, Step, get_ruleset, register
from .ruling import Cover, Ruling

__all__ = [
    "REGISTRY", "Action", "Board", "Cover", "Dist", "Event", "Game", "ModelState", "Outline",
    "Phase", "ProfileError", "Result", "Roller", "Ruleset", "Ruling", "Step", "UnitState",
    "get_ruleset", "register",
]
