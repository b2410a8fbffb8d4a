"""The registry of game systems: the one list of ruleset ids.

A scene's `ruleset:` must name one of them, and each id is the package
`battlesight.rulesets.<id>`, which declares everything about its system. Adding a system means
its package and one entry here. It lives in `scenes`, the lowest layer that needs it (scene
validation), so that `rulesets` and `viewer` read it from here without `scenes` depending on
them.
"""

from __future__ import annotations

SYSTEMS: tuple[str, ...] = ("wh40k6", "wmh2", "whfb6", "aos2")
