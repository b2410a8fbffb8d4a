"""Which actions a system knows and which keys each reads: a misspelt action (`do: shot`) or key
(`facng:`) is named with the closest known name, before any question of timing (issue 22).

A system declares the parameters of each of its actions (`Ruleset.action_params`); every action
also takes `do` (or `action`), `unit` and `player`. `Game` refuses an action these find wrong,
and `play` refuses a whole actions file, one `FILE:LINE: KEY: message` line per problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ruleset import Ruleset

#: The keys every action takes: its name (`do`, or `action`), who acts.
COMMON_KEYS = ("do", "action", "unit", "player")


def did_you_mean(name: Any, known: Iterable[str]) -> str:
    """' (did you mean 'shoot'?)' for the closest known names, else ''."""
    import difflib  # here: only a misspelt name needs it

    close = difflib.get_close_matches(str(name), sorted(known), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def action_names(ruleset: Ruleset) -> tuple[str, ...]:
    """Every action of the system: the core's (next, end_phase) and each step's, in order."""
    from .ruleset import CORE_ACTIONS

    steps = (a for phase in ruleset.phases for step in phase.steps for a in step.actions)
    return tuple(dict.fromkeys((*CORE_ACTIONS, *steps)))


def action_problems(ruleset: Ruleset, action: Mapping[Any, Any]) -> list[tuple[str, str]]:
    """(key, message) per thing of an action the system does not know: an unknown action
    (then its keys are not judged), else each key the action does not read. An action without
    a name is `Action.from_dict`'s to refuse."""
    name_key = "do" if "do" in action else "action"
    kind = action.get(name_key)
    if not isinstance(kind, str) or not kind:
        return []
    known = action_names(ruleset)
    if kind not in known:
        return [(name_key, f"unknown action {kind!r}{did_you_mean(kind, known)}; "
                           f"{ruleset.id} actions: {', '.join(sorted(known))}")]
    params = tuple(ruleset.action_params.get(kind, ()))
    takes = f"'{kind}' takes {', '.join(params)}" if params else f"'{kind}' takes no parameters"
    out = []
    for key in action:
        if key not in COMMON_KEYS and key not in params:
            hint = did_you_mean(key, (*params, *COMMON_KEYS)) or f" ({takes})"
            out.append((str(key), f"unknown key {str(key)!r} for '{kind}'{hint}"))
    return out
