"""The registry of game systems: the built-in ids and the systems other distributions install.

A scene's `ruleset:` must name a registered id. A built-in id (`SYSTEMS`) is the package
`battlesight.rulesets.<id>`; a system of its own distribution declares an entry point in the
`battlesight.rulesets` group, named by its id, whose value is its package (`wh40k7`) or the
ruleset class (`wh40k7.ruleset:WH40K7`). Adding a built-in system means its package and one
entry in `SYSTEMS`; an installed one needs no line here. Entry points are read once, and only
when an id is not built in or the full list is asked for, so a command on a built-in system
never scans the installed distributions.

It lives in `scenes`, the lowest layer that needs it (scene validation), so that `rulesets`,
the layout tools and the viewer read it from here without `scenes` depending on them.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: the built-in systems, each the package `battlesight.rulesets.<id>`
SYSTEMS: tuple[str, ...] = ("wh40k6", "wmh2", "whfb6", "aos2")
#: the entry-point group through which another distribution registers a system
ENTRY_POINT_GROUP = "battlesight.rulesets"
BUILT_IN_PACKAGE = "battlesight.rulesets"


@cache
def installed_systems() -> dict[str, EntryPoint]:
    """The systems other distributions register, by id (an entry point may not take a
    built-in id: the built-in system keeps it)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)
            if ep.name not in SYSTEMS}


def system_ids() -> tuple[str, ...]:
    """Every registered id: the built-in ones in their order, then the installed ones."""
    return SYSTEMS + tuple(sorted(installed_systems()))


def is_system(ruleset_id: object) -> bool:
    """Whether `ruleset_id` names a registered system (entry points read only for an id that
    is not built in)."""
    if not isinstance(ruleset_id, str):
        return False
    return ruleset_id in SYSTEMS or ruleset_id in installed_systems()


def system_package(ruleset_id: str) -> str:
    """The dotted name of a registered system's package, where its modules (`scene_checks`,
    `importing`, `setup`, ...) and its `data/` folder are; KeyError for an unknown id. An
    installed system's entry point is imported to find its package."""
    if ruleset_id in SYSTEMS:
        return f"{BUILT_IN_PACKAGE}.{ruleset_id}"
    entry = installed_systems().get(ruleset_id)
    if entry is None:
        raise KeyError(ruleset_id)
    module = import_module(entry.module)
    return module.__package__ or entry.module
