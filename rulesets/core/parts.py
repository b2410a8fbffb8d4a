"""What a ruleset keeps in the modules of its own package, found there by name.

A system declares on its `Ruleset` class only what differs from the defaults; the base class
reads the rest from the system's package: its standard model (`standard.py`: STANDARD), its
readings and ambiguities (`ambiguities.py`: READINGS, AMBIGUITIES), its battlefield set-up
(`setup.py`: DEPLOYMENT_MAPS, SETUP_RULES, layout_checks) and its game hooks (functions named
as `GAME_HOOKS` in the modules `Ruleset.hook_modules` lists). Each module is imported when first
asked for, so a sight verdict (`los`) never imports the set-up data or the game's handlers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: the game hooks a system may define, as functions of its hook modules: what `Game` calls at
#: the start of a game, of a player turn, of a phase and of its later steps, at the end of a
#: phase and of a game turn, and to judge and carry out an action
GAME_HOOKS = ("start_game", "turn_start", "phase_start", "phase_end", "step_start",
              "game_turn_end", "legal", "apply")


def package_of(cls: type) -> str:
    """The package of a ruleset class's system: that of the class that declares its `id`
    (a subclass made elsewhere, in a test, keeps its system's modules)."""
    owner = next((k for k in cls.__mro__ if "id" in vars(k)), cls)
    return owner.__module__.rpartition(".")[0]


def package_module(package: str, module: str) -> ModuleType | None:
    """`package.module`, imported; None when the package has no such module."""
    if not package:
        return None
    name = f"{package}.{module}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


class FromPackage:
    """A class attribute kept in a module of the ruleset's own package (`module.name`), read
    from it when first asked for; `default` when the system has no such module or name, or
    the class is no system (no `id`). A function read this way is called as a static method."""

    def __init__(self, module: str, name: str, default: Any = None):
        self.module, self.name, self.default = module, name, default

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        owner = owner if owner is not None else type(obj)
        if not getattr(owner, "id", ""):
            return self.default
        found = package_module(package_of(owner), self.module)
        return getattr(found, self.name, self.default) if found is not None else self.default


def find_hook(package: str, modules: tuple[str, ...], name: str) -> Callable[..., Any] | None:
    """The function `name` of the first of the package's `modules` that defines it (None: the
    system has no such hook and the core's default holds), looked up at each call as a
    module attribute, so a module's hook is the one it holds now."""
    if name not in GAME_HOOKS:
        raise ValueError(f"no game hook {name!r} (hooks: {', '.join(GAME_HOOKS)})")
    for module in modules:
        found = package_module(package, module)
        hook = getattr(found, name, None) if found is not None else None
        if callable(hook):
            return hook
    return None
