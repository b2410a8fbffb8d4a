"""The shared rules core: dice, measuring, rulings, profiles, the Ruleset interface and registry,
the board (scene + world + model states) and the phase engine (`Game`).

The names below are imported on first use (PEP 562), as `battlesight.scenes` does: importing one
submodule (`rulesets.core.profiles` for `los`) does not import the phase engine and the dice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.scenes.lazy import lazy_names

if TYPE_CHECKING:
    from .board import Board, ModelState
    from .dice import Dist, Roller
    from .game import Action, Event, Game, Result, UnitState
    from .measure import Outline
    from .profiles import ProfileError
    from .ruleset import REGISTRY, Phase, Ruleset, Step, get_ruleset, register
    from .ruling import Cover, Ruling

#: public name -> the submodule that defines it
_LAZY = {
    "Board": "board", "ModelState": "board",
    "Dist": "dice", "Roller": "dice",
    "Action": "game", "Event": "game", "Game": "game", "Result": "game", "UnitState": "game",
    "Outline": "measure",
    "ProfileError": "profiles",
    "REGISTRY": "ruleset", "Phase": "ruleset", "Ruleset": "ruleset", "Step": "ruleset",
    "get_ruleset": "ruleset", "register": "ruleset",
    "Cover": "ruling", "Ruling": "ruling",
}

__all__ = [
    "REGISTRY", "Action", "Board", "Cover", "Dist", "Event", "Game", "ModelState", "Outline",
    "Phase", "ProfileError", "Result", "Roller", "Ruleset", "Ruling", "Step", "UnitState",
    "get_ruleset", "register",
]


__getattr__ = lazy_names(__name__, _LAZY)
